"""Save files: TOML with a format version, the game, options, seats and the action logs.

A save holds what decides a session -- the seed, the options, the seats and
the log of every game played at the table (``history``: the finished games
counted in the running totals; ``log``: the game in progress) -- and, for
people reading the file, the running totals, wins and games played.

Loading never trusts the file.  It refuses a file larger than
:data:`MAX_SAVE_BYTES`, checks every field against the schema below, then
replays every game through the rules: each chance outcome must be the one the
seed draws at that point (no stacked deck, no forced dice), each move must be
legal, and the totals, wins and games played must be exactly what the replayed
games give.  Anything else raises :class:`SaveError` with the reason; the file
itself is never modified.

Format 3 gives every finished game its own seed (``seeds``, one per game of
``history``; ``seed`` is the current game's): a shared table draws a fresh
secret seed for each game, so a finished game's save reveals only the seeds of
games already over.  A format 2 save has no ``seeds``: all its games drew from
its one ``seed``, as they did then.  Format 1 (before ``history``) is read when
nothing in it needs the earlier games: its totals must be those of the game in
the file alone.

``coached = true`` (optional, any format) says the coach showed advice in the game in
progress: a hint or a warning.  It is the player's own word about their game, so it is kept
as read; its record then counts for no rating nor high score.
"""

from __future__ import annotations

import math
import re
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tomli_w

from gamenight.atomic import write_atomic
from gamenight.i18n import _, gettext
from gamenight.match import LogEntry, Match, SeatConfig
from gamenight.sdk import GameInfo, IllegalAction
from gamenight.text import safe_text, seat_count, shown_path, validate_name

__all__ = ["FORMAT_VERSION", "MAX_SAVE_BYTES", "SaveError", "default_save_name", "load_match", "save_match"]

FORMAT_VERSION = 3
MAX_SAVE_BYTES = 4 * 1024 * 1024
"""Largest save file read (a long session is a few hundred KB); bigger ones are refused unread."""
MAX_GAMES = 1000
"""Most finished games a save's history may hold."""
MAX_MOVES = 20_000
"""Most log entries one game may hold."""
MAX_ACTION_CHARS = 512
"""Longest action in a log (a shuffled deck is the longest the games write, ~300)."""
MAX_FIELD_CHARS = 64
"""Longest short text field (game id, versions, bot ids, option values)."""
MAX_DISPLAY_KEYS = 16
"""Most entries of a save's ``display`` table (how the table is shown)."""
MAX_SEED = 2**256
"""Seeds are below this (a fresh one has 128 bits; old saves hold small ones, some negative)."""
_LOG_LINE = re.compile(r"(-1|0|[1-9][0-9]{0,2}) (.+)", re.DOTALL)
_KNOWN_FIELDS = frozenset(
    {
        "format",
        "game",
        "plugin_version",
        "saved_at",
        "seed",
        "seeds",
        "games_played",
        "totals",
        "wins",
        "options",
        "seats",
        "history",
        "log",
        "display",
        "table",
        "coached",
    }
)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class SaveError(Exception):
    """A save file that cannot be loaded; the message says why."""


def default_save_name(game_id: str) -> str:
    """``<game>-YYYYmmdd-HHMMSS.toml``, a name that sorts by time."""
    return f"{game_id}-{datetime.now(UTC):%Y%m%d-%H%M%S}.toml"


def safe_file_name(name: str) -> str:
    """A user's save name reduced to a harmless file name ending in ``.toml``."""
    stem = _SAFE_NAME.sub("-", name.strip()).strip(".-") or "save"
    return stem if stem.endswith(".toml") else f"{stem}.toml"


def match_to_document(match: Match) -> dict[str, Any]:
    """The TOML document of ``match``."""
    defaults = _default_names(match.game)
    seats = []
    for seat in match.seats:
        entry = {"name": seat.name}
        if seat.name in defaults:  # shown in the language of whoever resumes it
            entry["default_name"] = defaults[seat.name]
        if seat.bot is not None:
            entry["bot"] = seat.bot
        seats.append(entry)
    document = {
        "format": FORMAT_VERSION,
        "game": match.game.id,
        "plugin_version": match.game.version,
        "saved_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seed": match.seed,
        "games_played": match.games_played,
        "totals": list(match.totals),
        "wins": list(match.wins),
        "options": dict(match.options),
        "seats": seats,
        "history": [_log_lines(log) for log in match.history],
        "seeds": list(match.seeds),
        "log": _log_lines(match.log),
    }
    if match.display:
        document["display"] = dict(match.display)
    if match.table:
        document["table"] = match.table
    if match.coached:  # the coach showed advice in the game in progress (absent: it did not)
        document["coached"] = True
    return document


