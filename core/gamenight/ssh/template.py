"""The room template: one pre-loaded process that forks a game room for each new session.

A fresh ``python -m gamenight`` spends most of a hosted room's first frame importing Textual,
the room and the games (bench/RESULTS.md, "A hosted room's first frame").  ``serve-ssh`` therefore starts one
helper, ``python -m gamenight.ssh.template``, that imports all of that once, calls
:func:`gc.freeze` (so the collector never writes to those pages and forked rooms keep sharing
them) and then waits on its control socket.

What crosses into the template, and what cannot:

* It is started with a fresh environment (``PATH``, ``PYTHONPATH``) and no file descriptor
  but its end of the control socket (a ``SOCK_SEQPACKET`` socketpair): never the host key,
  the server's listening socket, a user's folder or data dir descriptor.
* A request carries one descriptor and nothing else: the room's end of a new per-session
  socketpair.  The template forks at once and closes it; only the forked child reads the
  session's settings (argv, environment, memory cap, data dir and home) and its pty and
  tables descriptors from that socket (``SCM_RIGHTS``).  So no byte of a session (its user's
  paths, a client's ``TERM`` or ``LANG``, anything typed) is ever in the template's memory,
  and a room forked later cannot find a trace of an earlier one there.
* What a room reads after the fork (its user's config, the keys typed) is in its own
  copy-on-write pages: neither the template nor another room can see it.

The forked child leads a new session with the pty as its controlling terminal, takes the pty
as 0/1/2 (and the tables socket as 3), closes every other descriptor, caps its address space
and, when isolated, enters the very sandbox a spawned room gets
(:func:`gamenight.ssh.launch.sandboxed`: new mount, PID and network namespaces; PID 1 of the
namespace mounts its ``/proc``, hides the data dir but the user's folder, mounts its own devpts,
locks down (as the rooms' user when the server is root) and runs the room as its child).  The
room is the same entry point ``python -m gamenight`` uses (:func:`gamenight.cli.main`) with the
same argv, run in the forked process; a ``--command`` room is ``exec``'d instead.

The template reports ``started`` (request id, outer pid) and ``exited`` (pid, status) back on
the control socket; the server signals the room's process group and watches its pty exactly as
for a spawned room (:class:`gamenight.ssh.child.RoomProcess`).  The template is
single-threaded (``unshare(CLONE_NEWUSER)`` refuses a process with threads) and ends when the
server closes the control socket.

With ``serve-ssh --ksm on`` (``--ksm`` here) the template opts itself and so every room it forks
in to the kernel's same-page merging (:func:`opt_in_to_ksm`), which merges the pages idle rooms
hold alike when the host runs KSM (docs/hosting.md: what it saves, costs and may reveal).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import resource
import signal
import socket
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gamenight.ssh import launch
from gamenight.ssh.child import RoomProcess
from gamenight.ssh.launch import HANDLED, exit_code, find_waiter

__all__ = [
    "CLONE_NEWNS",
    "CLONE_NEWPID",
    "CLONE_NEWUSER",
    "MAX_SETTINGS",
    "SessionSettings",
    "TemplateError",
    "main",
    "parse_settings",
    "plugin_stamp",
]

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = launch.CLONE_NEWNS, launch.CLONE_NEWUSER, launch.CLONE_NEWPID
PR_SET_PDEATHSIG = 1
PR_SET_MEMORY_MERGE = 67
"""``prctl`` option (Linux 6.4+): every anonymous page of the process may be merged by KSM."""
KSM_RUN = "/sys/kernel/mm/ksm/run"

MAX_SETTINGS = 64 * 1024
"""Largest settings message a child accepts (an ordinary one is well under 2 KiB)."""
MAX_ARGS = 64
MAX_ENV = 64
MAX_TEXT = 4096
MAX_MESSAGE = 4096
"""Largest message on the control socket, either way."""
TABLES_FD_IN_ROOM = 3
"""The tables socket's number in a forked room."""


