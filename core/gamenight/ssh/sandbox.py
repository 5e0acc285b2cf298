"""The room's command line: the first stage (:mod:`gamenight.ssh.launch`), in its sandbox when isolated.

Where the system allows it, each room runs in its own mount, PID and network namespaces (and a
user namespace, unless the server is root), sees only its user's folder of the data dir and a
terminal device instance of its own, and is locked down: a nested user namespace, no
capability, ``no_new_privs`` and a seccomp filter (:mod:`gamenight.ssh.launch`).  When the
server runs as root, rooms run as an unprivileged user (``--room-user``, ``nobody`` by default).
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from gamenight.room_args import SIXTEEN_COLOUR_THEME
from gamenight.ssh.messages import _
from gamenight.ssh.settings import Settings
from gamenight.ssh.template import SessionSettings

__all__ = [
    "DEFAULT_ROOM_USER",
    "LAUNCH",
    "SANDBOX_PREFIX",
    "build_command",
    "own_home",
    "room_arguments",
    "room_needs",
    "room_settings",
    "room_user",
    "sandbox_problem",
    "sandbox_works",
]

LAUNCH = Path(__file__).with_name("launch.py")
SANDBOX_PREFIX = ["setsid", "--ctty"]
"""``setsid --ctty`` makes the pty the controlling terminal of the new session first."""
DEFAULT_ROOM_USER = "nobody"
"""The rooms' user when the server runs as root and ``--room-user`` is not given."""


def first_stage(*options: str) -> list[str]:
    """``python -I -S launch.py OPTIONS --``: the room's argv follows."""
    return [sys.executable, "-I", "-S", str(LAUNCH), *options, "--"]


def room_user(name: str | None) -> tuple[int, int]:
    """The uid and gid rooms run as: the server's own, or as root ``name`` (``nobody`` by default);
    :class:`ValueError` (a sentence for the operator) when that cannot be."""
    if os.geteuid() != 0:
        if name is not None and _lookup(name)[0] != os.geteuid():
            raise ValueError(_("--room-user: only a server started as root runs rooms as another user"))
        return os.geteuid(), os.getegid()
    return _lookup(name or DEFAULT_ROOM_USER)


def _lookup(name: str) -> tuple[int, int]:
    try:
        entry = pwd.getpwnam(name) if not name.isdigit() else pwd.getpwuid(int(name))
    except (KeyError, OverflowError):
        raise ValueError(_("--room-user {name}: there is no such user", name=name)) from None
    return entry.pw_uid, entry.pw_gid


def room_needs(settings: Settings) -> list[str]:
    """What a room run as another user (the server is root) must reach: Python's installation, the
    virtual environment and every folder on the import path.  Those under a folder that user cannot
    enter (e.g. a Python under ``/root``) are put back in the room's view of it by the sandbox."""
    if settings.room_uid == os.geteuid():
        return []
    found: list[str] = []
    candidates = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix]
    candidates += [os.path.dirname(os.path.realpath(sys.executable)), *sys.path, *_package_folders()]
    for path in candidates:
        if not path or not os.path.isabs(path):
            continue
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in found:
            found.append(real)
    return found


def _package_folders() -> list[str]:
    """gamenight's and the installed games' package folders, and a checkout's ``themes/``: an
    editable install finds them by an import hook, not on ``sys.path``."""
    import importlib.metadata
    import importlib.util

    import gamenight
    from gamenight.plugins import ENTRY_POINT_GROUP

    package = Path(gamenight.__file__).resolve().parent
    folders = [str(package), str(package.parents[1] / "themes")]
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            spec = importlib.util.find_spec(entry.value.split(":")[0].split(".")[0])
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            folders.extend(spec.submodule_search_locations)
        elif spec is not None and spec.origin:
            folders.append(os.path.dirname(spec.origin))
    return folders


def own_home(settings: Settings, home: Path) -> None:
    """When rooms run as another user than the server (root): give the user's folder to that user,
    when it (or its ``saves/``) is not theirs yet (the data dir above it stays root's, 0700).
    Links are not followed, and a file with more than one name is left alone (it may be a hard
    link to a file elsewhere)."""
    uid, gid = settings.room_uid, settings.room_gid
    if uid == os.geteuid() or all(path.lstat().st_uid == uid for path in (home, home / "saves") if path.exists()):
        return  # (``saves/`` is made again by the server, as root, if a room removed it)
    for folder, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink == 1):
                os.lchown(path, uid, gid)
    os.lchown(home, uid, gid)


def _sandbox_options(settings: Settings, home: Path) -> list[str]:
    options = ["--sandbox", str(settings.data_dir), str(home)]
    if settings.room_uid != os.geteuid():
        options += ["--as", str(settings.room_uid), str(settings.room_gid)]
    for need in settings.room_needs:
        options += ["--need", need]
    return options


