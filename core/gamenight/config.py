"""The user's settings: one TOML file in the user config dir.

::

    [general]
    language = "ja"          # or "en"; unset = from the environment
    theme = "gamenight"
    bot_delay = 0.5          # seconds a bot's move stays visible

    [default]
    player.1 = "You"

    [seven]                  # SEVEN.CMD's own dotted lines
    player.1 = "You"
    player.2 = "Urd"

Reading never fails: a malformed file gives a clear message naming the line
and the app runs on defaults -- and then refuses to write over that file, so
nothing the user typed is lost.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from gamenight.atomic import write_atomic
from gamenight.i18n import _
from gamenight.text import MAX_NAME_CELLS, validate_name

__all__ = ["MAX_NAME_CELLS", "Config", "ConfigError", "default_config_path", "validate_name"]


class ConfigError(Exception):
    """The config cannot be written (for example because the file on disk is malformed)."""


def default_config_path() -> Path:
    """``$GAMENIGHT_CONFIG`` or ``<user config dir>/gamenight/config.toml``."""
    if override := os.environ.get("GAMENIGHT_CONFIG"):
        return Path(override)
    return Path(platformdirs.user_config_dir("gamenight")) / "config.toml"


@dataclass
class Config:
    """Settings as read from ``path``; ``error`` is set when the file was unusable."""

    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """Read the config; never raises (problems land in ``error``/``warnings``)."""
        path = Path(path) if path is not None else default_config_path()
        config = cls(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return config
        except OSError as error:
            config.error = _("Cannot read the config file {path}: {reason}", path=path, reason=error.strerror)
            return config
        try:
            config.data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            config.error = _("The config file {path} is not UTF-8 text; using defaults.", path=path)
        except tomllib.TOMLDecodeError as error:
            # tomllib's message already names the line and column: "... (at line 3, column 9)".
            config.error = _("The config file {path} is malformed: {reason}. Using defaults; the file was "
                             "left as it is.", path=path, reason=error)
        config._check()
        return config

    def _check(self) -> None:
        general = self.data.get("general", {})
        if not isinstance(general, dict):
            self.warnings.append(_("[general] must be a table; ignored."))
            self.data["general"] = {}

    # -- reading -------------------------------------------------------------

    def section(self, name: str) -> dict[str, Any]:
        """A table of the config (empty when missing or not a table)."""
        value = self.data.get(name, {})
        return value if isinstance(value, dict) else {}

    def general(self, key: str, default: Any = None) -> Any:
        """A value from ``[general]``."""
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
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 5:
            self._warn_once(_("[general] bot_delay must be a number of seconds from 0 to 5; using 0.5."))
            return 0.5
        return float(value)

    def _warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def configured_name(self, game_id: str, seat: int) -> str | None:
        """``[game] player.N`` (then ``[default] player.N``), if set and valid."""
        for section_name in (game_id, "default"):
            players = self.section(section_name).get("player", {})
            if not isinstance(players, dict):
                continue
            name = players.get(str(seat + 1))
            if name is None:
                continue
            problem = validate_name(name)
            if problem is None:
                return name
            self._warn_once(_("[{section}] player.{number}: {problem} Using the default name.",
                              section=section_name, number=seat + 1, problem=problem))
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
        """Set ``[general] key``."""
        self.data.setdefault("general", {})[key] = value

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

    def save(self) -> None:
        """Write the config atomically; refuses when the file on disk was malformed."""
        if self.error is not None:
            raise ConfigError(_("Not saved: the config file has an error to fix first. {error}", error=self.error))
        write_atomic(self.path, tomli_w.dumps(self.data))
