"""The room's command line: the first stage (:mod:`gamenight.ssh.launch`), in namespaces when isolated.

Where the system allows it, each room runs in user, mount and PID namespaces
that hide everything of the data dir but the user's own folder.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from gamenight.room_args import SIXTEEN_COLOUR_THEME
from gamenight.ssh.settings import Settings
from gamenight.ssh.template import SessionSettings

__all__ = ["LAUNCH", "SANDBOX_PREFIX", "UNSHARE", "build_command", "room_arguments", "room_settings", "sandbox_works"]

LAUNCH = Path(__file__).with_name("launch.py")
UNSHARE = [
    "unshare",
    "--user",
    "--map-current-user",
    "--mount",
    "--propagation",
    "private",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--",
]
"""New user, mount and PID namespaces with their own /proc; the room dies with ``unshare``."""
SANDBOX_PREFIX = ["setsid", "--ctty", *UNSHARE]
"""``setsid --ctty`` makes the pty the controlling terminal of the new session first."""


def first_stage(*options: str) -> list[str]:
    """``python -I -S launch.py OPTIONS --``: the room's argv follows."""
    return [sys.executable, "-I", "-S", str(LAUNCH), *options, "--"]


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
    ``--command`` with ``{user_dir}``, ``{saves}``, ``{config}`` and ``{colours}`` filled in."""
    memory = ["--memory", str(settings.room_memory * 1024 * 1024)] if settings.room_memory > 0 else []
    if settings.isolated:
        launcher = [*SANDBOX_PREFIX, *first_stage(*memory, "--hide", str(settings.data_dir), str(home))]
    else:
        launcher = first_stage("--ctty", *memory)
    if settings.command is None:
        return [*launcher, sys.executable, "-m", "gamenight", *room_arguments(settings, home, depth)]
    return launcher + room_arguments(settings, home, depth)


def room_settings(settings: Settings, home: Path, depth: str, env: dict[str, str]) -> SessionSettings:
    """What a room forked by the template needs (:mod:`gamenight.ssh.template`): the same room,
    memory cap and isolation as :func:`build_command` gives a spawned one."""
    return SessionSettings(
        room_arguments(settings, home, depth),
        env,
        str(home),
        memory=settings.room_memory * 1024 * 1024 if settings.room_memory > 0 else 0,
        hide=(str(settings.data_dir), str(home)) if settings.isolated else None,
        execute=settings.command is not None,
    )


def sandbox_works(data_dir: Path) -> bool:
    """Whether rooms can be isolated here (util-linux ``setsid``/``unshare``, user, mount and PID
    namespaces open to this user)."""
    if not (shutil.which("setsid") and shutil.which("unshare")):
        return False
    users = data_dir / "users"
    users.mkdir(mode=0o700, exist_ok=True)
    try:
        probe = subprocess.run(
            [*UNSHARE, *first_stage("--hide", str(data_dir), str(users), "--probe"), "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0