def room_arguments(settings: Settings, home: Path, depth: str) -> list[str]:
    """The room's own arguments (after ``python -m gamenight``), or the ``--command`` argv with
    ``{user_dir}``, ``{saves}``, ``{config}`` and ``{colours}`` filled in."""
    saves, config = home / "saves", home / "config.toml"
    if settings.command is None:
        argv = ["--saves", str(saves), "--config", str(config)]
        if depth == "16":
            argv += ["--theme", SIXTEEN_COLOUR_THEME]
        return argv
    values = {"{user_dir}": str(home), "{saves}": str(saves), "{config}": str(config), "{colours}": depth}
    argv = []
    for part in settings.command:
        for placeholder, value in values.items():
            part = part.replace(placeholder, value)
        argv.append(part)
    return argv


def build_command(settings: Settings, home: Path, depth: str) -> list[str]:
    """The room's argv: the first stage (:mod:`gamenight.ssh.launch`), then the real room or
    ``--command`` with ``{user_dir}``, ``{saves}``, ``{config}`` and ``{colours}`` filled in.
    When isolated, the user's folder is given to the rooms' user first (:func:`own_home`)."""
    memory = ["--memory", str(settings.room_memory * 1024 * 1024)] if settings.room_memory > 0 else []
    if settings.isolated:
        own_home(settings, home)
        launcher = [*SANDBOX_PREFIX, *first_stage(*memory, *_sandbox_options(settings, home))]
    else:
        launcher = first_stage("--ctty", *memory)
    if settings.command is None:
        return [*launcher, sys.executable, "-m", "gamenight", *room_arguments(settings, home, depth)]
    return launcher + room_arguments(settings, home, depth)


def room_settings(settings: Settings, home: Path, depth: str, env: dict[str, str]) -> SessionSettings:
    """What a room forked by the template needs (:mod:`gamenight.ssh.template`): the same room,
    memory cap and sandbox as :func:`build_command` gives a spawned one."""
    if settings.isolated:
        own_home(settings, home)
    return SessionSettings(
        room_arguments(settings, home, depth),
        env,
        str(home),
        memory=settings.room_memory * 1024 * 1024 if settings.room_memory > 0 else 0,
        hide=(str(settings.data_dir), str(home)) if settings.isolated else None,
        execute=settings.command is not None,
        user=(settings.room_uid, settings.room_gid) if settings.room_uid != os.geteuid() else None,
        needs=settings.room_needs,
    )


def sandbox_problem(data_dir: Path, settings: Settings | None = None) -> str | None:
    """Why rooms cannot be sandboxed here (util-linux ``setsid``; user, mount, PID and network
    namespaces; devpts; capabilities, no_new_privs and libseccomp's filter), or ``None``."""
    if not shutil.which("setsid"):
        return "util-linux setsid is not installed"
    users = data_dir / "users"
    users.mkdir(mode=0o700, exist_ok=True)
    options = ["--sandbox", str(data_dir), str(users)]
    if settings is not None and settings.room_uid != os.geteuid():
        options = [*_sandbox_options(settings, users), "--probe"]
    else:
        options.append("--probe")
    try:
        probe = subprocess.run(
            [*first_stage(*options), "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if probe.returncode == 0:
        return None
    return probe.stderr.decode(errors="replace").strip()[-300:] or f"the probe failed ({probe.returncode})"


def sandbox_works(data_dir: Path, settings: Settings | None = None) -> bool:
    """Whether rooms can be sandboxed here (:func:`sandbox_problem`)."""
    return sandbox_problem(data_dir, settings) is None


def decide_sandbox(settings: Settings) -> str | None:
    """At start-up: the rooms' user, whether they are isolated (``settings.isolated``) and why not
    (returned; ``None`` when they are).  :class:`ValueError` (a sentence for the operator) when the
    server must not start: ``--sandbox on`` where it cannot be, or rooms that would run unsandboxed
    as root without ``--room-user root``."""
    settings.room_uid, settings.room_gid = room_user(settings.room_user)
    settings.room_needs = room_needs(settings)
    problem = "--sandbox off" if settings.sandbox == "off" else sandbox_problem(settings.data_dir, settings)
    settings.isolated = problem is None
    if settings.sandbox == "on" and problem is not None:
        raise ValueError(_("--sandbox on: rooms cannot be sandboxed here: {reason}", reason=problem))
    if problem is not None and settings.room_uid != os.geteuid():
        raise ValueError(
            _(
                "serve-ssh runs as root: its rooms run only in the sandbox, as an unprivileged user, "
                "and here they cannot ({reason}). Run the server as an ordinary user, or give "
                "--room-user root to run rooms as root (trusted players only).",
                reason=problem,
            )
        )
    return problem
