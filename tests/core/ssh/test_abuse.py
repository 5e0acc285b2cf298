"""Abusive clients: each test plays one attack against a real server and fails
without the limit that stops it."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

import asyncssh
import pyte
import pytest
from gamenight.ssh.server import sandbox_works
from gamenight.ssh.sessions import RESIZE_INTERVAL

from tests.core.ssh.conftest import FAKE_COMMAND, UNSANDBOXED, wait_until
from tests.core.ssh.processes import process_alive

LOBBY = b"choose a game"


def connect(server, username: str = "alice", **options):
    # password "": a guest without a key logs in by keyboard-interactive, with nothing asked
    options = {"known_hosts": None, "client_keys": None, "agent_path": None, "config": [], "password": "", **options}
    return asyncssh.connect("127.0.0.1", server.port, username=username, **options)


def rss_mib(pid: int) -> float:
    """The resident memory of ``pid`` in MiB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


async def read_until(process, needle: bytes, timeout: float = 30) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        chunk = await asyncio.wait_for(process.stdout.read(65536), max(0.1, deadline - time.monotonic()))
        if not chunk:
            raise AssertionError(f"the room closed before {needle!r}: {seen[-300:]!r}")
        seen = seen[-100_000:] + chunk
    return seen


# -- 1. input a room accepts, and its memory ------------------------------------------------
async def test_a_fast_typing_client_does_not_grow_the_room_and_the_room_still_answers(start_server) -> None:
    server = start_server("--guest", *UNSANDBOXED)
    async with connect(server, "typist") as conn:
        process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
        await read_until(process, LOBBY, 60)
        room = server.wait_event(lambda e: e["event"] == "session_start")["pid"]
        screen = pyte.Screen(80, 24)
        stream = pyte.ByteStream(screen)

        async def drain() -> None:  # the client reads what the room draws
            while chunk := await process.stdout.read(65536):
                stream.feed(chunk)

        reader = asyncio.create_task(drain())
        began = time.monotonic()
        samples: list[float] = []
        while time.monotonic() - began < 8:  # 4 KB of "j" (down) every 10 ms
            process.stdin.write(b"j" * 4096)
            await asyncio.sleep(0.01)
            if not samples or time.monotonic() - began > len(samples):
                samples.append(rss_mib(room))
        samples.append(rss_mib(room))
        # Without a bound the room grew by 10-20 MiB a second (125 MiB over these seconds).
        assert samples[-1] - samples[1] < 40, samples
        assert max(samples) < 150, samples
        assert server.of_kind("limit", kind="input")
        # And it still answers: the rules of the highlighted game open at once.
        await asyncio.sleep(0.5)
        assert "choose a game" in "\n".join(screen.display)
        process.stdin.write(b"h")
        for _ in range(600):  # a guard against a hang, not a measure: the room answers or the test fails
            if "choose a game" not in "\n".join(screen.display):
                break
            await asyncio.sleep(0.05)
        reader.cancel()
    assert "choose a game" not in "\n".join(screen.display), "the flooded room no longer answers a key"
    if not process_alive(room):  # it ends with the connection; its log line may follow a moment later
        server.wait_event(lambda event: event["event"] == "session_end", 10)


async def test_a_room_that_passes_its_memory_cap_ends_and_keeps_its_saves(start_server) -> None:
    server = start_server("--guest", *UNSANDBOXED, "--room-memory", "300", "--command", FAKE_COMMAND)
    async with connect(server, "hoarder") as conn:
        process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await read_until(process, b"saves:")
        room = server.wait_event(lambda e: e["event"] == "session_start")["pid"]
        process.stdin.write(b"s")
        await read_until(process, b"saved")
        process.stdin.write(b"m")
        seen = await read_until(process, b"memory:")
        allocated = int(seen.split(b"memory:")[1].split(b"\r")[0])
        await asyncio.wait_for(process.wait_closed(), 10)
    assert allocated < 300  # stopped by the cap, not by the machine
    assert server.expect("session_end", returncode=3)
    assert not process_alive(room)
    assert list((server.data_dir / "users").glob("g-hoarder-*/saves/autosave-fake.toml"))
    assert server.process.poll() is None


