"""The database URLs of several hosts: read from the environment, never shown with a password.

A Redis or PostgreSQL URL holding a password on the command line is shown by ``ps`` to every
local user: ``serve-ssh`` reads ``GAMENIGHT_TABLES_URL`` / ``GAMENIGHT_RECORDS_URL`` when the
option is not given, and whatever it prints or logs of a URL leaves its password out.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from gamenight.ssh import server, settings
from gamenight.tables.redis_store import _without_password

ROOT = Path(__file__).resolve().parents[3]
SECRET = "s3cr3t-Pa55"


def _settings(argv: list[str], environ: dict[str, str]) -> settings.Settings:
    options = settings.parser()
    return settings.settings_from_args(options, options.parse_args(argv), environ=environ)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_urls_are_read_from_the_environment(tmp_path: Path) -> None:
    environ = {
        "GAMENIGHT_TABLES_URL": f"redis://gamenight:{SECRET}@10.0.0.10:6379/0",
        "GAMENIGHT_RECORDS_URL": "postgresql://gamenight@10.0.0.10:5432/gamenight",
    }
    got = _settings(["--guest", "--data-dir", str(tmp_path)], environ)
    assert got.tables_url == environ["GAMENIGHT_TABLES_URL"]
    assert got.records_url == environ["GAMENIGHT_RECORDS_URL"]


def test_the_command_line_wins_over_the_environment(tmp_path: Path) -> None:
    environ = {"GAMENIGHT_TABLES_URL": "redis://a:6379/0", "GAMENIGHT_RECORDS_URL": "postgresql://a/gn"}
    got = _settings(
        [
            "--guest",
            "--data-dir",
            str(tmp_path),
            "--tables-url",
            "redis://b:6379/0",
            "--records-url",
            "postgresql://b/gn",
        ],
        environ,
    )
    assert (got.tables_url, got.records_url) == ("redis://b:6379/0", "postgresql://b/gn")


def test_an_empty_variable_is_no_url(tmp_path: Path) -> None:
    got = _settings(["--guest", "--data-dir", str(tmp_path)], {"GAMENIGHT_TABLES_URL": "", "GAMENIGHT_RECORDS_URL": ""})
    assert got.tables_url is None and got.records_url is None


def test_the_process_environment_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAMENIGHT_TABLES_URL", "rediss://db.internal:6380/0")
    options = settings.parser()
    got = settings.settings_from_args(options, options.parse_args(["--guest", "--data-dir", str(tmp_path)]))
    assert got.tables_url == "rediss://db.internal:6380/0"


def test_a_url_from_the_environment_is_checked_like_the_option(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        _settings(["--guest", "--data-dir", str(tmp_path)], {"GAMENIGHT_TABLES_URL": "http://db:6379"})
    assert stopped.value.code == 2
    with pytest.raises(SystemExit):
        _settings(["--guest", "--tables", "off"], {"GAMENIGHT_RECORDS_URL": "postgresql://db/gn"})


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"redis://gamenight:{SECRET}@db:6379/0", "redis://***@db:6379/0"),
        (f"redis://:{SECRET}@db/0", "redis://***@db/0"),
        (f"redis://gamenight:{SECRET}@x@db:6379/0", "redis://***@db:6379/0"),  # an "@" in the password
        (f"rediss://gamenight:{SECRET}/x@db:6380/0", "rediss://***@db:6380/0"),  # a "/" in the password
        (f"redis://db:6379/0?password={SECRET}", "redis://db:6379/0"),  # redis-py takes it from the query too
        (f"unix:///run/redis.sock?db=0&password={SECRET}", "unix:///run/redis.sock"),
        ("redis://db:6379/0", "redis://db:6379/0"),
    ],
)
def test_a_redis_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert _without_password(url) == shown


def test_the_start_up_log_shows_no_password(tmp_path: Path) -> None:
    got = _settings(
        ["--guest", "--data-dir", str(tmp_path)],
        {"GAMENIGHT_TABLES_URL": f"unix:///run/redis.sock?password={SECRET}"},
    )
    assert SECRET not in server._tables_shown(got)


def test_an_unreachable_redis_from_the_environment_stops_the_server_without_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def no_serving(*args: object) -> None:
        raise AssertionError("the server started without checking its Redis")

    monkeypatch.setattr(server, "serve", no_serving)
    port = _closed_port()
    monkeypatch.setenv("GAMENIGHT_TABLES_URL", f"redis://gamenight:{SECRET}@x@127.0.0.1:{port}/0")
    assert server.main(["--guest", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err
    assert SECRET not in err


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_the_several_hosts_demo_script_parses() -> None:
    script = ROOT / "docs" / "examples" / "several-hosts" / "netns-demo.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    usage = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr


@pytest.mark.parametrize(
    "url",
    [
        f"redis://gamenight:{SECRET}/more@127.0.0.1:6379/0",  # redis-py: "Port could not be cast ... as 'PART'"
        f"redis://gamenight:{SECRET}@127.0.0.1:notaport/0",
        f"redis://127.0.0.1:6379/0?password={SECRET}&socket_timeout=abc",
    ],
)
def test_a_redis_url_that_cannot_be_parsed_is_refused_without_its_password(url: str) -> None:
    problem = server.check_tables_url(url)
    assert problem is not None
    assert SECRET[:5] not in problem and SECRET not in problem


def test_a_refused_url_still_says_what_is_wrong() -> None:
    problem = server.check_tables_url("redis://127.0.0.1:6379/0?password=x&socket_timeout=abc")
    assert problem is not None and "socket_timeout" in problem
