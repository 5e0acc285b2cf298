"""serve-ssh pieces that need no network: identities, limits, the child's command and environment."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from gamenight.ssh import sandbox, server, settings
from gamenight.ssh.child import MAX_COLS, MAX_ROWS, clamp_size
from gamenight.ssh.identity import guest_user_id, key_user_id, load_or_create_host_key, user_dir
from gamenight.ssh.limits import RateLimiter
from hypothesis import given
from hypothesis import strategies as st


@given(st.text(max_size=300))
def test_any_guest_name_becomes_a_safe_directory_inside_users(name: str) -> None:
    user_id = guest_user_id(name)
    assert user_id.startswith("g-")
    assert all(ch.isascii() and (ch.isalnum() or ch == "-") for ch in user_id)
    assert user_id == user_id.lower() and len(user_id) <= 64


def test_guest_names_that_look_alike_still_get_different_directories() -> None:
    names = ["alice", "Alice", "alice ", "../alice", "alice/../bob", "ålice", "al\x00ice"]
    assert len({guest_user_id(name) for name in names}) == len(names)


def test_user_dir_stays_under_users_and_is_private(tmp_path: Path) -> None:
    home = user_dir(tmp_path, guest_user_id("../../etc/passwd"))
    assert home.parent == tmp_path / "users"
    assert (home / "saves").is_dir()
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "A-upper", "x" * 65])
def test_user_dir_rejects_ids_that_are_not_safe(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        user_dir(tmp_path, bad)


def test_key_id_depends_only_on_the_key(tmp_path: Path) -> None:
    import asyncssh

    first, second = asyncssh.generate_private_key("ssh-ed25519"), asyncssh.generate_private_key("ssh-ed25519")
    public = asyncssh.import_public_key(first.export_public_key())
    assert key_user_id(first) == key_user_id(public) != key_user_id(second)


def test_host_key_is_created_once_with_mode_0600_and_then_reused(tmp_path: Path) -> None:
    key, created = load_or_create_host_key(tmp_path)
    again, created_again = load_or_create_host_key(tmp_path)
    assert created and not created_again
    assert key.public_data == again.public_data
    assert stat.S_IMODE((tmp_path / "ssh_host_ed25519_key").stat().st_mode) == 0o600


def test_rate_limiter_allows_the_limit_per_minute_per_address() -> None:
    now = [0.0]
    limiter = RateLimiter(3, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")  # other addresses are not affected
    now[0] = 59.0
    assert not limiter.allow("a")
    now[0] = 60.5  # the first three have left the window
    assert limiter.allow("a")


def test_rate_limiter_forgets_quiet_addresses() -> None:
    now = [0.0]
    limiter = RateLimiter(5, clock=lambda: now[0])
    for number in range(1000):
        limiter.allow(f"10.0.{number // 256}.{number % 256}")
    now[0] = 120.0
    limiter.allow("x")
    assert len(limiter) == 1


@pytest.mark.parametrize(
    ("term", "env", "depth"),
    [
        ("xterm", {}, "16"),
        ("linux", {}, "16"),
        ("vt100", {}, "16"),
        ("xterm-256color", {}, "256"),
        ("screen-256color", {}, "256"),
        ("xterm-direct", {}, "truecolor"),
        ("xterm", {"COLORTERM": "truecolor"}, "truecolor"),
        ("xterm-256color", {"COLORTERM": "24bit"}, "truecolor"),
    ],
)
def test_colour_depth_comes_from_the_client(term: str, env: dict[str, str], depth: str) -> None:
    assert server.colour_depth(term, env) == depth


def test_sixteen_colour_clients_get_the_sixteen_colour_theme(tmp_path: Path) -> None:
    settings = server.Settings("127.0.0.1", 0, tmp_path, None, True)
    argv16 = server.build_command(settings, tmp_path / "u", "16")
    argv256 = server.build_command(settings, tmp_path / "u", "256")
    assert argv16[-2:] == ["--theme", "gamenight-16"]
    assert "--theme" not in argv256
    room = argv256[argv256.index("--") + 1 :]
    assert room[1:] == [
        "-m",
        "gamenight",
        "--saves",
        str(tmp_path / "u" / "saves"),
        "--config",
        str(tmp_path / "u" / "config.toml"),
    ]


def test_rooms_start_through_the_launcher_which_sandboxes_when_isolated(tmp_path: Path) -> None:
    settings = server.Settings("127.0.0.1", 0, tmp_path, None, True, command=["room", "{saves}", "{colours}"])
    plain = server.build_command(settings, tmp_path / "users" / "g-x", "256")
    assert plain[3:5] == [str(server.LAUNCH), "--ctty"] and "--sandbox" not in plain
    assert plain[plain.index("--") + 1 :] == ["room", str(tmp_path / "users" / "g-x" / "saves"), "256"]
    settings.isolated = True
    isolated = server.build_command(settings, tmp_path / "users" / "g-x", "256")
    assert isolated[:2] == ["setsid", "--ctty"] and isolated[5] == str(server.LAUNCH)
    at = isolated.index("--sandbox")
    assert isolated[at + 1 : at + 3] == [str(tmp_path), str(tmp_path / "users" / "g-x")]
    assert isolated[isolated.index("--", at) + 1 :] == ["room", str(tmp_path / "users" / "g-x" / "saves"), "256"]


def test_the_child_environment_is_built_fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent")
    env = server.build_environment(tmp_path, "xterm-256color", "truecolor", "ja")
    assert "SECRET_TOKEN" not in env and "SSH_AUTH_SOCK" not in env
    assert env["HOME"] == str(tmp_path) and env["LANG"] == "C.UTF-8"
    assert env["COLORTERM"] == "truecolor" and env["TERM"] == "xterm-256color" and env["GAMENIGHT_LANG"] == "ja"
    assert all(env[name].startswith(str(tmp_path)) for name in env if name.startswith("XDG_"))
    assert "COLORTERM" not in server.build_environment(tmp_path, "xterm", "16", None)
    # A crash is logged in the user's folder (visible inside the sandbox), never shown with paths.
    assert env["GAMENIGHT_HOSTED"] == "1" and env["GAMENIGHT_CRASH_LOG"] == str(tmp_path / "crash.log")
    # The shared tables' socket is named only when the server made one (never from the server's env).
    monkeypatch.setenv("GAMENIGHT_TABLES_FD", "0")
    assert "GAMENIGHT_TABLES_FD" not in server.build_environment(tmp_path, "xterm", "16", None)
    assert server.build_environment(tmp_path, "xterm", "16", None, tables_fd=9)["GAMENIGHT_TABLES_FD"] == "9"


def test_the_servers_log_gets_the_last_line_of_a_crash_log(tmp_path: Path) -> None:
    log = tmp_path / "crash.log"
    log.write_text(
        "--- gamenight crashed at now ---\nTraceback (most recent call last):\n  x\n"
        "ZeroDivisionError: division by zero\n\n" + "--- gamenight crashed at later ---\n"
    )
    assert server.last_line(log) == "ZeroDivisionError: division by zero"
    log.write_text("y" * 10_000)
    assert server.last_line(log) == "y" * 300


@pytest.mark.parametrize(
    ("term", "safe"),
    [
        ("xterm-256color", "xterm-256color"),
        ("", "xterm"),
        ("x; rm -rf /", "xterm"),
        ("a" * 100, "xterm"),
        ("ｘterm", "xterm"),
    ],
)
def test_the_client_term_is_checked(term: str, safe: str) -> None:
    assert server._safe_term(term) == safe


def test_client_language_only_when_the_client_sent_one() -> None:
    assert server.client_language({}) is None
    assert server.client_language({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert server.client_language({"LC_ALL": "de_DE.UTF-8"}) == "en"
    message = "The game room needs a terminal: connect with ssh -t (your client did not request a pseudo-terminal)."
    japanese = server.client_text("ja", message)
    assert "ssh -t" in japanese and japanese != message
    assert server.client_text("en", message) == message


def test_window_sizes_are_clamped() -> None:
    assert clamp_size(65535, 65535) == (MAX_COLS, MAX_ROWS)
    assert clamp_size(0, 0) == (80, 24)
    assert clamp_size(100, 40) == (100, 40)


def test_serve_ssh_refuses_to_start_without_an_auth_mode(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert server.main(["--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--authorized-keys" in err and "--guest" in err
    assert not os.listdir(tmp_path)


def test_serve_ssh_refuses_a_missing_authorized_keys_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert server.main(["--data-dir", str(tmp_path), "--authorized-keys", str(tmp_path / "nope")]) == 2
    assert "nope" in capsys.readouterr().err


def test_the_shared_tables_are_on_unless_turned_off(tmp_path: Path) -> None:
    options = settings.parser()
    on = settings.settings_from_args(options, options.parse_args(["--guest", "--data-dir", str(tmp_path)]))
    off = settings.settings_from_args(options, options.parse_args(["--guest", "--tables", "off"]))
    assert on.tables is True and off.tables is False
    with pytest.raises(SystemExit):
        options.parse_args(["--guest", "--tables", "maybe"])


def test_the_public_host_is_an_address_a_player_can_type_or_the_server_does_not_start(tmp_path: Path) -> None:
    """``--public-host`` goes into the command a new guest is shown (``ssh NAME+CODE@HOST``): only a host
    name or address, with an optional port, is taken; anything else (spaces, an ssh option) stops here."""
    from gamenight.text import reconnect_command

    options = settings.parser()

    def public(*words: str) -> str | None:
        args = options.parse_args(["--guest", "--data-dir", str(tmp_path), *words])
        return settings.settings_from_args(options, args).public_host

    assert public() is None
    assert public("--public-host", "games.example.org") == "games.example.org"
    assert public("--public-host", "games.example.org:2222") == "games.example.org:2222"
    for bad in ("games example", "-oProxyCommand=x", "host:0", "host:65536", "host;id", "user@host", ""):
        with pytest.raises(SystemExit):
            public("--public-host", bad)
    assert reconnect_command("ann+k7qx", "games.example.org") == "ssh ann+k7qx@games.example.org"
    assert reconnect_command("ann+k7qx", "games.example.org:22") == "ssh ann+k7qx@games.example.org"
    assert reconnect_command("ann+k7qx", "[2001:db8::1]:2222") == "ssh -p 2222 ann+k7qx@2001:db8::1"


def test_guest_and_keys_cannot_be_combined(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        server.main(["--guest", "--authorized-keys", str(tmp_path / "k")])


def test_the_gamenight_command_dispatches_serve_ssh_here(capsys: pytest.CaptureFixture[str]) -> None:
    from gamenight.cli import main as gamenight_main

    assert gamenight_main(["serve-ssh"]) == 2
    assert "--authorized-keys FILE" in capsys.readouterr().err


def test_sandbox_on_refuses_to_start_where_namespaces_are_unavailable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)  # no util-linux setsid/unshare
    assert not server.sandbox_works(tmp_path)
    assert server.main(["--guest", "--port", "0", "--data-dir", str(tmp_path), "--sandbox", "on"]) == 1
    assert "--sandbox on" in capsys.readouterr().err


def test_a_token_bucket_gives_its_burst_then_its_rate() -> None:
    from gamenight.ssh.limits import TokenBucket

    now = [0.0]
    bucket = TokenBucket(100, 50, clock=lambda: now[0])
    assert bucket.take(50) and not bucket.take(1)
    now[0] = 0.1  # ten more
    assert not bucket.take(11) and bucket.take(10) and not bucket.take(1)
    now[0] = 100.0  # never more than the burst
    assert not bucket.take(51) and bucket.take(50)


def test_rooms_get_a_memory_cap_unless_it_is_off(tmp_path: Path) -> None:
    settings = server.Settings(
        host="127.0.0.1", port=0, data_dir=tmp_path, authorized_keys=None, guest=True, room_memory=300
    )
    argv = server.build_command(settings, tmp_path / "users" / "g-x", "256")
    assert argv[argv.index("--memory") + 1] == str(300 * 1024 * 1024)
    assert argv.index("--memory") < argv.index("--")
    settings.room_memory = 0
    assert "--memory" not in server.build_command(settings, tmp_path / "users" / "g-x", "256")


def test_the_log_is_rate_limited_but_never_loses_the_servers_own_events() -> None:
    import io
    import json

    stream = io.StringIO()
    log = server.EventLog(stream)
    for number in range(20_000):
        log("refused", kind="local_forward", conn=number)
    log("session_end", conn=1)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(lines) < server.EventLog.LINES_BURST + 100  # not 20,000
    assert lines[-1]["event"] == "session_end" and lines[-2]["event"] == "suppressed"
    log("refused", kind="late", conn=0)  # once the rate allows again, what was left out is counted
    time.sleep(0.05)
    log("refused", kind="later", conn=0)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    suppressed = sum(line["lines"] for line in lines if line["event"] == "suppressed")
    kept = sum(1 for line in lines if line["event"] == "refused")
    assert suppressed and suppressed + kept == 20_002
