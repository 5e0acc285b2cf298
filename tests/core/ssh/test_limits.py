"""Limits hold, sessions end cleanly, and one bad client cannot hurt the others."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal

import asyncssh
import pytest

from tests.core.ssh.conftest import FAKE_COMMAND, UNSANDBOXED, needs_ssh, ssh_argv, wait_until
from tests.core.ssh.processes import process_alive, process_group


def connect(server, username: str = "alice"):
    return asyncssh.connect(
        "127.0.0.1",
        server.port,
        username=username,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        password="",  # a guest without a key logs in by keyboard-interactive, with nothing asked
    )


async def open_room(conn, cols: int = 80, rows: int = 24):
    process = await conn.create_process(term_type="xterm", term_size=(cols, rows), encoding=None)
    await asyncio.wait_for(process.stdout.readuntil(b"saves:"), 20)
    return process


async def test_the_connection_limit_holds(start_server) -> None:
    server = start_server("--guest", "--max-sessions", "2", "--command", FAKE_COMMAND)
    async with connect(server, "one") as first, connect(server, "two"):
        await open_room(first)
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as refused:
            async with connect(server, "three"):
                pass
        assert "full" in str(refused.value)
        event = server.wait_event(lambda e: e["event"] == "limit" and e["kind"] == "sessions")
        assert event["limit"] == 2 and event["open"] == 2
    server.wait_event(lambda e: e["event"] == "disconnect" and e["open"] == 0)
    async with connect(server, "three") as third:  # room again once the others left
        await open_room(third)


async def test_the_rate_of_new_connections_per_address_holds(start_server) -> None:
    server = start_server("--guest", "--max-new-per-minute", "3", "--command", FAKE_COMMAND)
    for number in range(3):
        async with connect(server, f"guest{number}"):  # a keyless guest's name is its own: one each
            pass
    with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as refused:
        async with connect(server):
            pass
    assert "Too many new connections" in str(refused.value)
    server.expect("limit", kind="rate", peer="127.0.0.1")


async def test_the_idle_timeout_disconnects_and_ends_the_room(start_server) -> None:
    server = start_server("--guest", "--idle-timeout", "2", "--command", FAKE_COMMAND)
    async with connect(server) as conn, connect(server, "lurker") as lurker:
        process = await open_room(conn)
        pid = server.wait_event(lambda e: e["event"] == "session_start")["pid"]
        # Type every 0.3 s until the lurker (connected without a session, never typing) is closed
        # for idleness: input resets the room's clock, so it outlives the lurker's 2 s however slow
        # the machine (a single key after a fixed sleep raced the timeout under load).
        closed = asyncio.ensure_future(lurker.wait_closed())
        for _ in range(40):
            process.stdin.write(b"x")  # input resets the clock
            await process.stdout.readuntil(b"got:1:78")
            if await asyncio.wait([closed], timeout=0.3) and closed.done():
                break
        assert closed.done(), "the lurker was not closed for idleness"
        # Only the lurker so far: the room's input reset its clock.
        assert len(server.expect("limit", kind="idle")) == 1
        rest = await asyncio.wait_for(process.stdout.read(), 5)
        assert b"without input" in rest
    wait_until(lambda: len(server.of_kind("limit", kind="idle")) == 2, 10, "the second idle line")  # the log may lag
    wait_until(lambda: not process_alive(pid), 10, "the idle room to end")


@pytest.mark.parametrize("sandbox", ["off", "auto"])
@needs_ssh
def test_a_vanished_client_ends_its_whole_process_group(start_server, terminals, sandbox: str) -> None:
    options = UNSANDBOXED if sandbox == "off" else ["--sandbox", sandbox]
    server = start_server("--guest", "--grace", "1", *options, "--command", FAKE_COMMAND)
    terminal = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    terminal.wait_for("saves:")
    room = server.wait_event(lambda e: e["event"] == "session_start")["pid"]
    terminal.send("c")  # a grandchild in the room's process group
    terminal.wait_for("child:")
    terminal.send("i")  # the room now ignores SIGHUP and SIGTERM
    terminal.wait_for("ignoring")
    wait_until(lambda: len(process_group(room)) >= 2, 10, "the room and its grandchild")
    terminal.kill()
    server.wait_event(lambda e: e["event"] == "disconnect")
    wait_until(lambda: not process_group(room), 10, "the room's process group to end")
    assert server.process.poll() is None


async def test_garbage_huge_pastes_and_resize_storms_do_not_hurt_other_sessions(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    async with connect(server, "noisy") as noisy_conn, connect(server, "calm") as calm_conn:
        noisy = await open_room(noisy_conn)
        calm = await open_room(calm_conn)
        garbage = random.Random(7).randbytes(4 * 1024 * 1024)

        async def flood() -> None:
            for offset in range(0, len(garbage), 32 * 1024):
                noisy.stdin.write(garbage[offset : offset + 32 * 1024])
                if offset % (256 * 1024) == 0:
                    for size in range(200):
                        noisy.change_terminal_size(20 + size % 300, 5 + size % 90)
                await asyncio.sleep(0)
            noisy.change_terminal_size(123, 45)
            await noisy.stdin.drain()

        async def typing() -> list[int]:
            answered = []
            for key in b"0123456789":  # keys the fake room gives no meaning
                calm.stdin.write(bytes([key]))
                await asyncio.wait_for(calm.stdout.readuntil(f"got:1:{key:02x}".encode()), 10)
                answered.append(key)
                await asyncio.sleep(0.05)
            return answered

        flooding = asyncio.create_task(flood())
        answered = await typing()  # each key answered, in order, while the other session floods
        await asyncio.wait_for(flooding, 60)
        assert answered == list(b"0123456789")
        # How long a key takes under such a flood is a figure for bench/, not an assert here.
        await asyncio.wait_for(noisy.stdout.readuntil(b"size:123x45"), 20)  # the last size won
    async with connect(server, "later") as later:  # and the server still admits newcomers
        await open_room(later)
    assert server.process.poll() is None
    assert not server.of_kind("error")


async def test_stopping_the_server_ends_every_room_and_a_restart_keeps_the_host_key(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    async with connect(server, "one") as first, connect(server, "two") as second:
        await open_room(first)
        await open_room(second)
        wait_until(lambda: len(server.of_kind("session_start")) == 2, 10, "two rooms")
        rooms = [e["pid"] for e in server.of_kind("session_start")]
        assert await asyncio.to_thread(server.stop) == 0
        await asyncio.wait_for(asyncio.gather(first.wait_closed(), second.wait_closed()), 5)
    assert len(server.of_kind("disconnect", reason="shutdown")) == 2
    assert len(server.of_kind("session_end")) == 2
    assert not any(process_alive(pid) for pid in rooms)
    again = start_server("--guest", data_dir=server.data_dir)
    before, after = server.of_kind("listening")[0], again.of_kind("listening")[0]
    assert before["host_key_created"] and not after["host_key_created"]
    assert before["host_key"] == after["host_key"]


@pytest.mark.parametrize("rooms", ["spawn", "template"])
async def test_a_killed_servers_rooms_end_too(start_server, rooms) -> None:
    """SIGKILL leaves the server no time to hang up: its rooms must see their terminal go and end."""
    server = start_server("--guest", "--template", "off" if rooms == "spawn" else "on")
    async with connect(server, "one") as first:
        process = await first.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await asyncio.wait_for(process.stdout.readuntil(b"choose a game"), 40)
        room = server.expect("session_start")[0]["pid"]
        server.process.kill()
        server.process.wait(15)
    try:
        await asyncio.to_thread(wait_until, lambda: not process_group(room), 20, "the rooms to end")
    finally:
        for pid in process_group(room):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
