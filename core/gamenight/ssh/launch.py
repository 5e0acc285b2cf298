"""First stage of a game room's process, run as ``python -I -S launch.py [options] -- ARGV``.

* ``--ctty``: take the pty on stdin as the controlling terminal (``TIOCSCTTY``;
  the process must lead its session), so window-size changes reach the room
  as ``SIGWINCH``.
* ``--sandbox DATA_DIR HOME [--as UID GID] [--need PATH]...``: run the room in
  its sandbox (:func:`enter_namespaces`, then :func:`set_up` in PID 1 of the
  new PID namespace; a room forked by :mod:`gamenight.ssh.template` gets the
  very same two steps):

  1. new mount, PID and network namespaces (and a user namespace mapping only
     the server's own uid, unless the server is root);
  2. in PID 1: its own ``/proc``; ``DATA_DIR`` covered by an empty read-only
     tmpfs with only ``HOME``, the user's folder, put back at its usual path
     (and each directory the room's user cannot enter on the way to a
     ``--need`` path, e.g. ``/root`` above a Python installed there, covered
     likewise with only that path put back); a ``devpts`` instance of its
     own on ``/dev/pts``, so no other session's terminal is reachable; then
     the lock-down (:func:`lock_down`): as root, the room's user (``--as``);
     a nested user namespace and mount namespace, in which every mount above
     is locked in place; no capability left (bounding, ambient, effective,
     permitted, inheritable), ``PR_SET_NO_NEW_PRIVS``, and a seccomp filter
     (libseccomp) that refuses with ``EPERM`` the system calls that could
     undo any of it (:data:`REFUSED`).

  ``--probe`` only checks that all of this works here (:func:`check`).  PID 1
  is shielded by the kernel from every signal it has no handler for: so it
  does not ``exec`` the room but starts it as its child (signals back at their
  defaults) and waits for it, ignoring SIGHUP and SIGTERM itself (as the small
  Perl waiter, :func:`wait_small`, where there is one); so does the first
  stage outside.  The room, in the same process group, gets the server's
  SIGHUP/SIGTERM directly and ends (or saves, then ends) as it would without
  the sandbox; when it is gone, so is PID 1 and the whole namespace.
* ``--memory BYTES``: cap the room's address space (``RLIMIT_AS``, inherited by
  whatever it starts), so a room that keeps allocating gets ``MemoryError``
  instead of taking the machine's memory.

then ``exec``\\s ``ARGV``.  Standard library only; it must not import gamenight.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import resource
import signal
import stat
import sys
import termios
from collections.abc import Callable, Sequence

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECURE_ALL = 0xEF
"""``SECBIT_NOROOT``, ``SECBIT_NO_SETUID_FIXUP``, ``SECBIT_NO_CAP_AMBIENT_RAISE`` and all the ``_LOCKED``
bits (``SECBIT_KEEP_CAPS`` off, locked): uid 0 in the room's namespace gets no capability by ``exec``."""
CAPABILITY_VERSION_3 = 0x20080522

REFUSED = (
    # mounts, namespaces: what would undo the hiding, or make new namespaces with capabilities in them
    "mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # other processes' memory and descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the kernel's keyrings, BPF and other attack surface a room never needs
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "name_to_handle_at", "open_by_handle_at",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
)  # fmt: skip
"""System calls the room's seccomp filter refuses with ``EPERM`` (names unknown to this
architecture or libseccomp are left out).  ``clone`` with any ``CLONE_NEW*`` flag is refused too,
and ``clone3`` (whose flags a filter cannot read) fails with ``ENOSYS``, so the C library falls
back to ``clone``."""
CLONE_NAMESPACES = (CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET)
LIBSECCOMP = "libseccomp.so.2"
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7


def _errno_action(code: int) -> int:
    return 0x00050000 | code  # SCMP_ACT_ERRNO(code)


class _ArgCompare(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return libc


def _fail(what: str) -> OSError:
    error = ctypes.get_errno()
    return OSError(error, f"{what}: {os.strerror(error)}")


def _encode(value: str | None) -> bytes | None:
    return None if value is None else os.fsencode(value)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None, what: str) -> None:
    if _libc().mount(_encode(source), _encode(target), _encode(fstype), flags, _encode(data)) != 0:
        raise _fail(what)


