"""A guest name belongs to whoever used it first, over real OpenSSH clients (``--guest``).

``python -m gamenight.ssh --guest`` with the stand-in room (``fake_room.py``: it lists the
user's saves and writes one on ``s``).  Ben logs in with his key and saves; another key, no
key, or a name that only looks like his (``Ben``, full-width) is refused with the reason and
never reaches his folder, while Ben with his key is let back in to it.  A guest without a key
gets a fresh folder and a reconnect code shown once on its terminal; ``ben+CODE`` brings it
back to that folder, a wrong code is refused.  With the real room: Ben seated at a table keeps
his seat; nobody else logs in as ben, and Ben's own second session, with his key, is at it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gamenight.ssh.guests import CODE_ALPHABET, CODE_LENGTH

from tests.core.ssh.conftest import FAKE_COMMAND, make_key, needs_ssh, ssh_argv, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, open_table

CODE = re.compile(rf"the user name (\S+)\+([{CODE_ALPHABET}]{{{CODE_LENGTH}}})".encode())


def run_ssh(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """The OpenSSH client, saying why it was disconnected (LogLevel INFO), nothing on its input."""
    loud = ["LogLevel=INFO" if part == "LogLevel=ERROR" else part for part in argv]
    try:
        return subprocess.run(loud, capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:  # let in: the room runs until its client is killed
        return subprocess.CompletedProcess(loud, -1, str(error.stdout), str(error.stderr))


def folder_of(server, user: str) -> str:
    """The folder (user id) of the last login under the name ``user``."""
    return server.expect("auth_ok", user=user)[-1]["user_id"]


@needs_ssh
def test_a_guest_name_belongs_to_the_key_it_was_first_used_with(start_server, terminals, tmp_path: Path) -> None:
    server = start_server("--guest", "--max-new-per-minute", "1000", "--command", FAKE_COMMAND)
    ben_key, other_key = make_key(tmp_path, "ben"), make_key(tmp_path, "mallory")
    ben = terminals(ssh_argv(server.port, "ben", ben_key, "-tt"))
    ben.wait_for("saves:[]")
    ben.send("s")
    ben.wait_for("saved")
    bens = folder_of(server, "ben")

    for user, key in (("ben", other_key), ("ben", None), ("Ben", other_key), ("ｂｅｎ", None)):
        mark = server.mark()
        result = run_ssh(ssh_argv(server.port, user, key, "-tt"))
        assert "autosave-fake" not in result.stdout, f"{user} got into Ben's folder"
        assert result.returncode == 255, result.stdout
        assert "is taken on this server" in result.stderr, result.stderr
        assert not server.of_kind("auth_ok", since=mark) and not server.of_kind("session_start", since=mark)
        server.expect("auth_failed", since=mark)

    again = terminals(ssh_argv(server.port, "ben", ben_key, "-tt"))  # Ben himself, a second session
    again.wait_for("saves:['autosave-fake.toml']")
    assert folder_of(server, "ben") == bens
    assert server.expect("guest_bound", user="ben")[0]["with_key"] is True
    anna = terminals(ssh_argv(server.port, "anna", other_key, "-tt"))  # the other key under a free name
    anna.wait_for("saves:[]")
    assert folder_of(server, "anna") != bens


@needs_ssh
def test_a_guest_without_a_key_gets_a_code_to_come_back_with(start_server, terminals, tmp_path: Path) -> None:
    server = start_server("--guest", "--max-new-per-minute", "1000", "--command", FAKE_COMMAND)
    first = terminals(ssh_argv(server.port, "cleo", None, "-tt"))
    first.wait_for("saves:[]")
    found = CODE.search(bytes(first.received))
    assert found is not None, first.text()
    assert found.group(1) == b"cleo"
    code = found.group(2).decode()
    first.send("s")
    first.wait_for("saved")
    cleos = folder_of(server, "cleo")
    assert code not in "".join(server.raw)  # never in the log; the book keeps only a hash
    assert code not in (server.data_dir / "guests.json").read_text()

    mark = server.mark()
    result = run_ssh(ssh_argv(server.port, "cleo", None, "-tt"))  # the name alone: taken
    assert "is taken on this server" in result.stderr and not server.of_kind("auth_ok", since=mark)
    wrong = code[:-1] + ("2" if code[-1] != "2" else "3")
    result = run_ssh(ssh_argv(server.port, f"cleo+{wrong}", None, "-tt"))
    assert "Wrong reconnect code for the name cleo" in result.stderr, result.stderr
    assert not server.of_kind("auth_ok", since=mark)

    back = terminals(ssh_argv(server.port, f"cleo+{code.upper()}", None, "-tt"))
    back.wait_for("saves:['autosave-fake.toml']")
    assert folder_of(server, "cleo") == cleos
    assert server.of_kind("auth_ok", since=mark)[-1]["method"] == "guest_code"
    assert CODE.search(bytes(back.received)) is None  # shown only once


@needs_ssh
def test_a_guest_seated_at_a_table_keeps_the_seat_from_anyone_else_named_like_him(
    start_server, terminals, tmp_path: Path
) -> None:
    server = start_server("--guest", "--max-new-per-minute", "1000")  # the real room
    ben_key, other_key = make_key(tmp_path, "ben"), make_key(tmp_path, "mallory")
    ben = terminals(ssh_argv(server.port, "ben", ben_key, "-tt"), 80, 24)
    ben.wait_for(LOBBY, 40)
    open_table(ben)  # Ben holds seat 1 of a waiting Mille table
    bens = folder_of(server, "ben")
    tables = server.data_dir / "tables"
    wait_until(lambda: bens in "".join(p.read_text() for p in tables.glob("*.table.toml")), 20, "the seat saved")

    for key in (None, other_key):
        mark = server.mark()
        result = run_ssh(ssh_argv(server.port, "ben", key, "-tt"))
        assert "is taken on this server" in result.stderr, result.stderr
        assert not server.of_kind("auth_ok", since=mark) and not server.of_kind("session_start", since=mark)
    assert "waiting for 1 more" in ben.text()  # still at his table: nobody took his connection's place
    assert bens in "".join(p.read_text() for p in tables.glob("*.table.toml"))
    again = terminals(ssh_argv(server.port, "ben", ben_key, "-tt"), 80, 24)  # Ben himself, with his key
    again.wait_for("waiting for 1 more", 40)  # his second session is at his seat
    assert folder_of(server, "ben") == bens


@needs_ssh
def test_the_real_room_shows_a_new_guest_its_code_in_the_lobby(start_server, terminals) -> None:
    server = start_server("--guest")  # the real room: its screen covers what came before it
    dora = terminals(ssh_argv(server.port, "dora", None, "-tt"), 80, 24)
    dora.wait_for(LOBBY, 40)
    before = CODE.search(bytes(dora.received))
    assert before is not None and before.group(1) == b"dora"
    code = before.group(2).decode()
    dora.wait_for(f"dora+{code}", 20)  # in the lobby too: its notices line, never a toast over a table
    assert "reconnect code" in dora.text()
    server.expect("guest_bound", user="dora", with_key=False)


@needs_ssh
def test_a_new_guest_refused_a_command_still_learns_its_code(start_server) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    result = run_ssh([*ssh_argv(server.port, "eve", None, "-T"), "ls"])
    assert "commands are not available" in result.stderr
    found = CODE.search(result.stderr.encode())
    assert found is not None and found.group(1) == b"eve", result.stderr
    server.expect("guest_bound", user="eve")


@needs_ssh
def test_one_address_binds_a_bounded_number_of_new_guest_names(start_server) -> None:
    """A few addresses cannot fill the guest book (which would keep every newcomer out until the names
    expire): past --max-new-guests-per-hour new names from one address are refused with the reason,
    while a name already bound still comes back."""
    server = start_server("--guest", "--command", FAKE_COMMAND, "--max-new-guests-per-hour", "2")
    codes = {}
    for name in ("amy", "bea"):
        result = run_ssh([*ssh_argv(server.port, name, None, "-T"), "ls"])
        codes[name] = CODE.search(result.stderr.encode()).group(2).decode()
    refused = run_ssh([*ssh_argv(server.port, "cy", None, "-T"), "ls"])
    assert "Too many new guest names from your address" in refused.stderr, refused.stderr
    server.expect("limit", kind="new_guests")
    back = run_ssh([*ssh_argv(server.port, f"amy+{codes['amy']}", None, "-T"), "ls"])
    assert "commands are not available" in back.stderr and "Too many" not in back.stderr
