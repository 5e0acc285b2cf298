"""The user's settings: one TOML file in the user config dir.

::

    [general]
    language = "ja"          # or "en"; unset = from the environment
    theme = "gamenight"
    bot_delay = 0.5          # seconds a bot's move stays visible
    hall_of_fame_name = true # on a server: show my name in its hall of fame (false: "anonymous")

    [coach]
    mode = "warn"            # "off" (only when asked: ?), "warn" (ask before a costly move), "always"
    warn_points = 2.0        # a costly move: at least this many points worse than the best
    warn_chance = 5.0        # ... or this many percentage points less chance to win

    [default]
    player.1 = "You"

    [seven]                  # SEVEN.CMD's own dotted lines
    player.1 = "You"
    player.2 = "Urd"

Reading never fails: a malformed, oversized or over-nested file gives a clear
message (naming the line where TOML says one) and the app runs on defaults --
and then refuses to write over that file, so nothing the user typed is lost.
Every value is checked against the schema (:data:`GENERAL_KEYS`, ``player.N``
names by :func:`gamenight.text.validate_name`, the rule setup uses): a value
that fails gets a warning naming the section and key and the default is used.

Saving (the settings screen) edits the file with ``tomlkit``: only the values
set through :meth:`Config.set_general`, :meth:`Config.set_coach` or :meth:`Config.set_name` since the
last save are written; comments, order, dotted keys and every other line stay
byte for byte.
"""

from __future__ import annotations

import math
import os
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from gamenight.atomic import write_atomic
from gamenight.i18n import LANGUAGES, _
from gamenight.text import MAX_NAME_CELLS, safe_text, shown_path, validate_name
from gamenight.tomlfile import TomlFileError, parse_toml, read_toml

__all__ = [
    "COACH_KEYS",
    "GENERAL_KEYS",
    "MAX_CONFIG_BYTES",
    "MAX_NAME_CELLS",
    "CoachSettings",
    "Config",
    "ConfigError",
    "default_config_path",
    "validate_name",
]


MAX_CONFIG_BYTES = 64 * 1024
"""A larger config file is refused (a hand-written one is a few hundred bytes)."""

MAX_SEATS = 32
"""Highest ``player.N`` read."""

MAX_WARNINGS = 8
"""Warnings shown; past this one line counts the rest (a broken file must not flood the room)."""

MAX_PATH_CHARS = 4096


class ConfigError(Exception):
    """The config cannot be written (for example because the file on disk is malformed)."""


def default_config_path() -> Path:
    """``$GAMENIGHT_CONFIG`` or ``<user config dir>/gamenight/config.toml``."""
    if override := os.environ.get("GAMENIGHT_CONFIG"):
        return Path(override)
    return Path(platformdirs.user_config_dir("gamenight")) / "config.toml"


def _language_problem(value: Any) -> str | None:
    if value not in LANGUAGES:
        return _("must be one of {choices}.", choices=", ".join(f'"{code}"' for code in LANGUAGES))
    return None


def _theme_problem(value: Any) -> str | None:
    if not isinstance(value, str) or not value or len(value) > 64 or safe_text(value) != value:
        return _("must be the name of a theme (text of at most 64 characters).")
    return None


def _delay_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 5:
        return _("must be a number of seconds from 0 to 5.")
    return None


def _path_problem(value: Any) -> str | None:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_PATH_CHARS
        or safe_text(value, MAX_PATH_CHARS) != value
    ):
        return _("must be a folder path (text without control characters).")
    return None


def _flag_problem(value: Any) -> str | None:
    if not isinstance(value, bool):
        return _("must be true or false.")
    return None


GENERAL_KEYS = {
    "language": _language_problem,
    "theme": _theme_problem,
    "bot_delay": _delay_problem,
    "saves": _path_problem,
    "hall_of_fame_name": _flag_problem,
}
"""The schema of ``[general]``: each key and the check of its value (the reason, or ``None``)."""

COACH_MODES = ("off", "warn", "always")


def _coach_mode_problem(value: Any) -> str | None:
    if value not in COACH_MODES:
        return _("must be one of {choices}.", choices=", ".join(f'"{mode}"' for mode in COACH_MODES))
    return None


def _threshold_problem(value: Any) -> str | None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 100
    ):
        return _("must be a number from 0 to 100.")
    return None


COACH_KEYS = {"mode": _coach_mode_problem, "warn_points": _threshold_problem, "warn_chance": _threshold_problem}
"""The schema of ``[coach]`` (see :class:`CoachSettings`)."""


@dataclass(frozen=True)
class CoachSettings:
    """The ``[coach]`` settings: when the coach speaks in a local game, and what counts as a costly move.

    ``mode`` is ``"off"`` (only when asked, with ``?``), ``"warn"`` (asks "Are you sure?" before
    a move that costs at least its unit's threshold) or ``"always"`` (the coach panel stays open
    on every turn).  ``warn_points`` is in points (as Yatzy's expected final score), ``warn_chance``
    in percentage points of a chance to win; an advisor whose unit is an outcome (win, draw, loss)
    warns before any move with a worse outcome than the best.
    """

    mode: str = "off"
    warn_points: float = 2.0
    warn_chance: float = 5.0


