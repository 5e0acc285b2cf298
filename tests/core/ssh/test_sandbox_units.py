"""The sandbox's decisions without a server: who rooms run as, what is covered, when to refuse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gamenight.ssh import launch, sandbox
from gamenight.ssh.sessions import last_line
from gamenight.ssh.settings import Settings
from gamenight.ssh.template import TemplateError, parse_settings

from tests.core.ssh.test_isolation import namespaces_allowed
from tests.core.ssh.test_template import settings as raw_settings

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown)")


def make_settings(tmp_path: Path, **changes: object) -> Settings:
    settings = Settings("127.0.0.1", 0, tmp_path / "data", None, True)
    (tmp_path / "data").mkdir(mode=0o700, exist_ok=True)
    for name, value in changes.items():
        setattr(settings, name, value)
    return settings


def test_as_root_rooms_run_as_nobody_or_the_room_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    nobody = sandbox.pwd.getpwnam("nobody")
    assert sandbox.room_user(None) == (nobody.pw_uid, nobody.pw_gid)
    assert sandbox.room_user("root") == (0, 0)
    with pytest.raises(ValueError, match="no such user"):
        sandbox.room_user("no-such-user-here")


def test_an_ordinary_server_runs_rooms_as_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 4321)
    monkeypatch.setattr(sandbox.os, "getegid", lambda: 4321)
    assert sandbox.room_user(None) == (4321, 4321)
    with pytest.raises(ValueError, match="only a server started as root"):
        sandbox.room_user("root")


def test_as_root_the_server_refuses_rooms_outside_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    with pytest.raises(ValueError, match="--room-user root"):
        sandbox.decide_sandbox(make_settings(tmp_path, sandbox="off"))
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)  # auto, where it cannot be had
    with pytest.raises(ValueError, match="--room-user root"):
        sandbox.decide_sandbox(make_settings(tmp_path, sandbox="auto"))
    # Said in so many words, rooms may run as root without the sandbox (trusted players only).
    settings = make_settings(tmp_path, sandbox="off", room_user="root")
    assert sandbox.decide_sandbox(settings) == "--sandbox off" and not settings.isolated


def test_auto_falls_back_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 4321)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    settings = make_settings(tmp_path, sandbox="auto")
    assert sandbox.decide_sandbox(settings) == "util-linux setsid is not installed"
    assert settings.isolated is False
    with pytest.raises(ValueError, match="--sandbox on: rooms cannot be sandboxed here: util-linux setsid"):
        sandbox.decide_sandbox(make_settings(tmp_path, sandbox="on"))


def test_folders_the_rooms_user_cannot_enter_are_covered_with_only_what_it_needs(tmp_path: Path) -> None:
    uid = gid = 54321  # nobody's: not the owner of tmp_path's folders
    private = tmp_path / "private"
    (private / "python" / "lib").mkdir(parents=True)
    (private / "secret").mkdir()
    private.chmod(0o700)
    data = tmp_path / "open" / "data"
    (data / "users" / "u").mkdir(parents=True)
    (tmp_path / "open").chmod(0o755)
    tmp_path.chmod(0o755)
    needs = [str(private / "python"), str(private / "python" / "lib"), "/usr"]
    covers, keeps = launch.plan(str(data), str(data / "users" / "u"), needs, uid, gid)
    # The highest folder it cannot enter is covered: pytest's own (0700) when it is above, else ``private``.
    blocked = launch.blocking_folder(str(tmp_path / "x"), uid, gid) or str(private)
    assert covers == [blocked, str(data)]
    assert keeps == [str(data / "users" / "u"), str(private / "python")]  # lib is inside python; /usr is open
    # The server's own uid (an ordinary server: rooms run as it) needs no cover but the data dir.
    assert launch.plan(str(data), str(data / "users" / "u"), needs, os.geteuid(), os.getegid())[0] == [str(data)]


@as_root
def test_as_root_the_users_folder_is_given_to_the_rooms_user_once(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, room_uid=65534, room_gid=65534)
    home = tmp_path / "data" / "users" / "g-x"
    (home / "saves").mkdir(parents=True)
    (home / "saves" / "a.toml").write_text("x")
    outside = tmp_path / "outside"
    outside.write_text("root's")
    os.link(outside, home / "hard")  # a second name of a file elsewhere: left alone
    (home / "link").symlink_to(outside)  # not followed
    sandbox.own_home(settings, home)
    for path in (home, home / "saves", home / "saves" / "a.toml"):
        assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534), path
    assert outside.stat().st_uid == 0 and (home / "link").is_symlink()
    assert (tmp_path / "data").stat().st_uid == 0 and (tmp_path / "data").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(
    "data",
    [
        raw_settings(user=[-1, 0]),
        raw_settings(user=[1, True]),
        raw_settings(user=[1]),
        raw_settings(needs=["relative"]),
        raw_settings(needs=["/x"] * 65),
        raw_settings(needs="/x"),
    ],
)
def test_the_forked_child_refuses_a_bad_user_or_needed_folders(data: bytes) -> None:
    with pytest.raises(TemplateError):
        parse_settings(data)


def test_the_server_reads_a_rooms_crash_log_only_as_a_plain_file(tmp_path: Path) -> None:
    # The room owns its folder: its crash log may be a link to a file only the server can read, or
    # a FIFO that would block the server's loop for good.
    secret = tmp_path / "secret"
    secret.write_text("the host key\n")
    (tmp_path / "crash.log").symlink_to(secret)
    with pytest.raises(OSError):
        last_line(tmp_path / "crash.log")
    os.mkfifo(tmp_path / "fifo.log")
    with pytest.raises(OSError):
        last_line(tmp_path / "fifo.log")  # at once, not waiting for a writer
    (tmp_path / "plain.log").write_text("Traceback\nValueError: x\n")
    assert last_line(tmp_path / "plain.log") == "ValueError: x"


@as_root
@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
def test_a_data_dir_inside_a_folder_put_back_stays_hidden(tmp_path: Path) -> None:
    # Python's folder (needed by the room) under a folder nobody may enter, with the data dir in it.
    work = tmp_path / "private" / "work"
    data = work / "data"
    (data / "users").mkdir(parents=True)
    (data / "ssh_host_ed25519_key").write_text("secret")
    (tmp_path / "private").chmod(0o700)
    options = ["--sandbox", str(data), str(data / "users"), "--as", "65534", "65534", "--need", str(work), "--probe"]
    probe = subprocess.run([*sandbox.first_stage(*options), "true"], capture_output=True, text=True, timeout=30)
    assert probe.returncode == 0, probe.stderr  # launch.check: only users/ is visible in the data dir


def test_a_room_run_as_another_user_is_given_python_and_every_package_folder(tmp_path: Path) -> None:
    import gamenight
    import gamenight_yatzy

    needs = sandbox.room_needs(make_settings(tmp_path, room_uid=os.geteuid() + 1))
    assert os.path.realpath(sys.base_prefix) in needs
    # An editable install finds these by an import hook, not on sys.path: named one by one.
    for package in (gamenight, gamenight_yatzy):
        assert str(Path(package.__file__).resolve().parent) in needs
    assert sandbox.room_needs(make_settings(tmp_path)) == []  # rooms run as the server: nothing to put back


@as_root
def test_a_saves_folder_the_server_made_again_is_given_back(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, room_uid=65534, room_gid=65534)
    home = tmp_path / "data" / "users" / "g-x"
    (home / "saves").mkdir(parents=True)
    sandbox.own_home(settings, home)
    (home / "saves").rmdir()  # the room removed it; the server's user_dir() makes it again, as root
    (home / "saves").mkdir()
    sandbox.own_home(settings, home)
    assert (home / "saves").stat().st_uid == 65534


@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
@pytest.mark.parametrize(
    ("missing", "reason"),
    [
        ("own_devpts", "/dev/pts"),
        ("drop_capabilities", "capabilities"),
        ("seccomp_filter", "seccomp"),
    ],
)
def test_the_start_up_probe_finds_each_missing_piece_of_the_lock_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: str, reason: str
) -> None:
    data = tmp_path / "data"
    (data / "users").mkdir(parents=True)
    assert launch.probe(str(data), str(data / "users"), [], None) is None
    monkeypatch.setattr(launch, missing, lambda: None)  # the forked probe runs this module's code
    problem = launch.probe(str(data), str(data / "users"), [], None)
    assert problem is not None and reason in problem, problem
