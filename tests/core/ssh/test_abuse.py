"""Abusive clients (issue 14): each test plays one attack against a real server and fails
without the limit that stops it."""

from __future__ import annotations

import asyncio
import time

import asyncssh
import pyte

from tests.core.ssh.conftest import FAKE_COMMAND, process_alive

LOBBY = b"choose a game"


def connect(server, username: str = "alice", **options):
    return asyncssh.connect("127.0.0.1", server.port, username=username, known_hosts=None, client_keys=None,
                            agent_path=None, config=[], **options)


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
    server = start_server("--guest", "--sandbox", "off")
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
        # Without a bound the room grew by about 10 MiB a second (60 MiB over these seconds).
        assert samples[-1] - samples[1] < 20, samples
        assert max(samples) < 150, samples
        assert server.of_kind("limit", kind="input")
        # And it still answers: the rules of the highlighted game open at once.
        await asyncio.sleep(0.5)
        assert "choose a game" in "\n".join(screen.display)
        asked = time.monotonic()
        process.stdin.write(b"h")
        while "choose a game" in "\n".join(screen.display) and time.monotonic() - asked < 10:
            await asyncio.sleep(0.05)
        answered = time.monotonic() - asked
        reader.cancel()
    assert answered < 5, answered
    assert process_alive(room) or server.of_kind("session_end")


async def test_a_room_that_passes_its_memory_cap_ends_and_keeps_its_saves(start_server) -> None:
    server = start_server("--guest", "--sandbox", "off", "--room-memory", "300", "--command", FAKE_COMMAND)
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
