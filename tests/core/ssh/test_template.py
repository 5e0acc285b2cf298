"""The room template: rooms forked from one pre-loaded process, and nothing crossing
between sessions through it; the spawn path when it is off, broken, dead or out of date."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from gamenight.ssh.identity import guest_user_id
from gamenight.ssh.launch import find_waiter
from gamenight.ssh.template import MAX_SETTINGS, SessionSettings, TemplateError, parse_settings

from tests.core.ssh.conftest import FAKE_COMMAND, Server, needs_ssh, ssh_argv, wait_until
from tests.core.ssh.processes import memory_contains, process_alive, process_group
from tests.core.ssh.test_isolation import namespaces_allowed

LOBBY = "choose a game"
CONFIG_MARKER = "Qzvjxw Alicecfg"
TYPED_MARKER = "qzvjxwtypedbyalice"


def template_pid(server, since: int = 0) -> int:
    return server.expect("template", since, action="ready")[-1]["pid"]


def host_key_seed(path: Path) -> bytes:
    """The 32 secret bytes of the server's ed25519 host key."""
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_ssh_private_key(path.read_bytes(), None)
    return key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())


def group_memory_contains(pgid: int, needles: list[bytes]) -> set[bytes]:
    """The needles found in any process of the room's process group (the room, and when sandboxed
    the first stage and PID 1 of its namespace)."""
    found: set[bytes] = set()
    for pid in process_group(pgid):
        found |= memory_contains(pid, needles)
    return found


def guest_id(server: Server, name: str) -> str:
    """The folder (user id) the guest ``name`` logged in with."""
    return server.expect("auth_ok", user=name)[-1]["user_id"]


# -- what crosses the fork ------------------------------------------------------------------------------
@needs_ssh
def test_a_later_room_sees_nothing_an_earlier_room_or_the_template_read(start_server, terminals) -> None:
    server = start_server("--guest", "--template", "on")
    listening = server.of_kind("listening")[0]
    assert listening["rooms"] == "template", listening
    template = template_pid(server)
    data_dir = server.data_dir

    # Alice's own config (a player name) and a key sequence she types: read by her room only.
    alice_home = data_dir / "users" / guest_user_id("alice")  # her folder from before names were bound
    alice_home.mkdir(mode=0o700, parents=True)
    (alice_home / "config.toml").write_text(f'[default]\nplayer.1 = "{CONFIG_MARKER}"\n')
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for(LOBBY, 40)
    alice.send("\x10")  # ctrl+p: the command palette, whose input keeps what is typed
    alice.wait_for("Search for commands", 20)
    alice.send(TYPED_MARKER)
    alice.wait_for(TYPED_MARKER, 20)
    alice_start = server.expect("session_start", user_id=guest_id(server, "alice"))[0]
    assert alice_start["forked"] is True
    needles = [CONFIG_MARKER.encode(), TYPED_MARKER.encode()]
    # Both are in Alice's room's memory (so the search below can find them) ...
    assert group_memory_contains(alice_start["pid"], needles) == set(needles)

    # ... but not in a room forked after that, nor in the template it was forked from.
    bob = terminals(ssh_argv(server.port, "bob", None, "-tt"))
    bob.wait_for(LOBBY, 40)
    bob_start = server.expect("session_start", user_id=guest_id(server, "bob"))[0]
    assert bob_start["forked"] is True
    assert group_memory_contains(bob_start["pid"], needles) == set()
    assert memory_contains(template, needles) == set()

    # The template holds no host key (in memory or open) and nothing of the data dir open.
    host_key = host_key_seed(data_dir / "ssh_host_ed25519_key")
    assert memory_contains(server.process.pid, [host_key]) == {host_key}  # the server does hold it
    assert memory_contains(template, [host_key]) == set()
    opened = [os.readlink(f"/proc/{template}/fd/{fd}") for fd in os.listdir(f"/proc/{template}/fd")]
    assert not [path for path in opened if path.startswith(str(data_dir))], opened
    assert sum(path.startswith("socket:") for path in opened) == 1, opened  # its control socket only
    assert len(os.listdir(f"/proc/{template}/task")) == 1  # one thread: unshare(CLONE_NEWUSER) needs it

    # Sandboxed (where this system allows it), Bob's in-process room stands where only his folder is.
    if listening["isolated"]:
        room = max(process_group(bob_start["pid"]))  # the room is the last of the three started
        seen = Path(f"/proc/{room}/root{data_dir}")
        assert sorted(os.listdir(seen)) == ["users"]
        assert os.listdir(seen / "users") == [guest_id(server, "bob")]


