"""The room's command line (``gamenight [options] [GAME [SAVE]]``): its own module, so that
``serve-ssh``'s room template can build it in its warm-up without importing the command
(:mod:`gamenight.cli`, which imports the SSH server: an import cycle)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gamenight import __version__

__all__ = ["SIXTEEN_COLOUR_THEME", "room_parser"]

SIXTEEN_COLOUR_THEME = "gamenight-16"
"""The theme for a terminal of 16 colours (``--theme gamenight-16``): named here, where the
SSH server can read it without importing the themes (and Textual)."""


def room_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamenight",
        description="A terminal game room. Other commands: gamenight plugins | arena | records | replay | serve-ssh | "
        "serve-web "
        "(each has --help).",
    )
    parser.add_argument("game", nargs="?", help="start this game's setup (e.g. yatzy)")
    parser.add_argument("save", nargs="?", type=Path, help="resume this save file")
    parser.add_argument("--saves", type=Path, help="folder for save files")
    parser.add_argument("--config", type=Path, help="config file (default: the user config dir)")
    parser.add_argument("--theme", help="theme name (gamenight, gamenight-16, gamenight-contrast, ...)")
    parser.add_argument("--lang", choices=("en", "ja"), help="language (default: config, then environment)")
    parser.add_argument("--bot-delay", type=float, help="seconds a bot's move stays visible")
    parser.add_argument(
        "--tables-socket",
        metavar="PATH",
        help="shared tables on this machine (development): join the table service on PATH, "
        "or serve one there if none runs",
    )
    parser.add_argument("--version", action="version", version=f"gamenight {__version__}")
    return parser