def _default_names(game: GameInfo) -> dict[str, str]:
    """The game's default seat names in the current language -> their English message ids."""
    return {gettext(name, game.id): name for name in reversed(game.seat_names)}


def _log_lines(log) -> list[str]:
    return [f"{entry.seat} {entry.action}" for entry in log]


def save_match(match: Match, path: Path) -> Path:
    """Write ``match`` to ``path`` atomically; returns the path."""
    write_atomic(Path(path), tomli_w.dumps(match_to_document(match)))
    return Path(path)


def read_document(path: Path) -> dict[str, Any]:
    """Parse a save file's TOML, turning every failure into :class:`SaveError`."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_SAVE_BYTES + 1)
    except OSError as error:
        raise SaveError(_("Cannot read {path}: {reason}", path=shown(path), reason=error.strerror)) from None
    if len(data) > MAX_SAVE_BYTES:
        raise SaveError(
            _(
                "{path} is larger than a save can be ({size} MB at most).",
                path=shown(path),
                size=MAX_SAVE_BYTES // (1024 * 1024),
            )
        )
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as error:
        raise SaveError(
            _("{path} is not a valid save file: {reason}", path=shown(path), reason=safe_text(error, limit=200))
        ) from None
    except RecursionError:
        raise SaveError(_("{path} is not a valid save file: it is nested too deeply.", path=shown(path))) from None


def shown(path: Path | str) -> str:
    """A file path as it may be shown on screen (a file name can hold terminal controls)."""
    return shown_path(path)


# -- the schema -----------------------------------------------------------------


def _field(document: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    """``document[key]`` checked to be a ``kind`` (a bool is not an int); ``default`` when absent and optional."""
    if key not in document:
        if default is None:
            raise SaveError(_("The save has no '{key}' field.", key=key))
        return default
    value = document[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        raise SaveError(_("The save's '{key}' field has the wrong type.", key=key))
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _short_text(document: dict[str, Any], key: str, default: str | None = None) -> str:
    value = _field(document, key, str, default)
    if len(value) > MAX_FIELD_CHARS or not _plain(value):
        raise SaveError(_("The save's '{key}' field is malformed.", key=key))
    return value


def _numbers(document: dict[str, Any], key: str, count: int) -> list[float] | None:
    """One finite, non-negative number per seat, or ``None`` when the field is absent."""
    if key not in document:
        return None
    values = document[key]
    if (
        not isinstance(values, list)
        or len(values) != count
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values)
    ):
        raise SaveError(_("The save's '{key}' field is malformed.", key=key))
    if key == "wins" and any(v < 0 for v in values):
        raise SaveError(_("The save's '{key}' field is malformed.", key=key))
    return [float(v) for v in values]


def _seats(document: dict[str, Any], game: GameInfo) -> list[SeatConfig]:
    raw_seats = _field(document, "seats", list)
    if not game.min_seats <= len(raw_seats) <= game.max_seats:
        raise SaveError(
            _(
                "The save has {count} seats; {game} takes {seats}.",
                count=len(raw_seats),
                game=game.id,
                seats=seat_count(game.min_seats, game.max_seats),
            )
        )
    bots = {spec.id for spec in game.bots}
    seats = []
    for number, raw in enumerate(raw_seats, start=1):
        if not isinstance(raw, dict) or not set(raw) <= {"name", "bot", "default_name"}:
            raise SaveError(_("The save's seats are malformed."))
        problem = validate_name(raw.get("name"))
        if problem is not None:
            raise SaveError(_("Seat {number}'s name in the save is refused: {problem}", number=number, problem=problem))
        name = raw["name"]
        if "default_name" in raw:  # the game's default name: in the language of today, not of the save
            default = raw["default_name"]
            if not isinstance(default, str) or default not in game.seat_names:
                raise SaveError(_("The save's seats are malformed."))
            translated = gettext(default, game.id)
            name = translated if validate_name(translated) is None else default
        bot = _short_text(raw, "bot") if "bot" in raw else None
        if bot is not None and bot not in bots:
            raise SaveError(_("The save uses the bot '{bot}', which is not installed.", bot=bot))
        seats.append(SeatConfig(name, bot))
    return seats


def _options(document: dict[str, Any]) -> dict[str, Any]:
    options = _field(document, "options", dict)
    for key, value in options.items():
        if (
            len(key) > MAX_FIELD_CHARS
            or not isinstance(value, bool | int | str)
            or (isinstance(value, str) and (len(value) > MAX_FIELD_CHARS or not _plain(value)))
        ):
            raise SaveError(_("The save's options are malformed."))
    return dict(options)


def _display(document: dict[str, Any]) -> dict[str, bool | int | str]:
    """How the table was shown: a few short keys with plain values (not part of the game)."""
    display = _field(document, "display", dict, {})
    if len(display) > MAX_DISPLAY_KEYS:
        raise SaveError(_("The save's '{key}' field is malformed.", key="display"))
    for key, value in display.items():
        if (
            len(key) > MAX_FIELD_CHARS
            or not _plain(key)
            or not isinstance(value, bool | int | str)
            or (isinstance(value, str) and (len(value) > MAX_FIELD_CHARS or not _plain(value)))
            or (isinstance(value, int) and not -(2**31) <= value < 2**31)
        ):
            raise SaveError(_("The save's '{key}' field is malformed.", key="display"))
    return dict(display)


def _log(lines: Any, seats: int, game_number: int | None) -> list[LogEntry]:
    """A game's log lines (``"SEAT ACTION"``) as entries; ``game_number`` is ``None`` for the current game."""

    def malformed(number: int) -> SaveError:
        if game_number is None:
            return SaveError(_("Move {number} of the save is malformed.", number=number))
        return SaveError(
            _("Move {number} of game {game} in the save's history is malformed.", number=number, game=game_number + 1)
        )

    if not isinstance(lines, list):
        raise SaveError(_("Game {game} in the save's history is malformed.", game=(game_number or 0) + 1))
    if len(lines) > MAX_MOVES:
        raise SaveError(_("A game in the save has more than {count} moves.", count=MAX_MOVES))
    entries = []
    for number, line in enumerate(lines, start=1):
        found = _LOG_LINE.fullmatch(line) if isinstance(line, str) and len(line) <= MAX_ACTION_CHARS + 4 else None
        if found is None or not _plain(found[2]) or int(found[1]) >= seats:
            raise malformed(number)
        entries.append(LogEntry(int(found[1]), found[2]))
    return entries