@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
@needs_ssh
def test_a_forked_room_is_sandboxed_as_a_spawned_one(start_server, terminals) -> None:
    server = start_server("--guest", "--sandbox", "on", "--template", "on", "--command", FAKE_COMMAND)
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    screen = alice.wait_for("processes:")
    start = server.expect("session_start")[0]
    assert start["forked"] is True
    assert f"visible:['users']:['{start['user_id']}']" in screen
    alice.send(f"w{server.data_dir / 'ssh_host_ed25519_key'}")
    alice.wait_for("refused:Read-only file system")
    # Its first stage and PID 1 only wait: they have become the small waiter, not copies of the template.
    first_stage, init, room = sorted(process_group(start["pid"]))
    waiter = find_waiter()
    if waiter is not None:
        for pid in (first_stage, init):
            assert os.readlink(f"/proc/{pid}/exe") == os.path.realpath(waiter)
            assert b"fake_room.py" in Path(f"/proc/{pid}/cmdline").read_bytes()  # the room's command, for ps
    assert os.readlink(f"/proc/{room}/exe") != os.path.realpath(waiter or "/")
    # The server's signals still reach the room (SIGHUP/SIGTERM on disconnect) and its end is seen.
    alice.kill()
    server.expect("session_end", user_id=start["user_id"])
    wait_until(lambda: not process_group(start["pid"]), 10, "the room's processes to end")


@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
@pytest.mark.skipif(find_waiter() is None, reason="no small waiter (perl) on this system: the waiting stays in Python")
@needs_ssh
def test_a_spawned_sandboxed_rooms_pid_1_is_the_small_waiter(start_server, terminals) -> None:
    server = start_server("--guest", "--sandbox", "on", "--template", "off", "--command", FAKE_COMMAND)
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for("processes:")
    start = server.expect("session_start")[0]
    assert start["forked"] is False
    exes = {pid: os.readlink(f"/proc/{pid}/exe") for pid in process_group(start["pid"])}
    waiters = [pid for pid, exe in exes.items() if exe == os.path.realpath(find_waiter())]
    assert len(waiters) == 2, exes  # the first stage and PID 1 of the namespace (launch.py), not Pythons
    assert all(b"fake_room.py" in Path(f"/proc/{pid}/cmdline").read_bytes() for pid in waiters)
    assert "python" in exes[max(exes)]  # the room itself
    alice.kill()
    server.expect("session_end", user_id=start["user_id"])
    wait_until(lambda: not process_group(start["pid"]), 10, "the room's processes to end")


# -- kernel same-page merging (KSM) -----------------------------------------------------------------------
def merge_any(pid: int) -> str | None:
    """``ksm_merge_any`` of ``/proc/PID/ksm_stat`` (``yes``: the process opted in whole with
    ``PR_SET_MEMORY_MERGE``), or ``None`` where this kernel does not show it."""
    try:
        text = Path(f"/proc/{pid}/ksm_stat").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("ksm_merge_any:"):
            return line.split(":", 1)[1].strip()
    return None


