"""serve-ssh connects every room to the shared tables' service (the server's side).

The server runs in this test's event loop (``serve``), the room is
``tables_room.py``, the client is asyncssh's: so the test can look at the table
service's own connections and see who the server said each one is.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
from gamenight.plugins import load_registry
from gamenight.ssh.identity import key_user_id
from gamenight.ssh.log import EventLog
from gamenight.ssh.server import serve
from gamenight.ssh.settings import Settings
from gamenight.tables.service import TableService

from tests.core.ssh.conftest import TEMPLATE

ROOM = Path(__file__).with_name("tables_room.py")


class Running:
    def __init__(self, port: int, log: io.StringIO, data_dir: Path) -> None:
        self.port = port
        self.log = log
        self.data_dir = data_dir

    def events(self, name: str) -> list[dict]:
        return [e for e in map(json.loads, self.log.getvalue().splitlines()) if e["event"] == name]


@contextlib.asynccontextmanager
async def running(tmp_path: Path, service: TableService | None = None, **options: object) -> AsyncIterator[Running]:
    """``serve`` in this loop with ``tables_room.py`` as the room; stopped (and awaited) afterwards."""
    data_dir = tmp_path / "data"
    settings = Settings("127.0.0.1", 0, data_dir, None, True, command=[sys.executable, str(ROOM)], template=TEMPLATE)
    for name, value in options.items():
        setattr(settings, name, value)
    stream = io.StringIO()
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    server = asyncio.create_task(serve(settings, EventLog(stream), ready, service))
    try:
        port = await asyncio.wait_for(asyncio.shield(ready), 30)
        yield Running(port, stream, data_dir)
    finally:
        server.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(server, 30)


@contextlib.asynccontextmanager
async def session(port: int, user: str, key: asyncssh.SSHKey | None = None) -> AsyncIterator[asyncssh.SSHClientProcess]:
    """An interactive session with a pty whose client also sends ``GAMENIGHT_TABLES_FD=0``."""
    async with asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        client_keys=[key] if key is not None else None,
        known_hosts=None,
        agent_path=None,
        preferred_auth="publickey" if key is not None else "keyboard-interactive",
        password=None if key is not None else "",  # a guest without a key: keyboard-interactive, nothing asked
    ) as conn:
        process = await conn.create_process(
            term_type="xterm-256color", term_size=(80, 24), env={"GAMENIGHT_TABLES_FD": "0"}, encoding=None
        )
        yield process
        process.close()


async def read_until(process: asyncssh.SSHClientProcess, needle: bytes, timeout: float = 30) -> str:
    seen = b""

    async def reading() -> None:
        nonlocal seen
        while needle not in seen:
            chunk = await process.stdout.read(4096)
            if not chunk:
                raise AssertionError(f"the session ended before {needle!r}: {seen!r}")
            seen += chunk

    await asyncio.wait_for(reading(), timeout)
    return seen.decode()


def field(output: str, name: str) -> str:
    return output.split(name + ":", 1)[1].split()[0]


@pytest.mark.parametrize("sandbox", ["off", "auto"])  # auto: through setsid and launch.py's PID 1
async def test_each_room_gets_a_socket_to_the_servers_table_service(tmp_path: Path, sandbox: str) -> None:
    room_user = "root" if sandbox == "off" and os.geteuid() == 0 else None  # as root: rooms as root, said so
    async with running(tmp_path, sandbox=sandbox, room_user=room_user) as server, session(server.port, "alice") as room:
        output = await read_until(room, b"tables:")
        assert server.events("listening")[0]["tables"] is True
    fd = field(output, "tables_fd")
    # The server's own socket, not the client's "0": its Hello got a Welcome and its ListTables a list.
    assert fd.isdigit() and int(fd) > 2
    assert field(output, "welcome") == "alice" and field(output, "tables") == "0"
    assert (server.data_dir / "users").is_dir()  # a real session of the real server


async def test_the_service_hears_the_identity_the_server_authenticated_not_the_user_name(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(key.export_public_key())
    service = TableService(load_registry(), tmp_path / "tables", seed=1)
    await service.start()
    try:
        async with (
            running(tmp_path, service, guest=False, authorized_keys=keys) as server,
            session(server.port, "mallory", key) as room,
        ):
            await read_until(room, b"tables:")
            [connection] = service.connections
            assert connection.identity == key_user_id(key)  # from the key: the user name is only a label
            assert connection.name == "mallory"
    finally:
        await asyncio.wait_for(service.close(), 10)


async def test_the_service_sees_the_session_end_even_while_the_room_lingers(tmp_path: Path) -> None:
    service = TableService(load_registry(), tmp_path / "tables", seed=1)
    await service.start()
    try:
        async with running(tmp_path, service, grace=8.0) as server:
            async with session(server.port, "bob") as room:
                await read_until(room, b"tables:")
                room.stdin.write(b"i")  # the room ignores SIGHUP/SIGTERM: it lives until SIGKILL
                await read_until(room, b"ignoring")
                assert len(service.connections) == 1
            # The client is gone; the server closed its end at once, so the seat is free to be
            # marked away although the room still holds its end until the grace period ends.
            for _ in range(60):
                if not service.connections:
                    break
                await asyncio.sleep(0.05)
            assert service.connections == []
            assert not server.events("session_end")  # the room is still there
    finally:
        await asyncio.wait_for(service.close(), 10)


async def test_tables_off_gives_the_room_no_socket(tmp_path: Path) -> None:
    async with running(tmp_path, tables=False) as server, session(server.port, "carol") as room:
        output = await read_until(room, b"tables_fd:None")
    assert "welcome:" not in output
    assert server.events("listening")[0]["tables"] is False
    assert not (server.data_dir / "tables").exists()


async def test_a_room_that_sends_garbage_is_cut_off_logged_and_harms_no_one(tmp_path: Path) -> None:
    async with (
        running(tmp_path) as server,
        session(server.port, "dave") as good,
        session(server.port, "eve") as bad,
    ):
        await read_until(good, b"tables:")
        await read_until(bad, b"tables:")
        bad.stdin.write(b"g")
        output = await read_until(bad, b"closed")
        assert "error:protocol" in output
        good.stdin.write(b"l")
        assert field(await read_until(good, b"listed:"), "listed") == "0"  # the other room is still served
        for _ in range(60):
            if server.events("tables"):
                break
            await asyncio.sleep(0.05)
        [line] = server.events("tables")  # the service's own log, as one JSON line of the server's
        assert line["level"] == "warning" and "protocol" in line["detail"]
        assert all(line.startswith("{") for line in server.log.getvalue().splitlines())
