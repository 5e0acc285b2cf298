"""Nothing but the game room is reachable, and only for the admitted keys."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from tests.core.ssh.conftest import FAKE_COMMAND, Server, make_key, needs_ssh, ssh_argv


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two admitted keys (alice, bob) and one that is not (mallory)."""
    directory = tmp_path_factory.mktemp("keys")
    found = {name: make_key(directory, name) for name in ("alice", "bob", "mallory")}
    authorized = directory / "authorized_keys"
    authorized.write_text(found["alice"].with_suffix(".pub").read_text() + found["bob"].with_suffix(".pub").read_text())
    found["authorized"] = authorized
    return found


@pytest.fixture(scope="module")
def keys_server(keys, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the whole module (each test looks only at its own log events)."""
    server = Server(
        tmp_path_factory.mktemp("data"),
        ["--authorized-keys", str(keys["authorized"]), "--max-new-per-minute", "1000", "--command", FAKE_COMMAND],
    )
    yield server
    server.stop()


def connect(server, key: Path | None = None, username: str = "alice", **options):
    return asyncssh.connect(
        "127.0.0.1",
        server.port,
        username=username,
        known_hosts=None,
        client_keys=[str(key)] if key else None,
        agent_path=None,
        config=[],
        **options,
    )


def run_ssh(*argv: str) -> subprocess.CompletedProcess[str]:
    """The OpenSSH client with nothing on its input; what it printed, and its exit status."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)


@needs_ssh
def test_a_wrong_key_is_refused(keys_server, keys) -> None:
    mark = keys_server.mark()
    result = run_ssh(*ssh_argv(keys_server.port, "alice", keys["mallory"], "-tt"))
    assert result.returncode == 255
    assert "Permission denied" in result.stderr
    keys_server.expect("auth_failed", since=mark)
    keys_server.expect("auth_rejected_key", since=mark)
    assert not keys_server.of_kind("session_start", since=mark)


@needs_ssh
def test_a_password_is_not_even_offered(keys_server) -> None:
    mark = keys_server.mark()
    result = run_ssh(
        *ssh_argv(keys_server.port, "alice", None), "-o", "BatchMode=no", "-o", "NumberOfPasswordPrompts=1", "-tt"
    )
    assert result.returncode == 255
    assert "Permission denied (publickey)" in result.stderr
    keys_server.expect("auth_failed", since=mark)


@needs_ssh
def test_an_exec_request_is_refused_with_a_message(keys_server, keys, tmp_path: Path) -> None:
    mark = keys_server.mark()
    marker = tmp_path / "ran"
    result = run_ssh(*ssh_argv(keys_server.port, "alice", keys["alice"]), f"touch {marker}")
    assert result.returncode == 1
    assert "only offers the gamenight game room" in result.stderr
    assert not marker.exists()
    keys_server.expect("refused", since=mark, kind="exec")
    assert not keys_server.of_kind("session_start", since=mark)


@needs_ssh
def test_a_shell_without_a_pty_is_refused_with_a_message(keys_server, keys) -> None:
    mark = keys_server.mark()
    result = run_ssh(*ssh_argv(keys_server.port, "alice", keys["alice"], "-T"))
    assert result.returncode == 1
    assert "needs a terminal" in result.stderr
    keys_server.expect("refused", since=mark, kind="no_pty")


@needs_ssh
def test_remote_port_forwarding_is_refused(keys_server, keys) -> None:
    mark = keys_server.mark()
    result = run_ssh(
        *ssh_argv(
            keys_server.port, "alice", keys["alice"], "-N", "-o", "ExitOnForwardFailure=yes", "-R", "0:127.0.0.1:9"
        )
    )
    assert result.returncode == 255
    assert "forwarding failed" in result.stderr
    keys_server.expect("refused", since=mark, kind="remote_forward")


async def test_local_port_forwarding_is_refused(keys_server, keys) -> None:
    mark = keys_server.mark()
    async with connect(keys_server, keys["alice"]) as conn:
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_connection("127.0.0.1", keys_server.port)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_unix_connection("/run/dbus/system_bus_socket")
    keys_server.expect("refused", since=mark, kind="local_forward")
    keys_server.expect("refused", since=mark, kind="local_forward_unix")


async def test_sftp_and_other_subsystems_are_refused(keys_server, keys) -> None:
    mark = keys_server.mark()
    async with connect(keys_server, keys["alice"]) as conn:
        with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError, OSError)):
            await conn.start_sftp_client()
    keys_server.expect("refused", since=mark, kind="subsystem", subsystem="sftp")


async def test_one_game_room_per_connection(keys_server, keys) -> None:
    mark = keys_server.mark()
    async with connect(keys_server, keys["alice"]) as conn:
        first = await conn.create_process(term_type="xterm", term_size=(80, 24))
        assert "fake room" in await first.stdout.readuntil("fake room")
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_process(term_type="xterm", term_size=(80, 24))
        first.close()
    keys_server.expect("refused", since=mark, kind="second_session")


async def test_x11_forwarding_is_refused(keys_server, keys) -> None:
    async with connect(keys_server, keys["alice"]) as conn:
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_process(term_type="xterm", x11_forwarding=True, x11_display="127.0.0.1:99")


async def test_a_flood_of_environment_variables_is_capped(keys_server, keys) -> None:
    mark = keys_server.mark()
    env = {f"JUNK_{number}": "x" * 100 for number in range(500)}  # not used by a room: all dropped
    env |= {f"LC_X{number}": "x" for number in range(100)}  # used, but only 64 variables are kept
    async with connect(keys_server, keys["alice"]) as conn:
        process = await conn.create_process(term_type="xterm", term_size=(80, 24), env=env)
        await process.stdout.readuntil("fake room")
        process.close()
    (start,) = keys_server.expect("session_start", since=mark)
    assert start["env_dropped"] == 500 + 100 - 64