WAITER: str | None = None
"""The small waiter (:func:`gamenight.ssh.launch.find_waiter`) a sandboxed room's first stage and
PID 1 become once they have started their child; looked for once, when the template starts."""


class TemplateError(ValueError):
    """A session's settings that a child refuses."""


# -- a session's settings (read by the forked child only) -----------------------------------------
class SessionSettings:
    """What a forked room needs to know about its session; built by the server, checked by the child."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str,
        memory: int = 0,
        hide: tuple[str, str] | None = None,
        execute: bool = False,
        user: tuple[int, int] | None = None,
        needs: Sequence[str] = (),
    ) -> None:
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.memory = memory
        self.hide = hide
        self.execute = execute
        self.user = user
        """The room's uid and gid when the server is root (the sandbox maps the room to them)."""
        self.needs = list(needs)
        """Folders the room needs (Python, its packages) that its user may not reach on its own."""

    def encode(self) -> bytes:
        data = json.dumps(
            {
                "argv": self.argv,
                "env": self.env,
                "cwd": self.cwd,
                "memory": self.memory,
                "hide": list(self.hide) if self.hide else None,
                "exec": self.execute,
                "user": list(self.user) if self.user else None,
                "needs": self.needs,
            }
        ).encode()
        if len(data) > MAX_SETTINGS:
            raise TemplateError("the session's settings are too long")
        return data


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT or "\0" in value:
        raise TemplateError(f"bad {what}")
    return value


def _path(value: object, what: str) -> str:
    path = _text(value, what)
    if not os.path.isabs(path):
        raise TemplateError(f"{what} is not an absolute path")
    return path


def parse_settings(data: bytes) -> SessionSettings:
    """The settings in ``data``, validated and bounded (:class:`TemplateError` otherwise)."""
    if len(data) > MAX_SETTINGS:
        raise TemplateError("settings too long")
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise TemplateError("settings are not JSON") from error
    if not isinstance(raw, dict) or set(raw) != {"argv", "env", "cwd", "memory", "hide", "exec", "user", "needs"}:
        raise TemplateError("settings have the wrong fields")
    argv, env, memory, hidden, execute = raw["argv"], raw["env"], raw["memory"], raw["hide"], raw["exec"]
    if not isinstance(argv, list) or len(argv) > MAX_ARGS or not all(isinstance(a, str) for a in argv):
        raise TemplateError("bad argv")
    argv = [_text(part, "argument") for part in argv]
    if not isinstance(env, dict) or len(env) > MAX_ENV:
        raise TemplateError("bad environment")
    for name, value in env.items():
        if not name or "=" in name or len(name) > 64 or not name.replace("_", "").isalnum() or not name.isascii():
            raise TemplateError("bad variable name")
        _text(value, "variable")
    if not isinstance(memory, int) or isinstance(memory, bool) or not 0 <= memory <= 1 << 48:
        raise TemplateError("bad memory cap")
    if hidden is not None:
        if not isinstance(hidden, list) or len(hidden) != 2:
            raise TemplateError("bad data dir and home")
        hidden = (_path(hidden[0], "data dir"), _path(hidden[1], "home"))
    if not isinstance(execute, bool) or (execute and not argv):
        raise TemplateError("bad command")
    user, needs = raw["user"], raw["needs"]
    if user is not None:
        if not isinstance(user, list) or len(user) != 2 or not all(_id(value) for value in user):
            raise TemplateError("bad user")
        user = (user[0], user[1])
    if not isinstance(needs, list) or len(needs) > MAX_ARGS:
        raise TemplateError("bad needed folders")
    needs = [_path(need, "needed folder") for need in needs]
    return SessionSettings(argv, env, _path(raw["cwd"], "cwd"), memory, hidden, execute, user, needs)


def _id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32