@pytest.mark.skipif(merge_any(os.getpid()) is None, reason="this kernel does not show ksm_merge_any (Linux < 6.7?)")
@pytest.mark.parametrize("ksm", ["on", "off"])
@needs_ssh
def test_ksm_on_opts_the_template_and_every_forked_room_in_to_same_page_merging(start_server, terminals, ksm) -> None:
    # Whether the host runs KSM (/sys/kernel/mm/ksm/run) does not matter: the flag is the room's side.
    server = start_server("--guest", "--template", "on", "--ksm", ksm)
    listening = server.of_kind("listening")[0]
    assert listening["ksm"] is (ksm == "on"), listening
    assert listening["ksm_host"] in {"running", "stopped", "unmerging", "unavailable"}
    template = template_pid(server)
    assert server.expect("template", action="ready")[-1]["ksm"] is (ksm == "on")
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for(LOBBY, 40)
    start = server.expect("session_start", user_id=guest_id(server, "alice"))[0]
    assert start["forked"] is True
    room = process_group(start["pid"])  # the room (and, sandboxed, its first stage and PID 1: the waiters)
    assert room
    expected = "yes" if ksm == "on" else "no"
    assert {pid: merge_any(pid) for pid in [template, *room]} == dict.fromkeys([template, *room], expected)
    alice.kill()
    server.expect("session_end", user_id=start["user_id"])