def prctl(option: int, value: int, what: str) -> None:
    if _libc().prctl(option, value, 0, 0, 0) != 0:
        raise _fail(what)


def unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(ctypes.c_int(flags)) != 0:
        raise _fail("unshare")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _map_self(uid: int, gid: int) -> None:
    """Map ``uid``/``gid`` (this process's own in the parent namespace) to themselves in its new user namespace."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


# -- step 1: the namespaces ---------------------------------------------------------------------------
def enter_namespaces() -> None:
    """New mount, PID and network namespaces for this process (and a user namespace mapping only its
    own uid and gid, unless it is root); the next child forked is PID 1 of the new PID namespace.
    The network namespace has only ``lo``, down: a room reaches nothing by network (its link to the
    shared tables is an inherited socket)."""
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET
    if uid != 0:
        flags |= CLONE_NEWUSER
    unshare(flags)
    if uid != 0:
        _map_self(uid, gid)
    mount(None, "/", None, MS_REC | MS_PRIVATE, None, "make mounts private")


# -- step 2, in PID 1: what the room sees ---------------------------------------------------------------
def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _traversable(info: os.stat_result, uid: int, gid: int) -> bool:
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == gid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)


def blocking_folder(path: str, uid: int, gid: int) -> str | None:
    """The highest folder above ``path`` that ``uid``/``gid`` cannot enter (so cannot reach ``path``
    through), or ``None``."""
    parts = path.strip("/").split("/")
    for depth in range(len(parts) - 1):
        folder = "/" + "/".join(parts[: depth + 1])
        try:
            info = os.stat(folder)
        except OSError:
            return None
        if not _traversable(info, uid, gid):
            return folder
    return None


def plan(data_dir: str, home: str, needs: Sequence[str], uid: int, gid: int) -> tuple[list[str], list[str]]:
    """What :func:`hide` covers (tmpfs mounts, outermost first) and what it puts back (bind mounts):
    ``data_dir`` with only ``home``; and each folder ``uid`` cannot enter above a needed path (or
    above ``data_dir``), with only the needed paths under it."""
    covers, keeps = [data_dir], [home]
    blocker = blocking_folder(data_dir, uid, gid)
    if blocker is not None:
        covers.append(blocker)
    for need in sorted(needs, key=lambda path: path.count("/")):
        blocker = blocking_folder(need, uid, gid)
        if blocker is None or any(_inside(need, kept) for kept in [data_dir, *keeps[1:]]):
            continue
        if blocker not in covers:
            covers.append(blocker)
        if need not in keeps:
            keeps.append(need)
    covers.sort(key=lambda folder: folder.count("/"))
    return covers, keeps


def hide(data_dir: str, home: str, needs: Sequence[str] = (), uid: int | None = None, gid: int | None = None) -> None:
    """Leave only ``home`` (inside ``data_dir``) visible of ``data_dir``, for this process and its
    children (and only the ``needs`` of the folders above them that ``uid`` cannot enter)."""
    relative = os.path.relpath(home, data_dir)
    if relative.startswith("..") or relative == ".":
        raise ValueError("the home folder is not inside the data dir")
    uid = os.geteuid() if uid is None else uid
    gid = os.getegid() if gid is None else gid
    covers, keeps = plan(data_dir, home, needs, uid, gid)
    held = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in keeps]  # before anything is covered

    def cover(folder: str) -> None:
        os.makedirs(folder, mode=0o755, exist_ok=True)  # inside a cover above it, if there is one
        mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k", f"cover {folder}")

    def put_back(path: str, fd: int) -> None:
        os.makedirs(path, mode=0o755)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC, None, f"put back {path}")
        os.close(fd)

    for folder in covers:
        if folder != data_dir:
            cover(folder)
    for path, fd in held[1:]:
        put_back(path, fd)
    cover(data_dir)  # last, on top: even inside a folder put back above, only ``home`` shows
    put_back(*held[0])
    for folder in covers:
        flags = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
        mount(None, folder, None, flags, None, f"make {folder} read-only")
    os.chdir(home)


def own_devpts() -> None:
    """A ``devpts`` instance of this mount namespace's own on ``/dev/pts`` (and ``/dev/ptmx``): no
    other session's terminal has a path here (the room's own is its inherited descriptors)."""
    mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620", "mount devpts")
    if os.path.exists("/dev/ptmx"):
        mount("/dev/pts/ptmx", "/dev/ptmx", None, MS_BIND, None, "bind /dev/ptmx")


# -- step 2, the lock-down --------------------------------------------------------------------------------
def drop_capabilities() -> None:
    """No capability left, nor any way to get one back by ``exec``."""
    prctl(PR_SET_SECUREBITS, SECURE_ALL, "lock the secure bits")
    libc = _libc()
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            if ctypes.get_errno() == errno.EINVAL:  # past the last capability this kernel knows
                break
            raise _fail("drop the capability bounding set")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, "clear the ambient capabilities")
    header, data = _CapHeader(CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise _fail("drop the capabilities")


def seccomp_filter() -> None:
    """Load the seccomp filter (libseccomp): :data:`REFUSED` and ``clone`` with a ``CLONE_NEW*`` flag
    fail with ``EPERM``, ``clone3`` with ``ENOSYS``; everything else is allowed."""
    try:
        lib = ctypes.CDLL(LIBSECCOMP, use_errno=True)
    except OSError as error:
        raise OSError(errno.ENOSYS, f"libseccomp is not installed ({LIBSECCOMP}: {error})") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCompare),
    ]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        raise OSError(errno.ENOMEM, "seccomp_init failed")
    try:

        def rule(name: str, action: int, *compare: _ArgCompare) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number == -1:  # __NR_SCMP_ERROR: not a system call libseccomp knows
                return
            array = (_ArgCompare * len(compare))(*compare) if compare else None
            result = lib.seccomp_rule_add_array(context, action, number, len(compare), array)
            if result < 0 and number >= 0:  # (a pseudo-number: no such call on this architecture)
                raise OSError(-result, f"seccomp rule for {name}: {os.strerror(-result)}")

        refuse = _errno_action(errno.EPERM)
        for name in REFUSED:
            rule(name, refuse)
        for flag in CLONE_NAMESPACES:
            rule("clone", refuse, _ArgCompare(0, SCMP_CMP_MASKED_EQ, flag, flag))
        rule("clone3", _errno_action(errno.ENOSYS))
        result = lib.seccomp_load(context)
        if result < 0:
            raise OSError(-result, f"seccomp_load: {os.strerror(-result)}")
    finally:
        lib.seccomp_release(context)


def lock_down(uid: int, gid: int) -> None:
    """After the hiding: become ``uid``/``gid`` (when root), enter a nested user namespace and mount
    namespace (every mount made so far is then locked: it cannot be unmounted or moved to show what
    it covers), drop every capability, set ``PR_SET_NO_NEW_PRIVS`` and load the seccomp filter."""
    if os.geteuid() == 0 and uid != 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        prctl(PR_SET_DUMPABLE, 1, "stay an ordinary process of that user")  # else its /proc/self stays root's
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | CLONE_NEWNS)
    _map_self(uid, gid)
    drop_capabilities()
    prctl(PR_SET_NO_NEW_PRIVS, 1, "set no_new_privs")
    seccomp_filter()


def set_up(data_dir: str, home: str, needs: Sequence[str] = (), user: tuple[int, int] | None = None) -> None:
    """Step 2, in PID 1 of the namespaces :func:`enter_namespaces` made: die with the first stage,
    mount this PID namespace's ``/proc``, hide, mount an own devpts, lock down (as ``user`` when
    root; else as the server's own uid)."""
    uid, gid = user if user is not None else (os.geteuid(), os.getegid())
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "set the parent-death signal")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None, "mount /proc")
    hide(data_dir, home, needs, uid, gid)
    own_devpts()
    lock_down(uid, gid)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "set the parent-death signal")  # a change of uid cleared it


