"""The ``gamenight`` command.

::

    gamenight [--saves DIR] [--config FILE] [--theme NAME] [--lang en|ja] [GAME [SAVE]]
    gamenight plugins [--json]
    gamenight arena GAME --seats BOT,BOT,... --games N --seed S [--option K=V ...] [--json]
    gamenight serve-ssh [--host H] [--port P] [--data-dir DIR] (--authorized-keys FILE | --guest)
    gamenight serve-web [--host H] [--port P] [room options] [GAME]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gamenight import __version__
from gamenight.config import Config
from gamenight.i18n import _, detect_language, set_language
from gamenight.paths import default_saves_dir

__all__ = ["default_saves_dir", "main"]

SUBCOMMANDS = ("plugins", "arena", "serve-ssh", "serve-web")


def _room_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamenight",
        description="A terminal game room. Other commands: gamenight plugins | arena | serve-ssh | serve-web "
                    "(each has --help).",
    )
    parser.add_argument("game", nargs="?", help="start this game's setup (e.g. yatzy)")
    parser.add_argument("save", nargs="?", type=Path, help="resume this save file")
    parser.add_argument("--saves", type=Path, help="folder for save files")
    parser.add_argument("--config", type=Path, help="config file (default: the user config dir)")
    parser.add_argument("--theme", help="theme name (gamenight, gamenight-16, gamenight-contrast, ...)")
    parser.add_argument("--lang", choices=("en", "ja"), help="language (default: config, then environment)")
    parser.add_argument("--bot-delay", type=float, help="seconds a bot's move stays visible")
    parser.add_argument("--version", action="version", version=f"gamenight {__version__}")
    return parser


def _plugins_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="gamenight plugins", description="List installed plugins.")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    args = parser.parse_args(argv)
    from gamenight.plugins import load_registry

    registry = load_registry()
    if args.json:
        print(json.dumps([record.as_json() for record in registry.plugins], ensure_ascii=False, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=_("gamenight plugins"))
    for column in (_("Plugin"), _("Distribution"), _("Version"), _("Games"), _("Bots"), _("Themes"), _("Error")):
        table.add_column(column, overflow="fold")
    for record in registry.plugins:
        table.add_row(
            record.name, record.distribution, record.version, ", ".join(record.games),
            ", ".join(record.bots), ", ".join(record.themes),
            f"[red]{record.error}[/red]" if record.error else "",
        )
    Console().print(table)
    return 0


def _arena_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="gamenight arena", description="Play a headless series of bot games.")
    parser.add_argument("game")
    parser.add_argument("--seats", required=True, help="comma-separated bot ids, one per seat")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="K=V", help="a game option")
    parser.add_argument("--time-budget", type=float, default=2.0, metavar="S",
                        help="seconds per move for searching bots (default 2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from gamenight.arena import run_arena
    from gamenight.plugins import load_registry

    err = Console(stderr=True)
    registry = load_registry()
    try:
        game = registry.game(args.game)
        options = {}
        for item in args.option:
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"--option takes K=V, not {item!r}")
            options[key.strip()] = value.strip()
        bots = [bot.strip() for bot in args.seats.split(",") if bot.strip()]
        if not game.min_seats <= len(bots) <= game.max_seats:
            raise ValueError(f"{game.id} takes {game.min_seats}-{game.max_seats} seats, not {len(bots)}")
        for bot in bots:
            game.bot(bot)
        game.parse_options(options)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.time_budget <= 0:
            raise ValueError("--time-budget must be positive")
    except (KeyError, ValueError) as error:
        err.print(f"[red]gamenight arena: {error.args[0] if error.args else error}[/red]")
        return 2
    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task(f"{game.id}", total=args.games)
        result = run_arena(game, bots, args.games, args.seed, options,
                           progress=lambda done: progress.update(task, completed=done), time_budget=args.time_budget)
    if args.json:
        print(json.dumps(result.as_json()))
        return 0
    from rich.table import Table

    table = Table(title=f"{game.id}: {result.games} games, seed {result.seed}, {result.games_per_s:.1f} games/s")
    for column in (_("Seat"), _("Bot"), _("Mean ± 95% CI"), _("Wins"), _("Win rate")):
        table.add_column(column, justify="right")
    for seat in result.seats:
        table.add_row(str(seat.seat + 1), seat.bot, f"{seat.mean:.2f} ± {seat.ci95:.2f}",
                      f"{seat.wins:g}", f"{seat.win_rate:.1%}")
    Console().print(table)
    return 0


def _serve_ssh_command(argv: Sequence[str]) -> int:
    try:
        from gamenight.ssh.server import main as serve_main
    except ImportError as error:
        print(f"gamenight serve-ssh is not available: {error}", file=sys.stderr)
        return 2
    return serve_main(list(argv))


def _serve_web_command(argv: Sequence[str]) -> int:
    from gamenight.web import main as serve_web_main

    return serve_web_main(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gamenight`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        command, rest = argv[0], argv[1:]
        set_language(detect_language(Config.load().language))
        return {"plugins": _plugins_command, "arena": _arena_command, "serve-ssh": _serve_ssh_command,
                "serve-web": _serve_web_command}[command](rest)
    args = _room_parser().parse_args(argv)
    config = Config.load(args.config)
    set_language(args.lang or detect_language(config.language))
    from gamenight.app import GameNightApp

    app = GameNightApp(
        config=config,
        saves_dir=args.saves or default_saves_dir(config),
        theme_name=args.theme,
        bot_delay=args.bot_delay,
        start_game=args.game,
        start_save=args.save,
    )
    app.run()
    return app.return_code or 0