def _plain(text: str) -> bool:
    """True when ``text`` holds nothing :func:`safe_text` would drop (printable ASCII is the quick case)."""
    return (text.isascii() and text.isprintable()) or safe_text(text, limit=len(text) + 1) == text


# -- loading ----------------------------------------------------------------------


def load_match(registry, path: Path) -> Match:
    """Load a save, checking every field and replaying every game; raises :class:`SaveError` with the reason."""
    return match_from_document(registry, read_document(path), path)


def match_from_document(registry, document: dict[str, Any], path: Path | str) -> Match:
    """A save's parsed document (read from ``path``, as errors name it) as a match, checked and replayed
    like :func:`load_match` (the table service's stored tables are such documents too)."""
    version = _field(document, "format", int)
    if version > FORMAT_VERSION:
        raise SaveError(
            _(
                "{path} was written by a newer gamenight (save format {version}); please upgrade.",
                path=shown(path),
                version=version,
            )
        )
    if version < 1:
        raise SaveError(_("Unknown save format {version}.", version=version))
    unknown = sorted(
        set(document) - _KNOWN_FIELDS - ({"history"} if version < 2 else set()) - ({"seeds"} if version < 3 else set())
    )
    if unknown:
        raise SaveError(_("The save has an unknown field '{key}'.", key=safe_text(unknown[0], limit=40)))
    game_id = _short_text(document, "game")
    try:
        game = registry.game(game_id)
    except KeyError:
        raise SaveError(_("The save is for the game '{game}', which is not installed.", game=game_id)) from None
    _short_text(document, "plugin_version", "-")
    _short_text(document, "saved_at", "-")
    seats = _seats(document, game)
    options = _options(document)
    display = _display(document)
    coached = _field(document, "coached", bool, False)
    table = _short_text(document, "table", "")
    if table and not (table.isascii() and table.isalnum() and len(table) <= 16):
        raise SaveError(_("The save's '{key}' field is malformed.", key="table"))
    seed = _field(document, "seed", int)
    if not -(2**63) <= seed < MAX_SEED:
        raise SaveError(_("The save's '{key}' field is malformed.", key="seed"))
    games_played = _field(document, "games_played", int, 0)
    if games_played < 0:
        raise SaveError(_("The save's '{key}' field is malformed.", key="games_played"))
    raw_history = _field(document, "history", list, []) if version >= 2 else []
    if len(raw_history) > MAX_GAMES:
        raise SaveError(_("The save's history holds more than {count} games.", count=MAX_GAMES))
    history = [_log(lines, len(seats), number) for number, lines in enumerate(raw_history)]
    seeds = _seeds(document, seed, len(history)) if version >= 3 else [seed] * len(history)
    current = _log(_field(document, "log", list), len(seats), None)
    # Deliberately after the cheap checks: the replay below runs the game's rules.
    totals = _numbers(document, "totals", len(seats))
    wins = _numbers(document, "wins", len(seats))
    try:
        match = Match(game, seats, options, seed=seed)
        _replay_history(match, history, seeds)
        match.seed = seed
        match.replay(current, check_chance=True)
    except (ValueError, IllegalAction) as error:
        raise SaveError(_("The save cannot be replayed: {reason}", reason=safe_text(error, limit=300))) from None
    except Exception as error:  # a plugin's rules failing on strange input must not end the room
        raise SaveError(
            _(
                "The game's rules failed on this save: {reason}",
                reason=safe_text(f"{type(error).__name__}: {error}", limit=300),
            )
        ) from None
    _check_counts(match, version, games_played, totals, wins)
    match.display = display
    match.table = table
    match.coached = coached
    return match