# -- plugins on disk ---------------------------------------------------------------------------------
def plugin_stamp(paths: Sequence[str] | None = None) -> tuple[tuple[str, float], ...]:
    """What changes when plugins are installed, removed or upgraded: the mtimes of the import path's
    folders (a ``*.dist-info`` added or removed) and of the plugins' own ``dist-info`` folders."""
    stamp = []
    for path in sys.path if paths is None else paths:
        try:
            stamp.append((path, os.stat(path).st_mtime))
        except OSError:
            continue
    return tuple(stamp)


def plugin_paths() -> list[str]:
    """The import path's folders and the ``dist-info`` folders of the installed plugins."""
    import importlib.metadata

    from gamenight.plugins import ENTRY_POINT_GROUP

    paths = [path for path in sys.path if path and os.path.isdir(path)]
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(entry, "dist", None)
        location = getattr(dist, "_path", None)
        if location is not None and str(location) not in paths:
            paths.append(str(location))
    return paths


# -- the template process ------------------------------------------------------------------------------
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def opt_in_to_ksm() -> str | None:
    """Let the kernel's same-page merging (KSM) merge this process's anonymous pages, and those of
    every process forked from it: ``None`` when done, else why not (an old kernel: ``EINVAL``).

    The flag is per address space: set in the template, every mapping it has and makes is
    mergeable, and each forked room inherits it (and keeps it across ``exec``, Linux 6.7+), so a
    room's copy of a template page can merge back with the template's page and with the other
    rooms' copies.  It costs nothing until the host's operator starts ``ksmd`` (:func:`ksm_state`).
    """
    libc = _libc()
    if libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def ksm_state(path: str = KSM_RUN) -> str:
    """The host's KSM switch, ``/sys/kernel/mm/ksm/run``: ``running`` (1), ``stopped`` (0),
    ``unmerging`` (2) or ``unavailable`` (no KSM in this kernel, or the file cannot be read)."""
    try:
        with open(path, encoding="ascii") as handle:
            value = handle.read().strip()
    except (OSError, ValueError):
        return "unavailable"
    return {"0": "stopped", "1": "running", "2": "unmerging"}.get(value, "unavailable")


