"""First stage of a game room's process, run as ``python -I -S launch.py [options] -- ARGV``.

It runs in the fresh session the server created for the room (``setsid``):

* ``--ctty``: take the pty on stdin as the controlling terminal (``TIOCSCTTY``),
  so window-size changes reach the room as ``SIGWINCH``;
* ``--sandbox DATA_DIR HOME``: in new user and mount namespaces, hide
  ``DATA_DIR`` (the host key, every other user's folder) behind an empty
  read-only tmpfs and put back only ``HOME``, the user's own folder, at its
  usual path.  Whatever path the room is given or typed, it cannot reach
  another user's saves.  ``--probe`` only checks that this works here.

then ``exec``\\s ``ARGV``.  Standard library only; it must not import gamenight.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import sys
import termios

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def sandbox(data_dir: str, home: str) -> None:
    """Hide ``data_dir`` except ``home`` (which must lie inside it) from this process and its children."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

    def check(result: int, what: str) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> int:
        def encode(value: str | None) -> bytes | None:
            return None if value is None else value.encode()

        return libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data))

    relative = os.path.relpath(home, data_dir)
    if relative.startswith(".."):
        raise ValueError("the home folder is not inside the data dir")
    uid, gid = os.getuid(), os.getgid()
    check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    check(mount(None, "/", None, MS_REC | MS_PRIVATE), "make mounts private")
    keep = os.open(home, os.O_PATH | os.O_DIRECTORY)
    check(mount("tmpfs", data_dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k"), "hide data dir")
    target = os.path.join(data_dir, relative)
    os.makedirs(target)
    check(mount(f"/proc/self/fd/{keep}", target, None, MS_BIND | MS_REC), "bind the user's folder")
    os.close(keep)
    check(mount(None, data_dir, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC),
          "make the rest read-only")
    os.chdir(target)


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: launch.py [--ctty] [--sandbox DATA_DIR HOME [--probe]] -- ARGV", file=sys.stderr)
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    if "--sandbox" in options:
        at = options.index("--sandbox")
        data_dir, home = options[at + 1], options[at + 2]
        try:
            sandbox(data_dir, home)
        except (OSError, ValueError) as error:
            print(f"gamenight: cannot isolate this session ({error}).\r", file=sys.stderr)
            return 1
        if "--probe" in options:
            return 0 if os.listdir(data_dir) == [os.path.relpath(home, data_dir).split(os.sep)[0]] else 1
    if "--ctty" in options:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    os.execvp(command[0], command)
    return 127  # not reached


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
