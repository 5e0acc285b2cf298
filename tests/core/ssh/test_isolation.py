"""Each user has a folder of their own, chosen by the server, never by the client."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import asyncssh
import pytest
from gamenight.ssh.identity import key_user_id

from tests.core.ssh.conftest import FAKE_COMMAND, make_key, needs_ssh, ssh_argv, wait_until


def saves_listed(screen: str) -> str:
    return re.search(r"saves:(\[.*?\])", screen).group(1)


@needs_ssh
def test_a_second_user_cannot_reach_the_first_users_saves(start_server, terminals, tmp_path: Path) -> None:
    alice, bob = make_key(tmp_path, "alice"), make_key(tmp_path, "bob")
    authorized = tmp_path / "authorized_keys"
    authorized.write_text(alice.with_suffix(".pub").read_text() + bob.with_suffix(".pub").read_text())
    server = start_server("--authorized-keys", str(authorized), "--command", FAKE_COMMAND)

    first = terminals(ssh_argv(server.port, "alice", alice, "-tt"))
    assert saves_listed(first.wait_for("saves:")) == "[]"
    first.send("s")
    first.wait_for("saved")
    first.kill()

    # Bob asks for Alice's user name: the folder comes from his key, not from the name.
    second = terminals(ssh_argv(server.port, "alice", bob, "-tt"))
    assert saves_listed(second.wait_for("saves:")) == "[]"
    second.kill()

    third = terminals(ssh_argv(server.port, "bob", alice, "-tt"))  # Alice under another name
    assert saves_listed(third.wait_for("saves:")) == "['autosave-fake.toml']"

    ids = {e["user_id"] for e in server.of_kind("session_start")}
    alice_id = key_user_id(asyncssh.read_public_key(str(alice.with_suffix(".pub"))))
    bob_id = key_user_id(asyncssh.read_public_key(str(bob.with_suffix(".pub"))))
    assert ids == {alice_id, bob_id}
    assert (server.data_dir / "users" / alice_id / "saves" / "autosave-fake.toml").is_file()
    assert not list((server.data_dir / "users" / bob_id / "saves").iterdir())


@needs_ssh
def test_guest_names_cannot_climb_out_of_the_users_folder(start_server, terminals) -> None:
    server = start_server("--guest", "--command", FAKE_COMMAND)
    for user in ("../../alice", "alice/../../etc", "..", "~root"):
        terminal = terminals(ssh_argv(server.port, user, None, "-tt"))
        terminal.wait_for("saves:")
        terminal.kill()
    homes = {e["user_id"] for e in server.of_kind("session_start")}
    assert len(homes) == 4
    names = sorted(p.name for p in server.data_dir.iterdir())
    assert "records.sqlite3" in names  # the server-wide records (with SQLite's -wal and -shm while open)
    assert [name for name in names if not name.startswith("records.sqlite3")] == [
        "guests.json",  # who each guest name belongs to (no room sees it)
        "ssh_host_ed25519_key",
        "ssh_host_ed25519_key.pub",
        "users",
    ]
    assert {p.name for p in (server.data_dir / "users").iterdir()} == homes


def namespaces_allowed() -> bool:
    """Whether this system lets an ordinary process create user, mount and PID namespaces."""
    try:
        return (
            subprocess.run(
                ["unshare", "--user", "--map-current-user", "--mount", "--pid", "--fork", "--mount-proc", "true"],
                capture_output=True,
                timeout=10,
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
@needs_ssh
def test_a_room_sees_only_its_own_folder_of_the_data_dir(start_server, terminals) -> None:
    server = start_server("--guest", "--sandbox", "on", "--command", FAKE_COMMAND)
    assert server.of_kind("listening")[0]["isolated"] is True
    alice = terminals(ssh_argv(server.port, "alice", None, "-tt"))
    alice.wait_for("saves:")
    alice.send("s")
    alice.wait_for("saved")
    alice_id = server.of_kind("session_start")[0]["user_id"]
    autosave = server.data_dir / "users" / alice_id / "saves" / "autosave-fake.toml"
    assert autosave.read_text() == "game = 'fake'\n"

    bob = terminals(ssh_argv(server.port, "bob", None, "-tt"))
    screen = bob.wait_for("visible:")
    bob_id = server.expect("auth_ok", user="bob")[0]["user_id"]
    server.expect("session_start", user_id=bob_id)
    # Neither the host key nor Alice's folder exist from where Bob's room stands ...
    assert f"visible:['users']:['{bob_id}']" in screen
    # ... so even a path typed in full cannot reach them.
    bob.send(f"w{autosave}")
    bob.wait_for("refused:No such file or directory")
    bob.send(f"w{server.data_dir / 'ssh_host_ed25519_key'}")
    bob.wait_for("refused:Read-only file system")
    # Nor through Alice's room's /proc entry: Bob's room has a /proc of its own.
    alice_room = server.of_kind("session_start")[0]["pid"]
    assert int(re.search(r"processes:(\d+)", screen).group(1)) <= 3
    bob.send(f"w/proc/{alice_room}/cwd/saves/autosave-fake.toml")
    wait_until(lambda: bob.text().count("refused:No such file or directory") == 2, 10, "the /proc route refused")
    assert autosave.read_text() == "game = 'fake'\n"
    assert (server.data_dir / "ssh_host_ed25519_key").read_text().startswith("-----BEGIN")