def _room(settings: SessionSettings) -> int:
    """Run the room in this process (or ``exec`` the ``--command``); its exit status."""
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh Python has it
    os.chdir(settings.cwd)
    os.environ.clear()
    os.environ.update(settings.env)
    if settings.execute:
        os.execvpe(settings.argv[0], settings.argv, settings.env)
    sys.argv = ["gamenight", *settings.argv]
    import runpy

    try:  # exactly what ``python -m gamenight ARGV`` runs (gamenight/__main__.py), in this process
        runpy.run_module("gamenight", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _set_title(argv: Sequence[str]) -> None:
    """Show ``argv`` as this process's command line in ``/proc/PID/cmdline`` and ``ps`` (as far as
    the template's own command line has room: it is started with room to spare)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48 and 49)
    except (OSError, IndexError, ValueError):
        return
    if not start or end <= start:
        return
    text = b"\0".join(os.fsencode(part) for part in argv)[: end - start - 1]
    ctypes.memmove(start, text + b"\0" * (end - start - len(text)), end - start)


def child(session: socket.socket, keep: Sequence[int]) -> int:
    """The forked child: take the session's settings and descriptors, set up, run the room."""
    try:
        data, fds, _flags, _address = socket.recv_fds(session, MAX_SETTINGS + 1, 2)
    except OSError:
        return 1
    session.close()
    if not fds or len(fds) > 2:
        return 1
    try:
        settings = parse_settings(data)
    except TemplateError as error:
        os.write(fds[0], f"gamenight: the room could not be started ({error}).\r\n".encode())
        return 1
    pty, tables = fds[0], fds[1] if len(fds) == 2 else None
    title = settings.argv if settings.execute else ["gamenight", *settings.argv]
    _set_title(title)
    os.setsid()
    for target in (0, 1, 2):
        os.dup2(pty, target)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    if tables is not None:
        os.dup2(tables, TABLES_FD_IN_ROOM)  # inheritable
        settings.env["GAMENIGHT_TABLES_FD"] = str(TABLES_FD_IN_ROOM)
    else:
        settings.env.pop("GAMENIGHT_TABLES_FD", None)
    highest = TABLES_FD_IN_ROOM if tables is not None else 2
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > highest and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    if settings.memory:
        resource.setrlimit(resource.RLIMIT_AS, (settings.memory, settings.memory))
    if settings.hide is None:
        return _room(settings)
    data_dir, home = settings.hide
    return launch.sandboxed(data_dir, home, settings.needs, settings.user, lambda: _run(_room, settings), WAITER, title)


def _run(function: Any, *args: Any) -> int:
    """``function(*args)``'s status; an exception is a failed room, never a return into the template."""
    try:
        return int(function(*args))
    except BaseException:  # the traceback goes to the room's terminal
        try:
            import traceback

            traceback.print_exc()
        except BaseException:
            pass
        return 1


def probe(data_dir: str, needs: Sequence[str] = (), user: tuple[int, int] | None = None) -> str | None:
    """Whether a forked child can be sandboxed here (:func:`gamenight.ssh.launch.probe`: the
    namespaces, the hiding, the devpts, the lock-down); why not, if not."""
    users = os.path.join(data_dir, "users")
    os.makedirs(users, mode=0o700, exist_ok=True)
    return launch.probe(data_dir, users, needs, user)


PRELOAD = (
    "gamenight.cli",
    "gamenight.app",
    "gamenight.tables.client",
    "gamenight.tables.protocol",
    "gamenight.records.store",
    "textual.scrollbar",
)
"""What a room's first frame needs (Textual, the lobby, the screens; a hosted room connects to the
table service and opens its records at once)."""


def preload() -> None:
    """Import what a room's first frame needs, and the installed games."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    from gamenight.plugins import preload_registry

    preload_registry()  # imports every game; a room takes a copy of this registry instead of looking again
    from gamenight.compat.textual_internals import share_parsed_css

    share_parsed_css()
    warm_up()


def warm_up() -> None:
    """Parse a room's arguments and open the lobby once, headless, in a throwaway folder (default
    config, no user's data): what is imported, parsed and cached on the way (lazy imports, Textual's
    selector and scalar caches, Rich's styles) and the code specialised by running it are then
    shared by every room.
    Ends with every thread it started ended (the template must be single-threaded)."""
    import asyncio
    import shutil
    import tempfile

    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.room_args import room_parser

    folder = tempfile.mkdtemp(prefix="gamenight-template-")
    saved = dict(os.environ)
    os.environ.update(
        {
            "HOME": folder,
            "XDG_CONFIG_HOME": folder,
            "XDG_DATA_HOME": folder,
            "XDG_STATE_HOME": folder,
            "XDG_CACHE_HOME": folder,
            "GAMENIGHT_DATA": folder,
            "GAMENIGHT_CONFIG": os.path.join(folder, "config.toml"),
            "GAMENIGHT_CRASH_LOG": os.path.join(folder, "crash.log"),
            "GAMENIGHT_HOSTED": "1",
        }
    )

    async def lobby(theme: str | None) -> None:
        from pathlib import Path

        home = Path(folder)
        app = GameNightApp(
            config=Config.load(home / "config.toml"),
            saves_dir=home / "saves",
            theme_name=theme,
            records_path=home / "records.sqlite3",
        )
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(200):  # the games arrive from a worker thread: wait for it (10 s at most)
                if app.registry_loaded:
                    break
                await pilot.pause(0.05)
            await pilot.pause()

    try:
        # A room parses its arguments before anything else: argparse's code runs (and is specialised)
        # here once instead of in every room (0.2 MiB of a forked room's private memory).
        room_parser().parse_args(["--saves", os.path.join(folder, "saves")])
        asyncio.run(lobby(None))  # (the 16-colour theme too would add ~40% to the template's start)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(folder, ignore_errors=True)


def serve(control: socket.socket) -> int:
    """Answer requests on ``control`` until it closes: fork a room for each."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    import select

    rooms = 0

    def send(message: dict[str, object]) -> None:
        control.send(json.dumps(message).encode())

    def reap() -> None:
        nonlocal rooms
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            rooms -= 1
            send({"exited": pid, "status": exit_code(status)})

    while True:
        try:
            watched: list[socket.socket | int] = [control, wake_read]
            ready, _w, _x = select.select(watched, [], [])
        except InterruptedError:
            continue
        if wake_read in ready:
            os.read(wake_read, 4096)
            reap()
        if control not in ready:
            continue
        try:
            message, fds, _flags, _address = socket.recv_fds(control, MAX_MESSAGE, 1)
        except InterruptedError:
            continue
        if not message:
            return 0  # the server has gone
        try:
            request = json.loads(message)["start"]
            if not isinstance(request, int) or len(fds) != 1:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            for fd in fds:
                os.close(fd)
            send({"error": "bad request"})
            continue
        session = socket.socket(fileno=fds[0])
        try:
            pid = os.fork()
        except OSError as error:
            session.close()
            send({"failed": request, "error": str(error)})
            continue
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake_read)
            os.close(wake_write)
            control.close()
            os._exit(_run(child, session, ()))
        session.close()
        rooms += 1
        send({"started": request, "pid": pid})