def server_rss_mib(server) -> float:
    return rss_mib(server.process.pid)


async def open_fake_room(conn, **options):
    process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None, **options)
    await read_until(process, b"saves:")
    return process


# -- 4. environment requests ---------------------------------------------------------------
async def test_big_environment_requests_do_not_grow_the_server(start_server) -> None:
    server = start_server("--guest", *UNSANDBOXED, "--command", FAKE_COMMAND)
    async with connect(server, "warmup") as conn:  # the server's own imports and buffers first
        (await open_fake_room(conn)).close()
    await asyncio.sleep(0.5)
    before = server_rss_mib(server)
    big = {f"LC_{number}": "x" * 250_000 for number in range(64)}  # names a room uses, huge values
    big |= {f"JUNK_{number}": "y" * 250_000 for number in range(36)}
    conns = [await connect(server, f"env{number}") for number in range(6)]
    try:
        for conn in conns:
            await open_fake_room(conn, env=big)
        await asyncio.sleep(0.5)
        grown = server_rss_mib(server) - before
    finally:
        for conn in conns:
            conn.close()
    # Storing them took 6 x 64 x 250 KB = 96 MB.
    assert grown < 30, grown
    starts = server.of_kind("session_start")
    assert all(start["env_dropped"] == 100 for start in starts[1:]), starts


async def test_the_environment_a_room_uses_still_arrives(start_server) -> None:
    server = start_server("--guest", *UNSANDBOXED, "--command", FAKE_COMMAND)
    async with connect(server, "colour") as conn:
        process = await conn.create_process(
            term_type="xterm",
            term_size=(80, 24),
            encoding=None,
            env={"COLORTERM": "truecolor", "LC_ALL": "ja_JP.UTF-8"},
        )
        await read_until(process, b"colours:truecolor")
    assert server.expect("session_start")[0]["env_dropped"] == 0


# -- 5. connection slots ---------------------------------------------------------------------
async def bare_tcp(count: int, port: int, host: str = "127.0.0.1"):
    """``count`` TCP connections that never say a word."""
    return [await asyncio.open_connection("127.0.0.1", port, local_addr=(host, 0)) for _ in range(count)]


async def test_bare_tcp_connects_do_not_lock_out_a_key_holder(start_server, tmp_path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    authorized = tmp_path / "authorized_keys"
    authorized.write_bytes(key.export_public_key())
    server = start_server("--authorized-keys", str(authorized), "--max-sessions", "5", "--command", FAKE_COMMAND)
    silent = await bare_tcp(5, server.port, "127.0.0.2")
    silent += await bare_tcp(5, server.port, "127.0.0.3")
    await asyncio.sleep(0.3)
    async with connect(server, "keyholder", client_keys=[key]) as conn:
        await open_fake_room(conn)
    for _reader, writer in silent:
        writer.close()


async def test_connections_that_do_not_log_in_are_dropped_at_the_login_timeout(start_server) -> None:
    server = start_server("--guest", "--login-timeout", "2", "--command", FAKE_COMMAND)
    mark = server.mark()
    silent = await bare_tcp(3, server.port)
    for reader, writer in silent:
        await asyncio.wait_for(reader.read(), 30)  # EOF, after the server's version line
        writer.close()
    # Dropped by the login timeout (asyncssh's reason), not by anything else.
    wait_until(lambda: len(server.of_kind("disconnect", since=mark)) >= 3, 10, "three disconnect lines")
    assert [e["reason"] for e in server.of_kind("disconnect", since=mark)] == ["Login timeout expired"] * 3


async def test_one_address_cannot_take_every_slot(start_server) -> None:
    server = start_server("--guest", "--max-sessions", "5", "--max-per-address", "2", "--command", FAKE_COMMAND)
    async with connect(server, "one") as first, connect(server, "two") as second:
        await open_fake_room(first)
        await open_fake_room(second)
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as refused:
            async with connect(server, "three"):
                pass
        assert "Too many connections from your address" in str(refused.value)
        server.expect("limit", kind="address", peer="127.0.0.1")
        async with connect(server, "four", local_addr=("127.0.0.2", 0)) as other:  # another address is let in
            await open_fake_room(other)


async def test_one_user_cannot_take_every_slot(start_server) -> None:
    server = start_server("--guest", "--max-sessions", "5", "--max-per-user", "1", "--command", FAKE_COMMAND)
    key = asyncssh.generate_private_key("ssh-ed25519")  # Ann's name is bound to her key: she is one user
    async with connect(server, "ann", client_keys=[key]) as first:
        await open_fake_room(first)
        with pytest.raises((asyncssh.Error, ConnectionError)) as refused:
            async with connect(server, "ann", client_keys=[key], local_addr=("127.0.0.2", 0)) as again:
                await open_fake_room(again)
        assert "connected too many times" in str(refused.value)
        server.expect("limit", kind="user")
        async with connect(server, "bob") as bob:
            await open_fake_room(bob)


# -- 6. refused requests ---------------------------------------------------------------------
async def test_a_connection_gets_six_login_attempts(start_server, tmp_path) -> None:
    authorized = tmp_path / "authorized_keys"
    authorized.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    server = start_server("--authorized-keys", str(authorized), "--command", FAKE_COMMAND)
    wrong = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(40)]
    mark = server.mark()
    with pytest.raises((asyncssh.Error, ConnectionError)) as refused:
        async with connect(server, "guesser", client_keys=wrong):
            pass
    # The client reads the server's reason -- or, when its next attempt races the close (seen on a
    # loaded machine), a broken pipe; the server's log says why either way.
    assert isinstance(refused.value, ConnectionError) or "Too many authentication failures" in str(refused.value)
    (limit,) = server.expect("limit", since=mark)
    assert limit["kind"] == "auth_tries"
    (gone,) = server.expect("disconnect", since=mark)
    assert gone["auth_failures"] <= 8
    assert len(server.of_kind("auth_rejected_key", since=mark)) <= 8