def _seat_number(key: str) -> int | None:
    if key.isascii() and key.isdigit() and len(key) <= 2 and str(int(key)) == key and 1 <= int(key) <= MAX_SEATS:
        return int(key)
    return None


@dataclass
class Config:
    """Settings as read from ``path``; ``error`` is set when the file was unusable."""

    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    _changes: dict[tuple[str, ...], Any] = field(default_factory=dict, repr=False)
    _unshown: int = field(default=0, repr=False)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """Read the config; never raises (problems land in ``error``/``warnings``)."""
        path = Path(path) if path is not None else default_config_path()
        config = cls(path)
        try:
            _text, config.data = read_toml(path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            return config
        except TomlFileError as error:
            config.error = _(
                "The config file {path} is malformed: {reason}. Using defaults; the file was left as it is.",
                path=path,
                reason=safe_text(error),
            )
        except (OSError, UnicodeError) as error:
            config.error = _(
                "Cannot read the config file {path}: {reason}",
                path=path,
                reason=getattr(error, "strerror", None) or safe_text(error),
            )
        config._check()
        return config

    def _warn(self, message: str) -> None:
        if message in self.warnings:
            return
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self._unshown += 1

    def _problem(self, where: str, problem: str) -> None:
        self._warn(
            _("{path}: {where}: {problem} Using the default.", path=shown_path(self.path), where=where, problem=problem)
        )

    def _check(self) -> None:
        """Hold ``data`` to the schema: every value that fails is dropped with a warning naming its key."""
        for name in list(self.data):
            section = self.data[name]
            shown = safe_text(name, 40)
            if not isinstance(section, dict):
                self._problem(shown, _("must be a table like [{name}].", name=shown))
                del self.data[name]
            elif name == "general":
                self._check_general(section)
            elif name == "coach":
                self._check_coach(section)
            else:
                self._check_names(name, section)
        if self._unshown:
            self.warnings.append(
                _("{path}: {count} more problems not shown.", path=shown_path(self.path), count=self._unshown)
            )

    def _check_general(self, general: dict[str, Any]) -> None:
        for key in list(general):
            check = GENERAL_KEYS.get(key)
            if check is None:
                self._problem(
                    f"[general] {safe_text(key, 40)}",
                    _("is not a setting (known: {keys}).", keys=", ".join(GENERAL_KEYS)),
                )
                del general[key]
            elif (problem := check(general[key])) is not None:
                self._problem(f"[general] {key}", problem)
                del general[key]

    def _check_coach(self, coach: dict[str, Any]) -> None:
        for key in list(coach):
            check = COACH_KEYS.get(key)
            if check is None:
                self._problem(
                    f"[coach] {safe_text(key, 40)}", _("is not a setting (known: {keys}).", keys=", ".join(COACH_KEYS))
                )
                del coach[key]
            elif (problem := check(coach[key])) is not None:
                self._problem(f"[coach] {key}", problem)
                del coach[key]

    def _check_names(self, name: str, section: dict[str, Any]) -> None:
        shown = safe_text(name, 40)
        players = section.get("player")
        if players is None:
            return
        if not isinstance(players, dict):
            self._problem(f"[{shown}] player", _('must be lines like player.1 = "Name".'))
            del section["player"]
            return
        for key in list(players):
            where = f"[{shown}] player.{safe_text(key, 8)}"
            if _seat_number(key) is None:
                self._problem(where, _("a seat number must be from 1 to {count}.", count=MAX_SEATS))
                del players[key]
            elif (problem := validate_name(players[key])) is not None:
                self._warn(
                    _(
                        "{path}: {where}: {problem} Using the default name.",
                        path=self.path,
                        where=where,
                        problem=problem,
                    )
                )
                del players[key]

    # -- reading -------------------------------------------------------------

    def section(self, name: str) -> dict[str, Any]:
        """A table of the config (empty when missing or not a table)."""
        value = self.data.get(name, {})
        return value if isinstance(value, dict) else {}

    def general(self, key: str, default: Any = None) -> Any:
        """A value from ``[general]`` (already checked against :data:`GENERAL_KEYS`)."""
        return self.section("general").get(key, default)

    @property
    def language(self) -> str | None:
        """The configured language, if any."""
        value = self.general("language")
        return value if isinstance(value, str) else None

    @property
    def theme(self) -> str | None:
        """The configured theme name, if any."""
        value = self.general("theme")
        return value if isinstance(value, str) else None

    @property
    def bot_delay(self) -> float:
        """Seconds a bot's move is held back (0 to 5, default 0.5)."""
        value = self.general("bot_delay", 0.5)
        return 0.5 if _delay_problem(value) else float(value)

    @property
    def hall_of_fame_name(self) -> bool:
        """On a server: show this person's name in its hall of fame (default on; off: "anonymous")."""
        value = self.general("hall_of_fame_name", True)
        return value if isinstance(value, bool) else True

    @property
    def coach(self) -> CoachSettings:
        """The ``[coach]`` settings (each value already checked against :data:`COACH_KEYS`)."""
        coach = self.section("coach")
        default = CoachSettings()
        return CoachSettings(
            mode=str(coach.get("mode", default.mode)),
            warn_points=float(coach.get("warn_points", default.warn_points)),
            warn_chance=float(coach.get("warn_chance", default.warn_chance)),
        )

    def configured_name(self, game_id: str, seat: int) -> str | None:
        """``[game] player.N`` (then ``[default] player.N``), if set and valid."""
        for section_name in (game_id, "default"):
            players = self.section(section_name).get("player", {})
            if not isinstance(players, dict):
                continue
            name = players.get(str(seat + 1))
            if name is not None and validate_name(name) is None:
                return name
        return None

    def seat_names(self, game_id: str, defaults: Sequence[str], seats: int) -> list[str]:
        """Names for ``seats`` seats: the config's, else the game's defaults, else "Player N"."""
        names = []
        for seat in range(seats):
            name = self.configured_name(game_id, seat)
            if name is None:
                name = defaults[seat] if seat < len(defaults) else _("Player {number}", number=seat + 1)
            names.append(name)
        return names

    # -- writing -------------------------------------------------------------

    def set_general(self, key: str, value: Any) -> None:
        """Set ``[general] key`` (written by the next :meth:`save`); ``ValueError`` if the schema refuses it."""
        check = GENERAL_KEYS.get(key)
        problem = _("is not a setting.") if check is None else check(value)
        if problem is not None:
            raise ValueError(f"[general] {key}: {problem}")
        self.data.setdefault("general", {})[key] = value
        self._changes[("general", key)] = value

    def set_coach(self, key: str, value: Any) -> None:
        """Set ``[coach] key`` (written by the next :meth:`save`); ``ValueError`` if the schema refuses it."""
        check = COACH_KEYS.get(key)
        problem = _("is not a setting.") if check is None else check(value)
        if problem is not None:
            raise ValueError(f"[coach] {key}: {problem}")
        self.data.setdefault("coach", {})[key] = value
        self._changes[("coach", key)] = value

    def set_name(self, game_id: str, seat: int, name: str) -> None:
        """Set ``[game] player.N``; raises ``ValueError`` with the reason if invalid."""
        problem = validate_name(name)
        if problem is not None:
            raise ValueError(problem)
        section = self.data.setdefault(game_id, {})
        players = section.get("player")
        if not isinstance(players, dict):
            players = section["player"] = {}
        players[str(seat + 1)] = name
        self._changes[(game_id, "player", str(seat + 1))] = name

    @property
    def unsaved(self) -> dict[tuple[str, ...], Any]:
        """The values set since the last save, by their key path."""
        return dict(self._changes)

    def save(self) -> None:
        """Write the values set since the last save into the file, leaving every other byte as it is.

        The file is read again first (a hand edit made meanwhile is kept) and
        written atomically.  Refuses when the file on disk is malformed.
        """
        if self.error is not None:
            raise ConfigError(_("Not saved: the config file has an error to fix first. {error}", error=self.error))
        import tomlkit

        try:
            text, _data = read_toml(self.path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            text = ""
        except TomlFileError as error:
            raise ConfigError(
                _("Not saved: the config file has an error to fix first. {error}", error=safe_text(error))
            ) from None
        try:
            document = tomlkit.parse(text)
            for keys, value in self._changes.items():
                _set_in(document, keys, value)
            new_text = tomlkit.dumps(document)
            parse_toml(new_text)  # what we write must read back
        except ConfigError:
            raise
        except Exception as error:  # tomlkit refusing what tomllib accepted: say so, write nothing
            raise ConfigError(
                _("Not saved: the config file has an error to fix first. {error}", error=safe_text(error))
            ) from None
        write_atomic(self.path, new_text)
        self._changes.clear()


def _set_in(document: Any, keys: tuple[str, ...], value: Any) -> None:
    """Set ``keys`` in a tomlkit document, keeping its style: an existing line is edited in
    place; a new ``player.N`` becomes a dotted line in its game's table (created at the end)."""
    import tomlkit
    from tomlkit.container import Container
    from tomlkit.items import AbstractTable

    section_name, *rest = keys
    if section_name not in document:
        document.add(section_name, tomlkit.table())
    section = document[section_name]
    if not isinstance(section, MutableMapping):
        raise ConfigError(
            _("Not saved: {where} in the config file is not a table; fix it first.", where=f"[{section_name}]")
        )
    if rest[0] == "player" and len(rest) == 2:
        if "player" in section:
            if not isinstance(section["player"], MutableMapping):
                raise ConfigError(
                    _(
                        "Not saved: {where} in the config file is not a table; fix it first.",
                        where=f"[{section_name}] player",
                    )
                )
            section["player"][rest[1]] = value
        elif isinstance(section, Container | AbstractTable):
            section.add(tomlkit.key(["player", rest[1]]), value)
        else:  # a table in parts ([seven] ... [mille] ... [seven.x]): tomlkit's proxy for it has no add
            section["player"] = {rest[1]: value}
        return
    section[rest[0]] = value
