"""The room's connection to the table service: GAMENIGHT_TABLES_FD, --tables-socket, and failures."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest
from gamenight.app import TABLES_FD_VARIABLE, GameNightApp
from gamenight.config import Config

from tests.core.tables.conftest import REGISTRY


def room(tmp_path, **kwargs) -> GameNightApp:
    config = Config.load(tmp_path / "config.toml")
    return GameNightApp(registry=REGISTRY, config=config, saves_dir=tmp_path / "saves", bot_delay=0, **kwargs)


async def until(pilot, predicate, rounds: int = 1500) -> None:
    for _ in range(rounds):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


async def serve_socketpair(service, identity: str):
    """A socketpair whose one end the service serves as ``identity``; the other end is returned."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(reader, writer, identity, identity.title()))
    return ours


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_the_room_connects_over_the_fd_the_server_gives_it(service, tmp_path, monkeypatch):
    ours = await serve_socketpair(service, "ann")
    monkeypatch.setenv(TABLES_FD_VARIABLE, str(ours.detach()))
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.tables is not None)
        assert app.tables.name == "Ann"
        await until(pilot, lambda: "t" in app.screen.active_bindings)
        from gamenight.commands import system_commands

        titles = [command.title for command in system_commands(app, app.screen)]
        assert "Shared tables" in titles  # the palette offers the Tables too
        await pilot.press("q")


@pytest.mark.parametrize("value", ["not-a-number", "9999", "file", "datagram"])
async def test_a_bad_fd_gives_a_notice_and_the_room_runs_without_tables(value, tmp_path, monkeypatch):
    keep = []
    if value == "file":
        handle = open(tmp_path / "plain.txt", "w")
        keep.append(handle)
        value = str(handle.fileno())
    elif value == "datagram":
        pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        keep.extend(pair)
        value = str(pair[0].fileno())
    monkeypatch.setenv(TABLES_FD_VARIABLE, value)
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("Shared tables are not available" in n for n in notices(app)))
        assert app.tables is None
        assert "t" not in app.screen.active_bindings  # no Tables entry in the lobby
        from gamenight.commands import system_commands

        assert "Shared tables" not in [command.title for command in system_commands(app, app.screen)]
        await pilot.press("down")  # the room still answers keys
        assert app.screen.id is None or app.is_running
    for item in keep:
        item.close()


async def test_a_closed_connection_says_so_and_the_tables_entry_goes(service, tmp_path, monkeypatch):
    ours = await serve_socketpair(service, "ann")
    monkeypatch.setenv(TABLES_FD_VARIABLE, str(ours.detach()))
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "t" in app.screen.active_bindings)
        for connection in list(service.connections):
            connection.close()
        await until(pilot, lambda: app.tables is None)
        await until(pilot, lambda: "t" not in app.screen.active_bindings)
        assert any("connection to the shared tables was lost" in n for n in notices(app))


async def test_tables_socket_serves_the_first_room_and_joins_the_second(tmp_path):
    path = tmp_path / "tables.sock"
    first = room(tmp_path / "a", tables_socket=str(path))
    second = room(tmp_path / "b", tables_socket=str(path))
    async with first.run_test(size=(80, 24)) as one:
        await until(one, lambda: first.tables is not None)
        assert path.is_socket() and (os.stat(path).st_mode & 0o777) == 0o600
        async with second.run_test(size=(80, 24)) as two:
            await until(two, lambda: second.tables is not None)
            assert second.tables.name != first.tables.name
            assert second._local_tables is None  # it joined the first room's service