def sandbox_options(argv: Sequence[str]) -> tuple[str, list[str], tuple[int, int] | None]:
    """``--probe DATA_DIR [--as UID GID] [--need PATH]...``: the data dir, the needed folders, the user."""
    data_dir = argv[argv.index("--probe") + 1]
    needs = [argv[at + 1] for at, option in enumerate(argv) if option == "--need"]
    user = None
    if "--as" in argv:
        at = argv.index("--as")
        user = (int(argv[at + 1]), int(argv[at + 2]))
    return data_dir, needs, user


def main(argv: list[str]) -> int:
    """``python -m gamenight.ssh.template CONTROL_FD [--probe DATA_DIR [--as UID GID] [--need PATH]...]
    [--ksm] [padding]``."""
    control = socket.socket(fileno=int(argv[0]))
    server = os.getppid()
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # never outlive the server (not inherited by rooms)
    if os.getppid() != server:
        return 1
    started = time.monotonic()
    global WAITER
    WAITER = find_waiter()
    try:
        preload()
        reason = probe(*sandbox_options(argv)) if "--probe" in argv else None
    except BaseException as error:  # reported to the server, which falls back
        control.send(json.dumps({"broken": f"{type(error).__name__}: {error}"[:1000]}).encode())
        return 1
    import gc
    import threading

    gc.collect()
    gc.freeze()
    ksm: bool | str = False  # the rooms opted in to KSM: True, False, or why it failed
    if "--ksm" in argv:
        ksm = opt_in_to_ksm() or True
    threads = threading.active_count()
    control.send(
        json.dumps(
            {
                "ready": os.getpid(),
                "threads": threads,
                "isolation": reason,
                "seconds": round(time.monotonic() - started, 3),
                "plugins": plugin_paths(),
                "ksm": ksm,
            }
        ).encode()
    )
    if threads != 1:
        return 1
    return serve(control)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# -- the server's side ----------------------------------------------------------------------------------
TITLE_ROOM = 1024
"""Bytes of spare command line the template is started with, for a forked room to show its own."""
START_TIMEOUT = 60.0
"""Seconds a new template has to import everything and say it is ready."""
FORK_TIMEOUT = 10.0
"""Seconds the template has to answer a request with the forked room's pid."""
RESTART_INTERVAL = 10.0
"""A template that died is started again at most once per this many seconds."""


class TemplateUnavailable(Exception):
    """The template cannot start this room (the server spawns it instead); the text says why."""


