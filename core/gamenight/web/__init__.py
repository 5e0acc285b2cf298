"""``gamenight serve-web``: the room in a browser, through textual-serve.

Each browser tab that connects gets its own room process (textual-serve
starts the command per websocket and ends it when the tab closes).  What
this adds to plain ``textual serve``: the page works offline (no web font),
keys reach the room without clicking the page first, and the command is the
room of *this* Python with the room options the host gave.

textual-serve has no login: keep it on 127.0.0.1, or put an authenticating
proxy in front; strangers are hosted with ``serve-ssh``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

__all__ = ["main", "room_command"]

TEMPLATES = Path(__file__).with_name("templates")


def room_command(options: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each tab: this Python's room, with the room options."""
    argv = [sys.executable, "-m", "gamenight"]
    for flag in ("saves", "config", "theme", "lang", "bot_delay"):
        value = getattr(options, flag)
        if value is not None:
            argv += ["--" + flag.replace("_", "-"), str(value)]
    if options.game:
        argv.append(options.game)
    return shlex.join(argv)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamenight serve-web",
        description="Serve the room to web browsers (one room per tab). It has no login: keep it on 127.0.0.1.",
    )
    parser.add_argument("game", nargs="?", help="open this game's setup in every tab")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--public-url", help="the address browsers use, behind a proxy (https://games.example.org)")
    parser.add_argument("--saves", type=Path, help="save folder shared by every tab of this server")
    parser.add_argument("--config", type=Path, help="config file")
    parser.add_argument("--theme", help="theme name")
    parser.add_argument("--lang", choices=("en", "ja"), help="language")
    parser.add_argument("--bot-delay", type=float, help="seconds a bot's move stays visible")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not 0 < args.port < 65536:
        print(f"gamenight serve-web: --port must be 1-65535, not {args.port}", file=sys.stderr)
        return 2
    try:
        import textual_serve
        from textual_serve.server import Server
    except ImportError:
        print(
            "gamenight serve-web needs textual-serve: pip install 'gamenight[web]' (or textual-serve)", file=sys.stderr
        )
        return 2
    statics = Path(textual_serve.__file__).with_name("static")
    server = Server(
        room_command(args),
        host=args.host,
        port=args.port,
        title="gamenight",
        public_url=args.public_url,
        statics_path=statics,
        templates_path=TEMPLATES,
    )
    server.serve()
    return 0
