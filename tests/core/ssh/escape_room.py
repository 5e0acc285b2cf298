"""A room that tries to leave its sandbox (run as ``--command`` by tests/core/ssh/test_sandbox.py).

Argument: the saves folder (``{saves}``).  It says ``escape-ready``, reads one line of JSON from
its terminal (``{"port": the server's port, "pty": another session's terminal path}``), tries
each escape and writes one JSON line per attempt, ``{"attempt", "escaped", "detail"}``, to
``escape.jsonl`` in its user's folder, then says ``escape-done``.  Standard library only.
"""

import ctypes
import json
import os
import socket
import sys

MNT_DETACH = 2
MS_REMOUNT, MS_BIND = 0x20, 0x1000
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
SYS_KEYCTL, SYS_BPF = 250, 321  # x86_64
KEYCTL_JOIN_SESSION_KEYRING = 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def call(result: int) -> tuple[bool, str]:
    """(whether the call succeeded, what it said)."""
    if result == -1:
        error = ctypes.get_errno()
        return False, f"{os.strerror(error)} ({error})"
    return True, f"returned {result}"


def attempts(data_dir: str, home: str, port: int, other_pty: str) -> list[tuple[str, bool, str]]:
    found = []

    def attempt(name: str, escaped: bool, detail: str) -> None:
        found.append((name, escaped, detail))

    attempt("umount the data dir", *call(libc.umount2(data_dir.encode(), MNT_DETACH)))
    attempt("umount the user's folder", *call(libc.umount2(home.encode(), MNT_DETACH)))
    attempt("remount the data dir", *call(libc.mount(None, data_dir.encode(), None, MS_REMOUNT | MS_BIND, None)))
    try:
        with open(os.path.join(data_dir, "ssh_host_ed25519_key"), "rb") as handle:
            attempt("read the host key", True, handle.read(40).decode(errors="replace"))
    except OSError as error:
        attempt("read the host key", False, str(error))
    try:
        others = sorted(set(os.listdir(os.path.join(data_dir, "users"))) - {os.path.basename(home)})
        attempt("list other users", bool(others), str(others))
    except OSError as error:
        attempt("list other users", False, str(error))
    for path in [other_pty] + [f"/dev/pts/{n}" for n in range(int(other_pty.rsplit("/", 1)[1]) + 3)]:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
        except OSError as error:
            attempt(f"open {path}", False, str(error))
        else:
            os.close(fd)
            attempt(f"open {path}", True, "opened for writing")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        attempt("connect to the server's port", True, "connected")
    except OSError as error:
        attempt("connect to the server's port", False, str(error))
    for pid, who in ((os.getppid(), "the parent"), (1, "pid 1")):
        ok, detail = call(libc.ptrace(PTRACE_ATTACH, pid, None, None))
        if ok:
            libc.ptrace(PTRACE_DETACH, pid, None, None)
        attempt(f"ptrace {who} ({pid})", ok, detail)
    attempt("unshare a user namespace", *call(libc.unshare(CLONE_NEWUSER)))
    attempt("unshare a mount namespace", *call(libc.unshare(CLONE_NEWNS)))
    for kind in ("user", "mnt", "net"):
        try:
            fd = os.open(f"/proc/self/ns/{kind}", os.O_RDONLY)
        except OSError as error:
            attempt(f"setns {kind}", False, str(error))
            continue
        attempt(f"setns {kind}", *call(libc.setns(fd, 0)))
        os.close(fd)
    attempt("keyctl", *call(libc.syscall(SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None)))
    attr = ctypes.create_string_buffer(128)
    attempt("bpf", *call(libc.syscall(SYS_BPF, 0, attr, 128)))
    with open("/proc/self/status") as handle:
        status = dict(line.split(":\t", 1) for line in handle.read().splitlines() if ":\t" in line)
    for field in ("CapEff", "CapPrm", "CapBnd", "CapAmb"):
        attempt(f"keep capabilities ({field})", int(status[field], 16) != 0, status[field])
    attempt("without no_new_privs", status["NoNewPrivs"].strip() != "1", status["NoNewPrivs"])
    attempt("without a seccomp filter", status["Seccomp"].strip() != "2", status["Seccomp"])
    return found


def main() -> None:
    saves = os.path.abspath(sys.argv[1])
    home = os.path.dirname(saves)
    data_dir = os.path.dirname(os.path.dirname(home))
    os.write(1, b"escape-ready\r\n")
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(0, 4096)
        if not chunk:
            return
        line += chunk
    task = json.loads(line)
    results = attempts(data_dir, home, int(task["port"]), str(task["pty"]))
    with open(os.path.join(home, "escape.jsonl"), "w") as handle:
        for name, escaped, detail in results:
            handle.write(json.dumps({"attempt": name, "escaped": escaped, "detail": detail}) + "\n")
    os.write(1, f"escape-done {sum(escaped for _n, escaped, _d in results)}\r\n".encode())
    os.read(0, 1)  # stay until the test is done


if __name__ == "__main__":
    main()