# -- the fallback -----------------------------------------------------------------------------------------
def threaded_template(tmp_path: Path) -> dict[str, str]:
    """An environment in which the template (only) starts a thread at start-up."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(
        "import threading, time\n"
        "if b'gamenight.ssh.template' in open('/proc/self/cmdline', 'rb').read():\n"
        "    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}


@needs_ssh
def test_rooms_are_spawned_when_the_template_is_off_or_cannot_be_used(start_server, terminals, tmp_path) -> None:
    off = start_server("--guest", "--template", "off", "--command", FAKE_COMMAND)
    assert (off.of_kind("listening")[0]["rooms"], off.of_kind("listening")[0]["rooms_why"]) == (
        "spawn",
        "--template off",
    )
    terminals(ssh_argv(off.port, "alice", None, "-tt")).wait_for("saves:")
    assert off.expect("session_start")[0]["forked"] is False
    assert not off.of_kind("template")

    # auto with --command: the rooms are another program, nothing to pre-load; no template starts.
    command = start_server("--guest", "--template", "auto", "--command", FAKE_COMMAND)
    listening = command.of_kind("listening")[0]
    assert (listening["rooms"], listening["rooms_why"].split(" runs")[0]) == ("spawn", "--command")
    terminals(ssh_argv(command.port, "alice", None, "-tt")).wait_for("saves:")
    assert command.expect("session_start")[0]["forked"] is False
    assert not command.of_kind("template")

    # A template with a thread could not enter a user namespace: auto says why and spawns.
    env = threaded_template(tmp_path)
    auto = start_server("--guest", "--template", "auto", env=env)
    listening = auto.of_kind("listening")[0]
    assert listening["rooms"] == "spawn"
    assert "2 threads" in listening["rooms_why"]
    terminals(ssh_argv(auto.port, "alice", None, "-tt")).wait_for(LOBBY, 40)
    assert auto.expect("session_start")[0]["forked"] is False

    # --template on where it cannot be used: no server.
    with pytest.raises(AssertionError, match="--template on"):
        start_server("--guest", "--template", "on", env=env)


@needs_ssh
def test_a_dead_template_is_replaced_and_its_rooms_still_end_cleanly(start_server, terminals) -> None:
    server = start_server("--guest", "--template", "on", "--command", FAKE_COMMAND)
    first = template_pid(server)
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for("saves:")
    alice_start = server.expect("session_start")[0]
    assert alice_start["forked"] is True

    os.kill(first, signal.SIGKILL)
    server.expect("template", action="ended", pid=first)
    mark = server.mark()
    bob = terminals(ssh_argv(server.port, "bob", None, "-tt"))
    bob.wait_for("saves:")
    bob_start = server.expect("session_start", mark, user_id=guest_id(server, "bob"))[0]
    replaced_before = [e for e in server.of_kind("template", mark, action="ready") if e["ts"] <= bob_start["ts"]]
    assert bob_start["forked"] is bool(replaced_before)  # spawned while there is no template

    # A new template comes (at most RESTART_INTERVAL after the last start) and forks rooms again.
    second = wait_until(lambda: server.of_kind("template", action="ready")[1:], 60, "a new template")[0]["pid"]
    assert second != first and process_alive(second)
    carol = terminals(ssh_argv(server.port, "carol", None, "-tt"))
    carol.wait_for("saves:")
    assert server.expect("session_start", user_id=guest_id(server, "carol"))[0]["forked"] is True

    # Alice's room outlived its template: it still takes keys, and when it ends the session ends.
    alice.send("q")
    end = server.expect("session_end", user_id=alice_start["user_id"])[0]
    assert end["returncode"] == 0
    assert alice.wait_exit(15) == 0
    wait_until(lambda: not process_group(alice_start["pid"]), 10, "Alice's room to end")


@needs_ssh
def test_the_template_is_replaced_when_plugins_change_on_disk(start_server, terminals, tmp_path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    server = start_server("--guest", "--template", "on", "--command", FAKE_COMMAND, env=env)
    first = template_pid(server)
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for("saves:")
    assert server.expect("session_start")[0]["forked"] is True

    (site / "gamenight_new_game-1.0.dist-info").mkdir()  # as pip installing a plugin there would
    mark = server.mark()
    terminals(ssh_argv(server.port, "bob", None, "-tt")).wait_for("saves:")
    server.expect("template", mark, action="plugins_changed", pid=first)
    assert server.expect("session_start", mark)[0]["forked"] is False  # the old template is not used
    second = wait_until(lambda: server.of_kind("template", mark, action="ready"), 60, "a new template")[0]["pid"]
    assert second != first
    carol = terminals(ssh_argv(server.port, "carol", None, "-tt"))
    carol.wait_for("saves:")
    assert server.expect("session_start", user_id=guest_id(server, "carol"))[0]["forked"] is True
    # The old one stays while Alice's room does (it reports her room's end), then ends.
    assert process_alive(first)
    alice.kill()
    server.expect("session_end", user_id=guest_id(server, "alice"))
    wait_until(lambda: not process_alive(first), 10, "the replaced template to end")


# -- a session's settings, as the forked child checks them ---------------------------------------------------
def settings(**changes: object) -> bytes:
    raw = json.loads(SessionSettings(["--saves", "/d/u/saves"], {"TERM": "xterm"}, "/d/u").encode())
    raw.update(changes)
    return json.dumps(raw).encode()


def test_the_child_accepts_what_the_server_sends() -> None:
    parsed = parse_settings(
        SessionSettings(["room", "x"], {"TERM": "xterm", "LC_ALL": "C"}, "/h", 5, ("/d", "/d/u"), True).encode()
    )
    assert (parsed.argv, parsed.env, parsed.cwd, parsed.memory, parsed.hide, parsed.execute) == (
        ["room", "x"],
        {"TERM": "xterm", "LC_ALL": "C"},
        "/h",
        5,
        ("/d", "/d/u"),
        True,
    )


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        settings(extra=1),
        settings(argv="--saves"),
        settings(argv=["x"] * 65),
        settings(argv=["a" * 4097]),
        settings(argv=["nul\0byte"]),
        settings(env={"A=B": "x"}),
        settings(env={"LD_PRELOAD ": "x"}),
        settings(env={f"V{n}": "x" for n in range(65)}),
        settings(env={"TERM": 3}),
        settings(cwd="relative"),
        settings(memory=-1),
        settings(memory=True),
        settings(memory=1 << 60),
        settings(hide=["/d"]),
        settings(hide=["/d", "relative"]),
        settings(exec=True, argv=[]),
        b" " * (MAX_SETTINGS + 1),
    ],
)
def test_the_child_refuses_settings_out_of_bounds(data: bytes) -> None:
    with pytest.raises(TemplateError):
        parse_settings(data)


def test_a_template_keeps_none_of_the_servers_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from gamenight.ssh.template import template_environment

    monkeypatch.setenv("SECRET_TOKEN", "x")
    monkeypatch.setenv("PATH", "/p")
    assert set(template_environment()) <= {"PATH", "PYTHONPATH", "LANG", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}
    assert template_environment()["PATH"] == "/p"


def test_the_templates_css_cache_is_keyed_by_the_theme_variables() -> None:
    """In a process of its own: the cache changes Textual's Stylesheet class for the whole process."""
    import subprocess

    check = (
        "from textual.css.stylesheet import Stylesheet\n"
        "from gamenight.compat.textual_internals import share_parsed_css\n"
        "share_parsed_css()\n"
        "share_parsed_css()  # twice: still one layer\n"
        "css = 'Label { color: $accent; }'\n"
        "def rules(accent):\n"
        "    sheet = Stylesheet(variables={'accent': accent})\n"
        "    sheet.add_source(css, ('x', 'Label'))\n"
        "    sheet.parse()\n"
        "    return sheet.rules\n"
        "red, red_again, blue = rules('red'), rules('red'), rules('blue')\n"
        "assert red[0] is red_again[0], 'same CSS and variables: parsed once'\n"
        "assert red[0] is not blue[0] and str(red[0].styles.color) != str(blue[0].styles.color)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr


# -- what a room does not do again after the fork ----------------------------------------------------------
def test_a_room_takes_the_templates_registry_instead_of_looking_for_plugins_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The template loads the plugins once (``preload_registry``); a forked room's ``load_registry``
    then copies that registry instead of reading every plugin's metadata again (1.7 MiB of a forked
    room's private memory, bench/RESULTS.md)."""
    from gamenight import plugins

    monkeypatch.setattr(plugins, "_preloaded", None)
    preloaded = plugins.preload_registry()
    assert preloaded.games, "the installed games"

    def look_again() -> list:
        raise AssertionError("the plugins were looked for again")

    monkeypatch.setattr(plugins, "_entry_points", look_again)
    room = plugins.load_registry()
    assert room.games == preloaded.games
    assert [record.name for record in room.plugins] == [record.name for record in preloaded.plugins]
    # A room may change its copy (the app drops a game with bad theme variables): the next room's is whole.
    game = next(iter(room.games))
    del room.games[game]
    room.plugins[0].errors.append("changed by one room")
    again = plugins.load_registry()
    assert game in again.games
    assert "changed by one room" not in again.plugins[0].errors
    with pytest.raises(AssertionError, match="looked for again"):  # explicit plugins: loaded as asked
        plugins.load_registry(entry_points=None, extra_plugins={})


@pytest.mark.skipif(find_waiter() is None, reason="no small waiter (perl) on this system: the waiting stays in Python")
@pytest.mark.parametrize(("ending", "status"), [("os._exit(7)", 7), ("os.kill(os.getpid(), 15)", 143)])
def test_the_small_waiter_reports_its_childs_status_as_the_python_one_did(ending: str, status: int) -> None:
    """The first stage's and PID 1's waiter: reaps any other child on the way, exits with the given
    child's status (128 + N for a death by signal N), and is the process that waited (no fork)."""
    import subprocess

    script = (
        "import os, sys, time\n"
        "from gamenight.ssh.launch import find_waiter, wait_small\n"
        "other = os.fork()\n"
        "if other == 0:\n"
        "    os._exit(3)\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(0.5)\n"
        f"    {ending}\n"
        "print(os.getpid(), flush=True)\n"
        "wait_small(child, find_waiter())\n"
        "sys.exit(99)  # not reached: the waiter replaced this process\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert process.stdout is not None
    waiter_pid = int(process.stdout.readline())
    assert waiter_pid == process.pid
    assert process.wait(timeout=30) == status


def test_the_warm_up_runs_what_a_room_runs_first() -> None:
    """The warm-up parses a room's arguments (argparse's code then runs in the template, not first in
    every room) and opens the lobby; in a process of its own (it runs an app)."""
    import subprocess

    check = (
        "import gamenight.room_args as room_args\n"
        "from gamenight.ssh import template\n"
        "calls = []\n"
        "real = room_args.room_parser\n"
        "def spy():\n"
        "    parser = real()\n"
        "    parse = parser.parse_args\n"
        "    parser.parse_args = lambda argv: calls.append(parse(argv))\n"
        "    return parser\n"
        "room_args.room_parser = spy\n"
        "template.warm_up()\n"
        "import threading\n"
        "print(len(calls), calls[0].saves.name, threading.active_count())\n"
    )
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["1", "saves", "1"], result.stderr
