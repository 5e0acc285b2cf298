"""Save files: TOML with a format version, the game, options, seats and the action log.

Loading never trusts the file: it parses, checks every field, then replays
the log through the game's rules.  A corrupt, truncated, tampered (an illegal
move in the log) or future-version file raises :class:`SaveError` with a clear
message; the file itself is never modified.
"""

from __future__ import annotations

import re
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tomli_w

from gamenight.atomic import write_atomic
from gamenight.i18n import _
from gamenight.match import LogEntry, Match, SeatConfig
from gamenight.sdk import IllegalAction

__all__ = ["FORMAT_VERSION", "SaveError", "default_save_name", "load_match", "save_match"]

FORMAT_VERSION = 1
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
    seats = []
    for seat in match.seats:
        entry = {"name": seat.name}
        if seat.bot is not None:
            entry["bot"] = seat.bot
        seats.append(entry)
    return {
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
        "log": [f"{entry.seat} {entry.action}" for entry in match.log],
    }


def save_match(match: Match, path: Path) -> Path:
    """Write ``match`` to ``path`` atomically; returns the path."""
    write_atomic(Path(path), tomli_w.dumps(match_to_document(match)))
    return Path(path)


def _require(document: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in document:
        raise SaveError(_("The save has no '{key}' field.", key=key))
    value = document[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SaveError(_("The save's '{key}' field has the wrong type.", key=key))
    return value


def read_document(path: Path) -> dict[str, Any]:
    """Parse a save file's TOML, turning every failure into :class:`SaveError`."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise SaveError(_("Cannot read {path}: {reason}", path=path, reason=error.strerror)) from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SaveError(_("{path} is not a valid save file: {reason}", path=path, reason=error)) from None


def _numbers(document: dict[str, Any], key: str, count: int) -> list[float]:
    """An optional list of one number per seat (``[]`` when absent)."""
    values = document.get(key, [])
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ) or (values and len(values) != count):
        raise SaveError(_("The save's '{key}' field is malformed.", key=key))
    return [float(v) for v in values]


def load_match(registry, path: Path) -> Match:
    """Load and replay a save; raises :class:`SaveError` with the reason."""
    document = read_document(path)
    version = _require(document, "format", int)
    if version > FORMAT_VERSION:
        raise SaveError(
            _("{path} was written by a newer gamenight (save format {version}); please upgrade.",
              path=path, version=version)
        )
    if version < 1:
        raise SaveError(_("Unknown save format {version}.", version=version))
    game_id = _require(document, "game", str)
    try:
        game = registry.game(game_id)
    except KeyError:
        raise SaveError(_("The save is for the game '{game}', which is not installed.", game=game_id)) from None
    seats = []
    for raw in _require(document, "seats", list):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise SaveError(_("The save's seats are malformed."))
        bot = raw.get("bot")
        if bot is not None and not isinstance(bot, str):
            raise SaveError(_("The save's seats are malformed."))
        if bot is not None and bot not in {spec.id for spec in game.bots}:
            raise SaveError(_("The save uses the bot '{bot}', which is not installed.", bot=bot))
        seats.append(SeatConfig(raw["name"], bot))
    options = _require(document, "options", dict)
    seed = _require(document, "seed", int)
    entries = []
    for number, line in enumerate(_require(document, "log", list), start=1):
        if not isinstance(line, str) or " " not in line:
            raise SaveError(_("Move {number} of the save is malformed.", number=number))
        seat_text, action = line.split(" ", 1)
        try:
            entries.append(LogEntry(int(seat_text), action))
        except ValueError:
            raise SaveError(_("Move {number} of the save is malformed.", number=number)) from None
    totals = _numbers(document, "totals", len(seats))
    wins = _numbers(document, "wins", len(seats))
    games_played = document.get("games_played", 0)
    if not isinstance(games_played, int) or games_played < 0:
        raise SaveError(_("The save's 'games_played' field is malformed."))
    try:
        match = Match(game, seats, dict(options), seed=seed, totals=totals, wins=wins, games_played=games_played)
        match.replay(entries)
    except (ValueError, IllegalAction) as error:
        raise SaveError(_("The save cannot be replayed: {reason}", reason=error)) from None
    return match
