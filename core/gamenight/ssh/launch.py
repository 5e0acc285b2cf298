"""First stage of a game room's process, run as ``python -I -S launch.py [options] -- ARGV``.

* ``--ctty``: take the pty on stdin as the controlling terminal (``TIOCSCTTY``;
  the process must lead its session), so window-size changes reach the room
  as ``SIGWINCH``.
* ``--hide DATA_DIR HOME``: run inside fresh user, mount and PID namespaces
  (``unshare --user --mount --pid --fork --mount-proc``, see
  :func:`gamenight.ssh.sandbox.build_command`): cover ``DATA_DIR`` (the host
  key, every other user's folder) with an empty read-only tmpfs and put back
  only ``HOME``, the user's own folder, at its usual path.  With its own
  ``/proc`` the room cannot reach other rooms through ``/proc/PID/cwd`` either.
  ``--probe`` only checks that this works here.  There this process is
  PID 1 of its namespace, which the kernel shields from every signal it has no
  handler for: so it does not ``exec`` the room but starts it as its child
  (signals back at their defaults) and waits for it, ignoring SIGHUP and
  SIGTERM itself (as the small Perl waiter, :func:`wait_small`, where there
  is one).  The room, in the same process group, gets the server's
  SIGHUP/SIGTERM directly and ends (or saves, then ends) as it would without
  the sandbox; when it is gone, so is this process and the whole namespace.
* ``--memory BYTES``: cap the room's address space (``RLIMIT_AS``, inherited by
  whatever it starts), so a room that keeps allocating gets ``MemoryError``
  instead of taking the machine's memory.

then ``exec``\\s ``ARGV``.  Standard library only; it must not import gamenight.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import signal
import sys
import termios
from collections.abc import Sequence

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000


def hide(data_dir: str, home: str) -> None:
    """Leave only ``home`` (inside ``data_dir``) visible of ``data_dir``, for this process and its children."""
    relative = os.path.relpath(home, data_dir)
    if relative.startswith(".."):
        raise ValueError("the home folder is not inside the data dir")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

    def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None, what: str) -> None:
        def encode(value: str | None) -> bytes | None:
            return None if value is None else value.encode()

        if libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    keep = os.open(home, os.O_PATH | os.O_DIRECTORY)
    mount("tmpfs", data_dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k", "hide the data dir")
    target = os.path.join(data_dir, relative)
    os.makedirs(target)
    mount(f"/proc/self/fd/{keep}", target, None, MS_BIND | MS_REC, None, "bind the user's folder")
    os.close(keep)
    mount(
        None, data_dir, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, None, "make the rest read-only"
    )
    os.chdir(target)


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: launch.py [--ctty] [--memory BYTES] [--hide DATA_DIR HOME [--probe]] -- ARGV", file=sys.stderr)
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    if "--memory" in options:
        limit = int(options[options.index("--memory") + 1])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if "--ctty" in options:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    if "--hide" in options:
        at = options.index("--hide")
        data_dir, home = options[at + 1], options[at + 2]
        try:
            hide(data_dir, home)
        except (OSError, ValueError) as error:
            print(f"gamenight: cannot isolate this session ({error}).\r", file=sys.stderr)
            return 1
        if "--probe" in options:
            visible = os.listdir(data_dir) == [os.path.relpath(home, data_dir).split(os.sep)[0]]
            return 0 if visible and os.getpid() == 1 else 1
        if os.getpid() == 1:
            return run_as_init(command)
    os.execvp(command[0], command)
    return 127  # not reached


HANDLED = (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)
"""The signals a room's first stages ignore and the room itself gets (at their defaults)."""


def exit_code(status: int) -> int:
    """A wait status as a shell reports it (128 + N for a death by signal N)."""
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def wait_for(child: int) -> int:
    """Reap every child until ``child`` ends (as PID 1 must); its exit status."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 1
        except InterruptedError:
            continue
        if pid == child:
            return exit_code(status)


WAITER_CANDIDATES = ("/usr/bin/perl", "/bin/perl")
"""Where the small waiter's interpreter is looked for (Debian's ``perl-base`` is Essential)."""
WAITER_SCRIPT = (
    "my $c = shift; while (1) { my $p = waitpid(-1, 0);"
    " if ($p < 0) { next if $! == 4; exit 1 }"
    " if ($p == $c) { my $s = $?; exit(($s & 127) ? 128 + ($s & 127) : $s >> 8) } }"
)
""":func:`wait_for` in Perl: reap every child until the given one ends, then exit with its status as
:func:`exit_code` gives it.  No module or script file; run with an empty environment."""


def find_waiter() -> str | None:
    """The small waiter's interpreter on this system, or ``None`` (the waiting stays in Python)."""
    for path in WAITER_CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return None


def wait_small(child: int, waiter: str | None, title: Sequence[str] = ("gamenight-wait",)) -> int:
    """:func:`wait_for` ``child``, after replacing this forked copy of a big Python process by the small
    waiter when there is one (``exec`` keeps the children, the signals ignored and the parent-death
    signal; a forked waiter keeps ~1-1.5 MiB of pages private, the small one ~0.4 MiB).  ``title``
    stays on its command line for ``ps`` (``title[0]`` first, the rest after the script).  Returns
    only when it cannot ``exec``."""
    if waiter is not None:
        try:
            os.execve(waiter, [title[0], "-e", WAITER_SCRIPT, str(child), *title[1:]], {})
        except OSError:
            pass
    return wait_for(child)


def run_as_init(command: list[str]) -> int:
    """Start ``command`` as the only child of this PID 1, reap whatever ends, and exit with its status."""
    room = os.fork()
    if room == 0:
        try:
            for signum in HANDLED:
                signal.signal(signum, signal.SIG_DFL)
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN)
    return wait_small(room, find_waiter(), command)  # a fresh ``python -I -S`` keeps ~2.7 MiB private


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