def _seeds(document: dict[str, Any], seed: int, count: int) -> list[int]:
    """The finished games' own seeds: one per game of the history."""
    seeds = _field(document, "seeds", list, [] if count == 0 else None)
    if len(seeds) != count or not all(
        isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < MAX_SEED for value in seeds
    ):
        raise SaveError(_("The save's '{key}' field is malformed.", key="seeds"))
    return seeds


def _replay_history(match: Match, history: list[list[LogEntry]], seeds: list[int]) -> None:
    """Replay and record each finished game from its own seed, so the running totals come from the games themselves."""
    for number, (entries, seed) in enumerate(zip(history, seeds, strict=True), start=1):
        match.seed = seed
        try:
            match.replay(entries, check_chance=True)
        except IllegalAction as error:
            raise IllegalAction(_("game {number} of the history, {error}", number=number, error=error)) from None
        if not match.over:
            raise IllegalAction(_("game {number} of the history did not end.", number=number))
        match.record_result()
        match.start_game()


def _check_counts(
    match: Match, version: int, games_played: int, totals: list[float] | None, wins: list[float] | None
) -> None:
    """The saved totals, wins and games played must be those the replayed games give."""
    earlier = len(match.history)
    if games_played == earlier + 1 and match.over:
        match.record_result()  # saved after the current game ended and was counted
    elif games_played != earlier:
        if version < 2:
            raise SaveError(
                _(
                    "This save was written by an older gamenight (save format 1): its running totals "
                    "over {count} earlier games cannot be checked, so it cannot be resumed.",
                    count=games_played,
                )
            )
        raise SaveError(
            _(
                "The save says {claimed} games were played, but its history holds {count}.",
                claimed=games_played,
                count=earlier,
            )
        )
    for key, saved, derived in (("totals", totals, match.totals), ("wins", wins, match.wins)):
        if saved is not None and saved != derived:
            raise SaveError(
                _(
                    "The save's '{key}' ({saved}) are not what its games give ({derived}).",
                    key=key,
                    saved=_listed(saved),
                    derived=_listed(derived),
                )
            )


def _listed(values: list[float]) -> str:
    return ", ".join(f"{value:g}" for value in values)