def _status() -> dict[str, str]:
    with open("/proc/self/status", "rb") as handle:  # no codec to import: the stdlib may be out of reach
        text = handle.read().decode(errors="replace")
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def check(data_dir: str, home: str, host_pts: int) -> str | None:
    """In a set-up sandbox (PID 1): what is wrong with it, or ``None``.  ``host_pts``: the device of
    the ``/dev/pts`` seen before the sandbox (the host's)."""
    if os.getpid() != 1:
        return "not PID 1 of a PID namespace"
    if os.listdir(data_dir) != [os.path.relpath(home, data_dir).split(os.sep)[0]]:
        return "the data dir is not hidden"
    pts = os.stat("/dev/pts").st_dev
    if pts == host_pts or (os.path.exists("/dev/ptmx") and os.stat("/dev/ptmx").st_dev != pts):
        return "/dev/pts is not a devpts instance of its own"
    with open("/proc/self/net/dev", "rb") as handle:
        interfaces = [line.split(b":")[0].strip() for line in handle.read().splitlines()[2:]]
    if interfaces != [b"lo"]:
        return "the network is not a namespace of its own"
    status = _status()
    if int(status.get("CapEff", "1").strip(), 16) or int(status.get("CapBnd", "1").strip(), 16):
        return "capabilities are left"
    if status.get("NoNewPrivs", "").strip() != "1" or status.get("Seccomp", "").strip() != "2":
        return "no_new_privs or the seccomp filter is missing"
    if _libc().umount2(_encode(data_dir), MNT_DETACH) == 0:
        return "the data dir could be unmounted"
    try:
        unshare(CLONE_NEWUSER)
    except OSError:
        return None
    return "a new user namespace could be made"


