"""The ``gamenight`` command.

::

    gamenight [--saves DIR] [--config FILE] [--theme NAME] [--lang en|ja] [GAME [SAVE]]
    gamenight plugins [--json]
    gamenight arena GAME --seats BOT,BOT,... --games N --seed S [--option K=V ...] [--json] [--rate [--records DB]]
    gamenight records [--game G] [--player NAME] [--json] [--file DB]
    gamenight replay FILE [--game N] [--theme NAME] [--lang en|ja]
    gamenight review FILE [--game N] [--json] [--time-budget S]
    gamenight serve-ssh [--host H] [--port P] [--data-dir DIR] (--authorized-keys FILE | --guest)
    gamenight serve-web [--host H] [--port P] [room options] [GAME]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.config import Config
from gamenight.i18n import _, detect_language, set_language
from gamenight.paths import default_saves_dir
from gamenight.room_args import room_parser
from gamenight.text import MAX_TEXT_CHARS, safe_text, seat_count

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

__all__ = ["default_saves_dir", "main"]

SUBCOMMANDS = ("plugins", "arena", "records", "replay", "review", "serve-ssh", "serve-web")


def _plain(text: object, limit: int = MAX_TEXT_CHARS) -> Text:
    """Outside text (a plugin's, the command line's) for Rich: no markup, nothing a terminal acts on."""
    from rich.text import Text

    return Text(safe_text(text, limit))


def _headed_column(table: Table, header: str, **options: Any) -> None:
    """A column at least as wide as its header, so the header is never split mid-word."""
    from rich.cells import cell_len

    table.add_column(header, min_width=cell_len(header), overflow="fold", **options)


def _plugins_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gamenight plugins",
        description="List installed plugins. Exits 1 when a plugin failed to load or register.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from gamenight.plugins import load_registry

    registry = load_registry()
    status = 1 if registry.failures else 0
    if args.json:
        print(json.dumps([record.as_json() for record in registry.plugins], ensure_ascii=False, indent=2))
        return status
    console = Console()
    table = Table(title=_("gamenight plugins"))
    for header in (_("Plugin"), _("Distribution"), _("Version"), _("Games"), _("Bots"), _("Themes"), _("Status")):
        _headed_column(table, header)
    for record in registry.plugins:
        cells = [_plain(value, 80) for value in (record.name, record.distribution, record.version)]
        cells.append(_plain(", ".join(record.games), 80))
        cells.append(Text("\n").join(_plain(name, 80) for name in _bot_names(record)[:50]))  # one a line
        cells.append(_plain(", ".join(record.themes), 80))
        table.add_row(*cells, Text(_("failed"), style="bold red") if record.errors else Text(_("ok"), style="green"))
    from rich.measure import Measurement

    if Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width:
        console.print(table)
    else:  # too wide for the terminal (a table would split names and lose its right edge): a block each
        _print_plugin_blocks(console, registry.plugins)
    for record in registry.failures:  # below the table: a whole line each, wrapped between words
        for error in record.errors:
            console.print(Text.assemble((safe_text(record.name, 80), "bold"), ": ", (safe_text(error), "red")))
    return status


def _bot_names(record: Any) -> list[str]:
    """The plugin's bots as the table shows them: those of its one game by their ids, the others as
    ``game:bot`` (``--json`` names every one as ``game:bot``)."""
    own = record.games[0] if len(record.games) == 1 else None
    return [bot.removeprefix(f"{own}:") if own else bot for bot in record.bots]


def _print_plugin_blocks(console: Any, plugins: Sequence[Any]) -> None:
    """The plugins as blocks (a line of name, distribution, version and status, then a line per
    kind of thing it adds), for a terminal too narrow for the table: wrapped between names only."""
    from rich.text import Text

    console.print(Text(_("gamenight plugins"), style="bold"))
    for record in plugins:
        status = Text(_("failed"), style="bold red") if record.errors else Text(_("ok"), style="green")
        head = Text.assemble(
            (safe_text(record.name, 80), "bold"),
            "  ",
            _plain(record.distribution, 80),
            " ",
            _plain(record.version, 80),
            "  ",
            status,
        )
        console.print(head)
        for label, values in (
            (_("Games"), record.games),
            (_("Bots"), _bot_names(record)),
            (_("Themes"), record.themes),
        ):
            if values:
                console.print(Text.assemble("  ", (label, "bold"), ": ", _plain(", ".join(values), 2000)))


def _arena_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="gamenight arena", description="Play a headless series of bot games.")
    parser.add_argument("game")
    parser.add_argument("--seats", required=True, help="comma-separated bot ids, one per seat")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="K=V", help="a game option")
    parser.add_argument(
        "--time-budget", type=float, default=2.0, metavar="S", help="seconds per move for searching bots (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument(
        "--rate",
        action="store_true",
        help="rate the bots from these games (openskill, per game) in the records database, so a person's "
        "first game against a bot starts from its measured strength",
    )
    parser.add_argument(
        "--records", type=Path, metavar="DB", help="the records database --rate writes (default: the user data dir)"
    )
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

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
                raise ValueError(_("--option takes K=V, not {item!r}", item=item))
            options[key.strip()] = value.strip()
        bots = [bot.strip() for bot in args.seats.split(",") if bot.strip()]
        if not game.min_seats <= len(bots) <= game.max_seats:
            raise ValueError(
                _(
                    "{game} takes {seats}, not {count}",
                    game=game.id,
                    seats=seat_count(game.min_seats, game.max_seats),
                    count=len(bots),
                )
            )
        for bot in bots:
            game.bot(bot)
        game.parse_options(options)
        if args.games < 1:
            raise ValueError(_("--{option} must be at least 1", option="games"))
        if args.time_budget <= 0:
            raise ValueError(_("--time-budget must be positive"))
    except (KeyError, ValueError) as error:
        # Everything in the message may come from the command line or a plugin: printed as plain text.
        err.print(Text.assemble("gamenight arena: ", _plain(error.args[0] if error.args else error)), style="red")
        return 2
    with _progress_bar(err) as progress:
        task = progress.add_task(escape(safe_text(game.id, 40)), total=args.games)
        result = run_arena(
            game,
            bots,
            args.games,
            args.seed,
            options,
            progress=lambda done: progress.update(task, completed=done),
            time_budget=args.time_budget,
        )
    ratings = None
    if args.rate:
        try:
            ratings = _rate_bots(game, bots, result, args.records)
        except Exception as error:  # the series is still shown; the ratings are not written
            err.print(Text.assemble("gamenight arena: ", _plain(error)), style="red")
            return 1
    if args.json:
        data = result.as_json()
        if ratings is not None:
            data["ratings"] = [
                {"bot": bot, "mu": mu, "sigma": sigma, "games": games} for bot, mu, sigma, games in ratings
            ]
        print(json.dumps(data))
        return 0
    table = Table(
        title=_plain(
            _(
                "{game}: {games} games, seed {seed}, {rate} games/s",
                game=game.id,
                games=result.games,
                seed=result.seed,
                rate=f"{result.games_per_s:.1f}",
            )
        )
    )
    for column in (_("Seat"), _("Bot"), _("Mean ± 95% CI"), _("Wins"), _("Win rate")):
        _headed_column(table, column, justify="right")
    for seat in result.seats:
        table.add_row(
            str(seat.seat + 1),
            _plain(seat.bot, 80),
            f"{seat.mean:.2f} ± {seat.ci95:.2f}",
            f"{seat.wins:g}",
            f"{seat.win_rate:.1%}",
        )
    Console().print(table)
    from gamenight.records.text import rating_text

    for bot, mu, sigma, games in ratings or ():
        Console().print(
            _plain(_("{bot}: rated {rating} after {games} games", bot=bot, rating=rating_text(mu, sigma), games=games))
        )
    return 0


def _rate_bots(game: Any, bots: Sequence[str], result: Any, path: Path | None) -> list[tuple[str, float, float, int]]:
    """Rate the bots from the arena's games in the records; each bot's (id, mu, sigma, games) now."""
    from gamenight.records.store import RecordsStore, default_records_path

    store = RecordsStore.open(path or default_records_path())
    try:
        store.rate_games(game.id, result.rated_games(bots, {bot.id: bot.label for bot in game.bots}))
        rated = {name: (mu, sigma, games) for kind, name, mu, sigma, games in store.ratings(game.id) if kind == "bot"}
    finally:
        store.close()
    return [(bot, *rated[bot]) for bot in dict.fromkeys(bots)]


def _records_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gamenight records",
        description="Show the records of finished games: played, won, win rate against each bot (95% interval), "
        "scores, streak, ratings, top ten.",
    )
    parser.add_argument("--game", help="only this game (e.g. yatzy)")
    parser.add_argument("--player", help="whose figures (default: the person who played the game most)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (stable keys)")
    parser.add_argument("--file", type=Path, help="the records database (default: the user data dir)")
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.text import Text

    from gamenight.records.stats import game_stats
    from gamenight.records.store import RecordsStore, RecordsUnavailable, default_records_path
    from gamenight.records.text import json_text, records_text

    path = args.file or default_records_path()
    err = Console(stderr=True)
    stats = []
    if path.exists():
        try:
            store = RecordsStore.open_read_only(path)  # it only reads: a damaged file stays as it is
        except RecordsUnavailable as error:
            err.print(Text.assemble("gamenight records: ", _plain(error)), style="red")
            return 1
        games = [args.game] if args.game else store.games_played()
        stats = [game_stats(store, game, args.player) for game in games]
        store.close()
    if args.json:
        print(json_text({"file": str(path), "games": [entry.as_json() for entry in stats]}))
        return 0
    console = Console()
    if not any(entry.records or entry.ratings for entry in stats):
        console.print(_("No games recorded yet."))
        return 0
    titles, bots, names = _game_labels()
    for entry in stats:
        if entry.records or entry.ratings:
            for block in records_text(entry, titles.get(entry.game), bots.get(entry.game, {}), names.get(entry.game)):
                console.print(block)
    return 0


def _game_labels() -> tuple[dict[str, str], dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Each installed game's title, its bots' labels and its default seat names, in the room's language."""
    from gamenight.i18n import translator

    try:
        from gamenight.plugins import load_registry

        registry = load_registry()
    except Exception:  # the figures are shown without titles rather than not at all
        return {}, {}, {}
    titles, bots, names = {}, {}, {}
    for game_id, game in registry.games.items():
        t = translator(game_id)
        titles[game_id] = t(game.title)
        bots[game_id] = {bot.id: t(bot.label) for bot in game.bots}
        names[game_id] = {name: t(name) for name in game.seat_names}
    return titles, bots, names


