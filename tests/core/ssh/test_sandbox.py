"""A compromised room cannot leave its sandbox: a room replaced by a script that tries each escape."""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from pathlib import Path

import pytest

from tests.core.ssh.conftest import needs_ssh, ssh_argv, wait_until
from tests.core.ssh.processes import process_group
from tests.core.ssh.test_isolation import namespaces_allowed

ESCAPE_ROOM = Path(__file__).with_name("escape_room.py")
ESCAPE_COMMAND = f"{sys.executable} {ESCAPE_ROOM} {{saves}}"
ATTEMPTS = {
    "umount the data dir",
    "umount the user's folder",
    "remount the data dir",
    "read the host key",
    "list other users",
    "connect to the server's port",
    "unshare a user namespace",
    "unshare a mount namespace",
    "setns user",
    "setns mnt",
    "setns net",
    "keyctl",
    "bpf",
    "keep capabilities (CapEff)",
    "keep capabilities (CapPrm)",
    "keep capabilities (CapBnd)",
    "keep capabilities (CapAmb)",
    "without no_new_privs",
    "without a seccomp filter",
}


def host_uids(pid: int) -> set[int]:
    """The real, effective, saved and file uids of ``pid`` as the host sees them."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return {int(value) for value in line.split()[1:]}
    return set()


@pytest.mark.skipif(not namespaces_allowed(), reason="no user/mount/PID namespaces here: rooms cannot be sandboxed")
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the script's keyctl/bpf calls use x86_64 numbers")
@pytest.mark.parametrize(
    ("sandbox", "template"),
    [("on", "on"), ("on", "off"), ("auto", "auto")],
    ids=["forked", "spawned", "auto"],
)
@needs_ssh
def test_a_compromised_room_cannot_leave_its_sandbox(start_server, terminals, sandbox: str, template: str) -> None:
    server = start_server("--guest", "--sandbox", sandbox, "--template", template, "--command", ESCAPE_COMMAND)
    assert server.of_kind("listening")[0]["isolated"] is True
    victim = terminals(ssh_argv(server.port, "victim", None, "-tt"))
    victim.wait_for("escape-ready")
    victim_start = server.expect("session_start")[0]
    assert victim_start["forked"] is (template == "on")
    victim_pty = os.readlink(f"/proc/{victim_start['pid']}/fd/0")
    assert re.fullmatch(r"/dev/pts/\d+", victim_pty), victim_pty

    mallory = terminals(ssh_argv(server.port, "mallory", None, "-tt"))
    mallory.wait_for("escape-ready")
    start = next(e for e in server.of_kind("session_start") if e["user_id"] != victim_start["user_id"])
    mallory.send(json.dumps({"port": server.port, "pty": victim_pty}) + "\r")
    mallory.wait_for("escape-done", 30)

    report = server.data_dir / "users" / start["user_id"] / "escape.jsonl"
    results = [json.loads(line) for line in report.read_text().splitlines()]
    named = {result["attempt"] for result in results}
    assert ATTEMPTS <= named, ATTEMPTS - named
    assert {f"open {victim_pty}", "open /dev/pts/0"} <= named
    assert any(name.startswith("ptrace the parent") for name in named) and any("pid 1" in n for n in named)
    escaped = [result for result in results if result["escaped"]]
    assert escaped == [], escaped
    # Every process of the room (its two waiters and the script) runs as the server's own user, or,
    # when the server is root, as an unprivileged one: never as root on the host.
    room = process_group(start["pid"])
    assert len(room) == 3, room
    inside = sorted(room)[1:]  # PID 1 and the script (the first stage outside only waits)
    for pid in inside:
        assert host_uids(pid) == {os.geteuid()} if os.geteuid() != 0 else 0 not in host_uids(pid), pid
    assert (server.data_dir / "ssh_host_ed25519_key").read_text().startswith("-----BEGIN")
    assert "FAKE" not in victim.text()
    mallory.kill()
    victim.kill()
    wait_until(lambda: not process_group(start["pid"]), 10, "the room's processes to end")