def sandboxed(
    data_dir: str,
    home: str,
    needs: Sequence[str],
    user: tuple[int, int] | None,
    room: Callable[[], int],
    waiter: str | None,
    title: Sequence[str],
) -> int:
    """Run ``room()`` (in a child of PID 1) in the sandbox; for the first stage (this process, which
    waits outside), the room's exit status.  ``room`` returns its status (or ``exec``\\s)."""
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN)  # the room, in this process group, gets them
    try:
        enter_namespaces()
    except OSError as error:
        os.write(2, f"gamenight: cannot isolate this session ({error}).\r\n".encode())
        return 1
    init = os.fork()
    if init:
        return wait_small(init, waiter, title)
    code = 1
    try:
        try:
            set_up(data_dir, home, needs, user)
        except (OSError, ValueError) as error:
            os.write(2, f"gamenight: cannot isolate this session ({error}).\r\n".encode())
            os._exit(1)
        child = os.fork()
        if child == 0:
            code = 127
            try:
                for signum in HANDLED:
                    signal.signal(signum, signal.SIG_DFL)
                code = room()
            finally:
                os._exit(code)
        code = wait_small(child, waiter, title)
    finally:
        os._exit(code)


def probe(data_dir: str, home: str, needs: Sequence[str], user: tuple[int, int] | None) -> str | None:
    """Whether a room can be sandboxed here (in a forked child); why not, if not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            host_pts = os.stat("/dev/pts").st_dev
            enter_namespaces()
            init = os.fork()
            if init:
                os._exit(wait_for(init))
            set_up(data_dir, home, needs, user)
            reason = check(data_dir, home, host_pts)
        except BaseException as error:
            reason = str(error) or type(error).__name__
        if reason:
            os.write(write, reason.encode()[:500])
        os._exit(1 if reason else 0)
    os.close(write)
    told = b""  # the child's reason, if any
    while chunk := os.read(read, 1024):
        told += chunk
    os.close(read)
    _pid, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return None
    return told.decode(errors="replace") or "the sandbox could not be set up"


USAGE = (
    "usage: launch.py [--ctty] [--memory BYTES]"
    " [--sandbox DATA_DIR HOME [--as UID GID] [--need PATH]... [--probe]] -- ARGV"
)


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print(USAGE, file=sys.stderr)
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    if "--memory" in options:
        limit = int(options[options.index("--memory") + 1])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if "--ctty" in options:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    if "--sandbox" not in options:
        os.execvp(command[0], command)
        return 127  # not reached
    at = options.index("--sandbox")
    data_dir, home = options[at + 1], options[at + 2]
    user = None
    if "--as" in options:
        at = options.index("--as")
        user = (int(options[at + 1]), int(options[at + 2]))
    needs = [options[at + 1] for at, option in enumerate(options) if option == "--need"]
    if "--probe" in options:
        reason = probe(data_dir, home, needs, user)
        if reason is not None:
            print(reason, file=sys.stderr)
        return 0 if reason is None else 1

    def room() -> int:
        os.execvp(command[0], command)
        return 127  # not reached

    return sandboxed(data_dir, home, needs, user, room, find_waiter(), command)


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


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