def _replay_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gamenight replay",
        description="Replay a save file's game on its own screen, read-only: left/right step, Home/End jump, "
        "Space plays and pauses, v chooses whose view, l shows the move log, q leaves.",
    )
    parser.add_argument("file", type=Path, help="a save file (.toml)")
    parser.add_argument(
        "--game",
        type=int,
        metavar="N",
        help="replay the save's N-th game (from 1); without it a save holding several games asks which",
    )
    parser.add_argument("--theme", help="theme name")
    parser.add_argument("--lang", choices=("en", "ja"), help="language (default: config, then environment)")
    parser.add_argument("--config", type=Path, help="config file (default: the user config dir)")
    args = parser.parse_args(argv)
    config = Config.load(args.config)
    set_language(args.lang or detect_language(config.language))
    from gamenight.plugins import load_registry
    from gamenight.replay import Replay, ReplayError

    registry = load_registry()
    number = None if args.game is None else args.game - 1
    try:
        Replay.from_save(registry, args.file, number)  # refused here, before the screen takes the terminal
    except ReplayError as error:
        print(f"gamenight replay: {safe_text(error, 1000)}", file=sys.stderr)
        return 1
    problem = _terminal_problem()
    if problem is not None:  # the replay is a room's screen: it needs a terminal as the room does
        print(problem, file=sys.stderr)
        return 2
    from gamenight.app import GameNightApp

    app = GameNightApp(
        registry=registry,
        config=config,
        theme_name=args.theme,
        start_replay=args.file,
        start_replay_game=number,
    )
    _run_on_the_terminal(app)
    return app.return_code or 0