def template_environment() -> dict[str, str]:
    """The template's environment: nothing of the server's but the paths Python needs."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",  # a maths library's threads would make unshare(CLONE_NEWUSER) fail
        "OMP_NUM_THREADS": "1",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


class RoomTemplate:
    """The server's handle on one template process: start it, ask it for rooms, hear them end."""

    def __init__(
        self,
        probe_dir: str | None = None,
        ksm: bool = False,
        user: tuple[int, int] | None = None,
        needs: Sequence[str] = (),
    ) -> None:
        self.probe_dir = probe_dir
        """The data dir, when rooms are isolated: the template checks it can sandbox a room first."""
        self.user = user
        self.needs = list(needs)
        """The rooms' user (when root) and needed folders, for that check (as in :class:`SessionSettings`)."""
        self.ksm = ksm
        """Whether the template opts itself and its rooms in to KSM (``serve-ssh --ksm on``)."""
        self.pid: int | None = None
        self.ready_info: dict[str, Any] = {}
        self.plugin_paths: list[str] = []
        self.stamp: tuple[tuple[str, float], ...] = ()
        self.alive = False
        self.retired = False
        """Replaced by a newer template: it ends when the last of its rooms has."""
        self.on_death: Any = None
        """Called (no arguments) when the template has gone."""
        self._control: socket.socket | None = None
        self._process: Any = None
        self._ready: Any = None
        self._next = 0
        self._pending: dict[int, Any] = {}
        self._exits: dict[int, Any] = {}

    @property
    def rooms(self) -> int:
        """Rooms it forked that have not been reported ended."""
        return len(self._exits)

    async def start(self) -> None:
        """Start the template and wait until it is ready; :class:`TemplateUnavailable` otherwise."""
        import asyncio
        import subprocess

        loop = asyncio.get_running_loop()
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError as error:
            raise TemplateUnavailable(f"cannot start the template: {error}") from error
        argv = [sys.executable, "-m", "gamenight.ssh.template", str(theirs.fileno())]
        if self.probe_dir is not None:
            argv += ["--probe", self.probe_dir]
            if self.user is not None:
                argv += ["--as", str(self.user[0]), str(self.user[1])]
            for need in self.needs:
                argv += ["--need", need]
        if self.ksm:
            argv.append("--ksm")
        try:
            self._process = await asyncio.create_subprocess_exec(
                *argv,
                "-" * TITLE_ROOM,  # room for a forked room's command line (see _set_title)
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=template_environment(),
                cwd="/",
                pass_fds=(theirs.fileno(),),
            )
        except OSError as error:
            ours.close()
            raise TemplateUnavailable(f"cannot start the template: {error}") from error
        finally:
            theirs.close()
        self.pid = self._process.pid
        self._control = ours
        ours.setblocking(False)
        self._ready = loop.create_future()
        self.alive = True
        loop.add_reader(ours.fileno(), self._readable)
        try:
            try:
                info = await asyncio.wait_for(asyncio.shield(self._ready), START_TIMEOUT)
            except TimeoutError:
                raise TemplateUnavailable("the template did not get ready in time") from None
            if info.get("threads") != 1:
                raise TemplateUnavailable(f"the template has {info.get('threads')} threads, not one")
            if self.probe_dir is not None and info.get("isolation") is not None:
                raise TemplateUnavailable(f"a forked room cannot be isolated here: {info['isolation']}")
        except BaseException:
            self.close()
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            raise
        self.ready_info = info
        self.plugin_paths = [path for path in info.get("plugins", []) if isinstance(path, str)]
        self.stamp = plugin_stamp(self.plugin_paths)

    def stale(self) -> bool:
        """Whether the installed plugins changed on disk since the template loaded them."""
        return plugin_stamp(self.plugin_paths) != self.stamp

    def _readable(self) -> None:
        assert self._control is not None
        while True:
            try:
                data = self._control.recv(MAX_MESSAGE)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._gone()
                return
            try:
                self._dispatch(json.loads(data))
            except (ValueError, TypeError, KeyError):
                continue

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "ready" in message:
            if not self._ready.done():
                self._ready.set_result(message)
        elif "broken" in message:
            if not self._ready.done():
                self._ready.set_exception(TemplateUnavailable(f"the template failed: {message['broken']}"))
        elif "started" in message:
            future = self._pending.pop(message["started"], None)
            pid = message["pid"]
            if isinstance(pid, int) and pid > 0:
                self._exits.setdefault(pid, future.get_loop().create_future() if future else None)
                if future is not None and not future.done():
                    future.set_result(pid)
        elif "failed" in message:
            future = self._pending.pop(message["failed"], None)
            if future is not None and not future.done():
                future.set_exception(TemplateUnavailable(f"the template could not fork: {message.get('error')}"))
        elif "exited" in message:
            exit = self._exits.pop(message["exited"], None)
            if exit is not None and not exit.done():
                exit.set_result(int(message["status"]))
            if self.retired and not self._exits:
                self.close()  # replaced, and the last of its rooms has ended

    def _gone(self) -> None:
        """The template has ended (or the socket broke): nothing more will come from it."""
        if not self.alive:
            return
        self.alive = False
        if self._control is not None:
            import asyncio

            asyncio.get_running_loop().remove_reader(self._control.fileno())
            self._control.close()
            self._control = None
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(TemplateUnavailable("the template ended while starting"))
        for future in self._pending.values():
            if not future.done():
                future.set_exception(TemplateUnavailable("the template has ended"))
        self._pending.clear()
        for exit in self._exits.values():  # their end is seen on their pty (see TemplateRoom)
            if exit is not None and not exit.done():
                exit.set_result(None)
        self._exits.clear()
        if self.on_death is not None:
            self.on_death()

    async def fork(self, settings: SessionSettings, pty: int, tables: int | None) -> tuple[int, Any]:
        """A room for this session, forked by the template: its pid and a future of its exit status
        (``None`` when the template ended before the room did)."""
        import asyncio

        if not self.alive or self._control is None:
            raise TemplateUnavailable("the template has ended")
        try:
            data = settings.encode()
        except TemplateError as error:
            raise TemplateUnavailable(str(error)) from error
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError as error:
            raise TemplateUnavailable(f"cannot reach the template: {error}") from error
        try:
            # Queued for the forked child, which is the only one to read it.
            socket.send_fds(ours, [data], [pty] if tables is None else [pty, tables])
            self._next += 1
            request = self._next
            future = asyncio.get_running_loop().create_future()
            self._pending[request] = future
            try:
                socket.send_fds(self._control, [json.dumps({"start": request}).encode()], [theirs.fileno()])
            except OSError as error:  # BlockingIOError: the template is not keeping up
                self._pending.pop(request, None)
                raise TemplateUnavailable(f"cannot reach the template: {error}") from error
        finally:
            ours.close()
            theirs.close()
        try:
            pid = await asyncio.wait_for(future, FORK_TIMEOUT)
        except TimeoutError:
            self._pending.pop(request, None)
            raise TemplateUnavailable("the template did not answer in time") from None
        exit = self._exits.get(pid)
        if exit is None:  # it was reported ended already
            exit = asyncio.get_running_loop().create_future()
            exit.set_result(1)
        return pid, exit

    def close(self) -> None:
        """Close the control socket: the template ends (its rooms go on until their sessions end)."""
        self.on_death = None
        self._gone()

    async def stop(self, timeout: float = 5.0) -> None:
        """Close it and wait for its process to end (killed after ``timeout``)."""
        import asyncio

        self.close()
        if self._process is None:
            return
        try:
            await asyncio.wait_for(self._process.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            await self._process.wait()


class TemplateRoom(RoomProcess):
    """A room forked by the template instead of spawned: the same pty, signals and end detection
    as :class:`RoomProcess` (the end of output on the pty, and the exit status the template reports)."""

    def __init__(
        self,
        template: RoomTemplate,
        settings: SessionSettings,
        tables_fd: int | None,
        size: tuple[int, int],
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        on_input_blocked: Callable[[bool], None],
    ) -> None:
        super().__init__([], {}, settings.cwd, size, on_output, on_exit, on_input_blocked)
        self.template = template
        self._settings = settings
        self._tables_fd = tables_fd
        self._exit: Any = None

    async def _spawn(self, slave: int) -> int:
        pid, self._exit = await self.template.fork(self._settings, slave, self._tables_fd)
        return pid

    async def _exited(self) -> int:
        import asyncio

        status = await asyncio.shield(self._exit)
        if status is not None:
            return int(status)
        # The template ended first: the room is someone else's child now; wait until it is gone.
        assert self._pid is not None
        while _alive(self._pid):
            await asyncio.sleep(0.2)
        return 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


class TemplateKeeper:
    """The server's template over its life: started at start-up, started again when it dies (at most
    once per :data:`RESTART_INTERVAL`) or when the installed plugins change on disk (checked at each
    session's start; the old one is kept until its rooms have ended, to report their exits)."""

    def __init__(
        self,
        probe_dir: str | None,
        log: Callable[..., None],
        ksm: bool = False,
        user: tuple[int, int] | None = None,
        needs: Sequence[str] = (),
    ) -> None:
        self.probe_dir = probe_dir
        self.user = user
        self.needs = list(needs)
        self.log = log
        self.ksm = ksm
        self.current: RoomTemplate | None = None
        self.retired: list[RoomTemplate] = []
        self._starting: Any = None
        self._last_start = float("-inf")
        self._timer: Any = None
        self._stopped = False

    async def start(self) -> RoomTemplate:
        """The first template (:class:`TemplateUnavailable` when it cannot be used here)."""
        import asyncio

        self._last_start = asyncio.get_running_loop().time()
        template = RoomTemplate(self.probe_dir, self.ksm, self.user, self.needs)
        await template.start()
        self._adopt(template)
        return template

    def _adopt(self, template: RoomTemplate) -> None:
        self.current = template
        template.on_death = lambda: self._died(template)
        self.log(
            "template",
            action="ready",
            pid=template.pid,
            seconds=template.ready_info.get("seconds"),
            isolated=self.probe_dir is not None,
            ksm=template.ready_info.get("ksm", False),
        )

    def get(self) -> RoomTemplate | None:
        """The template to fork this session's room, or ``None`` (spawn it): at a session's start."""
        self._sweep()
        template = self.current
        if template is not None and template.alive and template.stale():
            self.log("template", action="plugins_changed", pid=template.pid)
            self.current = None
            template.on_death = None
            template.retired = True
            self.retired.append(template)
            self._sweep()
            template = None
        if template is None or not template.alive:
            self._restart()
            return None
        return template

    def _sweep(self) -> None:
        for template in list(self.retired):
            if not template.alive or template.rooms == 0:
                template.close()
                self.retired.remove(template)

    def _died(self, template: RoomTemplate) -> None:
        if template is self.current:
            self.current = None
            self.log("template", action="ended", pid=template.pid, rooms=template.rooms)
            self._restart()

    def _restart(self) -> None:
        import asyncio

        if self._stopped or self._starting is not None or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_start + RESTART_INTERVAL - loop.time()
        if wait > 0:
            self._timer = loop.call_later(wait, self._restart_now)
        else:
            self._restart_now()

    def _restart_now(self) -> None:
        import asyncio

        self._timer = None
        if self._stopped or self._starting is not None:
            return
        self._last_start = asyncio.get_running_loop().time()
        self._starting = asyncio.get_running_loop().create_task(self._start_again())

    async def _start_again(self) -> None:
        template = RoomTemplate(self.probe_dir, self.ksm, self.user, self.needs)
        try:
            await template.start()
        except Exception as error:  # TemplateUnavailable, or the machine out of something: spawn meanwhile
            self.log("template", action="failed", detail=str(error))
            return
        finally:
            self._starting = None
        if self._stopped:
            await template.stop()
            return
        self._adopt(template)

    async def stop(self) -> None:
        """End every template (the server is stopping; its rooms have been ended)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(BaseException):
                await self._starting
        for template in [*self.retired, *([self.current] if self.current else [])]:
            await template.stop()
        self.retired.clear()
        self.current = None