async def test_a_connection_that_keeps_sending_refused_requests_is_closed(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    mark = server.mark()
    attempts = 0
    async with connect(server, "knocker") as conn:
        for attempts in range(1, 1000):  # noqa: B007
            try:
                await conn.open_connection("127.0.0.1", 9)
            except asyncssh.ChannelOpenError as error:
                if "closed" in error.reason.lower():  # the server has closed the connection
                    break
            except (asyncssh.Error, ConnectionError):
                break
            if conn.is_closed():
                break
        await asyncio.wait_for(conn.wait_closed(), 5)
    assert attempts <= 12
    (gone,) = server.expect("disconnect", since=mark)
    assert gone["refused"] == 10 and gone["reason"] == "refused"
    assert len(server.of_kind("refused", since=mark)) <= 8
    async with connect(server, "calm") as calm:  # the server carries on
        await open_fake_room(calm)


# -- 8. a disconnect ends the room promptly, sandboxed or not ------------------------------------
@pytest.mark.parametrize("sandbox", ["off", "on"])
async def test_a_disconnect_ends_the_room_within_a_second(start_server, sandbox: str) -> None:
    if sandbox == "on" and not sandbox_works(Path(tempfile.mkdtemp())):
        pytest.skip("this system does not allow user, mount and PID namespaces (no sandbox to test)")
    options = UNSANDBOXED if sandbox == "off" else ["--sandbox", sandbox]
    server = start_server("--guest", *options, "--command", FAKE_COMMAND)  # grace: 5 s
    async with connect(server, "leaver") as conn:
        process = await open_fake_room(conn)
        process.stdin.write(b"a")  # the room saves when told to end (SIGHUP/SIGTERM)
        await read_until(process, b"autosaving")
    left = server.expect("disconnect")[0]["ts"]
    (ended,) = server.expect("session_end")
    assert ended["ts"] - left < 1.0, ended
    # It was let finish: not killed before its save, not left to the 5 s SIGKILL.
    assert list((server.data_dir / "users").glob("g-leaver-*/saves/autosave-hup.toml"))
    assert ended["returncode"] == 0
    assert server.of_kind("listening")[0]["isolated"] == (sandbox == "on")


# -- 7. resize storms, the Yatzy table, old guest folders ------------------------------------------
async def test_a_resize_storm_reaches_the_room_a_few_times_a_second(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    async with connect(server, "stormy") as conn:
        process = await open_fake_room(conn)
        began = time.monotonic()
        for sent in range(1000):  # 1,000 resizes in about 3 s (longer on a loaded machine)
            process.change_terminal_size(40 + sent % 100, 10 + sent % 50)
            await asyncio.sleep(0.003)
        process.change_terminal_size(123, 45)
        seen = await read_until(process, b"size:123x45", 10)  # the last size wins
        took = time.monotonic() - began
    # The room says its size on each SIGWINCH (the kernel's and the server's: one or two per resize).
    # The server passes on at most one size per RESIZE_INTERVAL (0.25 s): about 12 of these 1,001
    # in the 3 s they take; unpaced, each of the 1,001 different sizes would reach it. Counted
    # against the time the storm took (a busy machine stretches it), not timed.
    sizes = [line.split(b"\r")[0] for line in seen.split(b"size:")[1:]]
    reached = sum(1 for before, after in zip([b"", *sizes], sizes, strict=False) if before != after)
    assert reached <= min(2 * (took / RESIZE_INTERVAL + 2), 300), (reached, took)


def test_a_new_guest_does_not_rebuild_the_yatzy_table(tmp_path: Path) -> None:
    import subprocess
    import sys

    from gamenight.ssh.server import build_environment

    home = tmp_path / "users" / "g-newcomer-0"
    home.mkdir(parents=True)
    env = build_environment(home, "xterm", "256", None)  # what a room of a new guest gets
    never_build = (
        "import gamenight_yatzy.strategy as strategy\n"
        "def build_table(*args, **kwargs):\n"
        "    raise SystemExit('a new guest built the Yatzy table (about 30 s of CPU)')\n"
        "strategy.build_table = build_table\n"
        "strategy.load_table(True); strategy.load_table(False)\n"
    )
    done = subprocess.run([sys.executable, "-c", never_build], env=env, cwd=home, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not [path for path in home.rglob("*") if path.is_file()]  # nothing written, nothing cached per guest


async def test_guest_folders_unused_for_the_expiry_period_are_deleted(start_server, tmp_path) -> None:
    data = tmp_path / "data"
    users = data / "users"
    old_guest, new_guest, old_key = users / "g-old-1", users / "g-new-2", users / "k-0123"
    for folder in (old_guest, new_guest, old_key):
        (folder / "saves").mkdir(parents=True)
        (folder / "saves" / "autosave-x.toml").write_text("game = 'x'\n")
    long_ago = time.time() - 3 * 86400
    for folder in (old_guest, old_key):
        for path in (folder / "saves" / "autosave-x.toml", folder / "saves", folder):
            os.utime(path, (long_ago, long_ago))
    server = start_server("--guest", "--guest-expiry-days", "2", "--command", FAKE_COMMAND, data_dir=data)
    assert server.expect("guests_expired")[0]["folders"] == 1
    assert not old_guest.exists()
    assert new_guest.exists() and old_key.exists()  # a recent guest, and key users, are kept


async def test_client_keepalives_are_not_counted_as_refused_requests(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    async with connect(server, "steady", keepalive_interval=0.05) as conn:  # like ServerAliveInterval
        process = await open_fake_room(conn)
        await asyncio.sleep(1.5)  # about 30 keepalive@openssh.com requests, each answered "failure"
        process.stdin.write(b"x")
        await read_until(process, b"got:1:78", 5)
    assert not server.of_kind("limit", kind="refused")


async def test_input_dropped_mid_paste_ends_the_paste(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    async with connect(server, "paster") as conn:
        process = await open_fake_room(conn)
        process.stdin.write(b"\x1b[200~start of a paste")
        await read_until(process, b"got:22:1b5b3230307e")
        process.stdin.write(b"x" * 20_000 + b"\x1b[201~")  # over the input bound: dropped, with its end
        seen = await read_until(process, b"got:6:1b5b3230317e", 5)  # so the server ends the paste itself
    assert b"got:20006" not in seen
    server.expect("limit", kind="input")