def _progress_bar(err: Any) -> Any:
    """A progress bar on ``err`` (stderr), shown only when it is a terminal: nothing in a pipe or a log."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def _review_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gamenight review",
        description="Review a save file's game with the game's coach: every decision of every person seat, "
        "its cost against the best, each seat's total cost and accuracy. Exits 2 for a file that cannot be "
        "replayed, 1 when the game has no coach or its coach fails.",
    )
    parser.add_argument("file", type=Path, help="a save file (.toml)")
    parser.add_argument("--game", type=int, metavar="N", help="review the save's N-th game (from 1; default: the last)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (shape: docs/plugins.md)")
    parser.add_argument(
        "--time-budget", type=float, default=1.0, metavar="S", help="seconds per decision for searching coaches"
    )
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.markup import escape

    from gamenight.coach import ReviewError, review
    from gamenight.plugins import load_registry
    from gamenight.replay import Replay, ReplayError

    err = Console(stderr=True)
    if args.time_budget <= 0:
        print("gamenight review: " + _("--time-budget must be positive"), file=sys.stderr)
        return 2
    if args.game is not None and args.game < 1:
        print("gamenight review: " + _("--{option} must be at least 1", option="game"), file=sys.stderr)
        return 2
    registry = load_registry()
    number = None if args.game is None else args.game - 1
    try:
        replay = Replay.from_save(registry, args.file, number)
    except ReplayError as error:
        print(f"gamenight review: {safe_text(error, 1000)}", file=sys.stderr)
        return 2
    with _progress_bar(err) as progress:
        task = progress.add_task(escape(safe_text(replay.game.id, 40)), total=None)
        try:
            result = review(
                registry,
                replay,
                progress=lambda done, total: progress.update(task, completed=done, total=total),
                time_budget=args.time_budget,
            )
        except ReviewError as error:
            print(f"gamenight review: {safe_text(error, 1000)}", file=sys.stderr)
            return 1
    if args.json:
        data = {"file": str(args.file), **result.as_json()}
        print(json.dumps(data, ensure_ascii=False))
        return 0
    _print_review(Console(), result, replay.game.title)
    return 0


def _print_review(console: Any, result: Any, title: str) -> None:
    """The review as text: each person seat's totals, then the costliest decisions."""
    from rich.table import Table

    from gamenight.i18n import translator
    from gamenight.ui.coach_text import cost_text, said, total_cost_text, value_text

    unit = result.unit
    t = translator(result.game)

    def worth(advice: Any) -> str:  # as the coach panel says it: the value, and a label beside a number
        value = value_text(unit, advice, t)
        label = said(advice.label, advice.params, t) if unit.kind != "outcome" else ""
        return f"{value} ({label})" if label else value

    console.print(
        _plain(
            _(
                "{game}, game {number}: the coach's verdict, in {unit}",
                game=t(title),
                number=result.game_number + 1,
                unit=said(unit.label, {}, t),
            )
        )
    )
    if not result.seats:
        console.print(_plain(_("No person played in this game: there is nothing to review.")))
        return
    seats = Table()
    for header in (_("Seat"), _("Decisions"), _("Best moves"), _("Total cost"), _("Accuracy")):
        _headed_column(seats, header, justify="right")
    for seat in result.seats:
        seats.add_row(
            _plain(seat.name, 40),
            str(seat.decisions),
            f"{seat.best}/{seat.counted}",
            total_cost_text(unit, seat),
            "-" if seat.accuracy is None else f"{seat.accuracy:.1f}",
        )
    console.print(seats)
    costly = result.costliest(10)
    if not costly:
        console.print(_plain(_("Every decision was one of the best.")))
        return
    moments = Table(title=_plain(_("The costliest decisions")))
    for header in (_("Step"), _("Seat"), _("Played"), _("Best"), _("Cost")):
        _headed_column(moments, header)
    names = {seat.seat: seat.name for seat in result.seats}
    for decision in costly:
        moments.add_row(
            str(decision.number),
            _plain(names.get(decision.seat, decision.seat), 40),
            _plain(f"{decision.text} ({worth(decision.played())})", 200),
            _plain(f"{decision.best_text} ({worth(decision.best())})", 200),
            cost_text(unit, decision.best(), decision.played(), t),
        )
    console.print(moments)


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


ROOM_VALUE_OPTIONS = frozenset(("--saves", "--config", "--theme", "--lang", "--bot-delay", "--tables-socket"))
"""The room's options that take a value (``--config FILE``): skipped when looking for a command."""


def _command_after_options(argv: Sequence[str]) -> int | None:
    """Where a command (``plugins``, ``records``...) stands after room options, as in
    ``gamenight --config FILE plugins``; None when the first word is not one (a game, or none)."""
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return None
        if word.startswith("-"):
            index += 2 if word in ROOM_VALUE_OPTIONS else 1
            continue
        return index if word in SUBCOMMANDS else None
    return None


def _fd_is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _terminal_problem() -> str | None:
    """Why the room cannot run here, or None: it reads keys from stdin and draws on stderr (or
    stdout), so it needs a terminal there; without one it would wait for keys that never come.
    A driver Textual is given (``serve-web``'s, talking to a browser) needs none."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    if not _fd_is_terminal(0):
        return _("gamenight: the room needs a terminal, and its input is not one.")
    if not (_fd_is_terminal(1) or _fd_is_terminal(2)):
        return _("gamenight: the room needs a terminal, and its output is not one.")
    return None


def _run_on_the_terminal(app: Any) -> None:
    """Run the room; when stderr is not a terminal but stdout is (``gamenight 2>err.log``), the
    room is drawn on stdout's terminal meanwhile (Textual draws on stderr), and stderr is put
    back for what is said after it (config warnings before it went there too)."""
    if _fd_is_terminal(2) or not _fd_is_terminal(1) or os.environ.get("TEXTUAL_DRIVER"):
        app.run()
        return
    sys.stderr.flush()
    kept = os.dup(2)
    try:
        os.dup2(1, 2)
        app.run()
    finally:
        sys.stderr.flush()
        os.dup2(kept, 2)
        os.close(kept)


def _dispatch(command: str, rest: list[str]) -> int:
    return {
        "plugins": _plugins_command,
        "arena": _arena_command,
        "records": _records_command,
        "replay": _replay_command,
        "review": _review_command,
        "serve-ssh": _serve_ssh_command,
        "serve-web": _serve_web_command,
    }[command](rest)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gamenight`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        command, rest = argv[0], argv[1:]
        set_language(detect_language(Config.load().language))
        return _dispatch(command, rest)
    at = _command_after_options(argv)
    if at is not None:  # room options before a command: its language from them; replay takes them too
        before = room_parser().parse_args(argv[:at])
        set_language(before.lang or detect_language(Config.load(before.config).language))
        rest = argv[at + 1 :]
        if argv[at] == "replay":
            rest = argv[:at] + rest
        return _dispatch(argv[at], rest)
    args = room_parser().parse_args(argv)
    config = Config.load(args.config)
    set_language(args.lang or detect_language(config.language))
    config = Config.load(args.config)  # again, so its messages are in the language just chosen
    registry = None
    if args.game is not None:
        from gamenight.plugins import load_registry

        registry = load_registry()
        if args.game not in registry.games:
            known = ", ".join(sorted(registry.games)) or "-"
            print(
                "gamenight: "
                + _("no game {game!r} (installed: {known})", game=safe_text(args.game, 40), known=safe_text(known)),
                file=sys.stderr,
            )
            return 2
    problem = _terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    for message in filter(None, [config.error, *config.warnings]):
        print(safe_text(message, 1000), file=sys.stderr)  # stays readable after the room's screen is gone
    from gamenight.app import GameNightApp

    app = GameNightApp(
        registry=registry,
        config=config,
        saves_dir=args.saves or default_saves_dir(config),
        theme_name=args.theme,
        bot_delay=args.bot_delay,
        start_game=args.game,
        start_save=args.save,
        tables_socket=args.tables_socket,
    )
    _run_on_the_terminal(app)
    return app.return_code or 0
