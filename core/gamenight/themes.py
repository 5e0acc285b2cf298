"""Themes: TOML files holding the arguments of ``textual.theme.Theme``.

Sources, in order: the built-in ``themes/`` folder, themes registered by
plugins, then the user's ``<config dir>/themes/*.toml``.  Every theme is held
to a schema (:func:`theme_from_mapping`): the file at most 64 KiB and nested
at most 8 levels, only ``Theme``'s keys, each of its type and range, every
colour parsed, and every ``[variables]`` value parsed by Textual's own CSS
parser as the kind of value it stands for.  A theme that fails is reported
(file and key) and skipped; it never stops the app, and selecting it falls
back to the default theme with that message.
"""

from __future__ import annotations

import colorsys
import math
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from textual.color import Color
from textual.theme import Theme

from gamenight.i18n import _
from gamenight.sdk import THEME_VARIABLE_NAME, THEME_VARIABLE_VALUE
from gamenight.text import safe_text
from gamenight.tomlfile import TomlFileError, nesting_depth, read_toml

__all__ = [
    "MAX_THEME_BYTES",
    "ThemeSet",
    "ansi_fallbacks",
    "builtin_theme_dir",
    "check_game_variables",
    "check_variables",
    "load_themes",
    "resolve_game_variables",
    "theme_from_mapping",
]

DEFAULT_THEME = "gamenight"

MAX_THEME_BYTES = 64 * 1024
"""A larger theme file is refused (the shipped ones are under 2 KiB)."""

MAX_THEME_FILES = 100
"""User theme files read (sorted by name); more are reported, not read."""

MAX_VARIABLES = 200

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""A theme name: it becomes a CSS class (``-theme-NAME``) and a choice in the settings."""

_VARIABLE_NAME = THEME_VARIABLE_NAME
_VARIABLE_VALUE = THEME_VARIABLE_VALUE

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_THEME_KEYS = frozenset(f.name for f in fields(Theme))


def builtin_theme_dir() -> Path:
    """The shipped themes: ``<prefix>/share/gamenight/themes`` or the checkout's ``themes/``."""
    checkout = Path(__file__).resolve().parents[2] / "themes"
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "gamenight" / "themes"


def _is_style_variable(name: str) -> bool:
    return name.endswith("-style") or name.endswith("-text-style")


def nearest_ansi(red: int, green: int, blue: int) -> str:
    """The terminal colour (of the 16) that stands for an RGB colour, as Textual spells it (``ansi_red``).

    It keeps what a player reads a colour by: its hue (a dark green felt stays green, not grey) and,
    for greys and very dark or pale colours, its lightness.  A colour as bright as the terminal's
    bright ones (value 0.9 and up) takes the bright variant."""
    hue, saturation, value = colorsys.rgb_to_hsv(red / 255, green / 255, blue / 255)
    if value < 0.15:
        return "ansi_black"
    if saturation < 0.3:
        grey = (
            "black" if value < 0.25 else "bright_black" if value < 0.6 else "white" if value < 0.9 else "bright_white"
        )
        return f"ansi_{grey}"
    name = ("red", "yellow", "green", "cyan", "blue", "magenta")[round(hue * 6) % 6]
    return f"ansi_bright_{name}" if value >= 0.9 else f"ansi_{name}"


def ansi_fallbacks(variables: Mapping[str, str]) -> dict[str, str]:
    """``variables`` for a 16-colour theme (``ansi = true``): every colour given as RGB (``#d03030``,
    ``rgb(…)``, a named web colour) becomes the nearest of the terminal's 16 colours, so a game's
    own colours never come out as 256- or true-colour codes there.  Terminal colours (``ansi_…``),
    ``auto`` colours, text styles and anything that is not a colour are kept as they are."""
    result = dict(variables)
    for name, value in variables.items():
        if _is_style_variable(name) or not isinstance(value, str):
            continue
        text = value.strip()
        if text.startswith(("ansi_", "auto")):
            continue
        try:
            colour = Color.parse(text)
        except Exception:
            continue
        if colour.ansi is not None:
            continue
        result[name] = nearest_ansi(colour.r, colour.g, colour.b)
    return result


def check_variables(variables: Mapping[str, str]) -> str | None:
    """Why one of ``variables`` would break the stylesheet (naming it), or ``None``.

    Each value goes through Textual's CSS parser in a rule of the kind it is
    used in (``text-style`` for ``*-style`` names, a colour otherwise).
    """
    from textual.css.stylesheet import Stylesheet

    if not variables:
        return None
    names = {name: f"v{index}" for index, name in enumerate(variables)}
    sheet = Stylesheet(variables={names[name]: value for name, value in variables.items()})
    sheet.add_source(
        " ".join(
            f"Screen {{ {'text-style' if _is_style_variable(name) else 'color'}: ${key}; }}"
            for name, key in names.items()
        ),
        read_from=("theme", ""),
    )
    try:
        sheet.parse()  # one parse for all: the common case, every value good
        return None
    except Exception:
        pass
    for name, value in variables.items():  # one at a time, to name the bad one
        prop = "text-style" if _is_style_variable(name) else "color"
        sheet = Stylesheet(variables={"v": value})
        sheet.add_source(f"Screen {{ {prop}: $v; }}", read_from=("theme", ""))
        try:
            sheet.parse()
        except Exception:
            kind = _("a text style") if prop == "text-style" else _("a colour")
            return _("variables.{name}: {value!r} is not {kind}", name=name, value=value, kind=kind)
    return None


def _problem(data: Mapping[str, Any]) -> str | None:
    """Why ``data`` is not a usable theme (naming the key), or ``None``."""
    unknown = sorted(str(key) for key in data if key not in _THEME_KEYS)
    if unknown:
        return _("unknown key {key!r}", key=safe_text(unknown[0], 40))
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return _("name: a theme needs a 'name' of letters, digits, '-' and '_' (at most 64)")
    if not isinstance(data.get("primary"), str):
        return _("primary: a theme needs a 'primary' colour")
    for key in _COLOUR_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > 64:
            return _("{key}: must be a colour, as text", key=key)
        try:
            Color.parse(value)
        except Exception:
            return _("{key}: {value!r} is not a colour", key=key, value=safe_text(value, 64))
    for key in ("dark", "ansi"):
        if key in data and not isinstance(data[key], bool):
            return _("{key}: must be true or false", key=key)
    for key in ("luminosity_spread", "text_alpha"):
        value = data.get(key, 0.5)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 <= value <= 1
        ):
            return _("{key}: must be a number from 0 to 1", key=key)
    variables = data.get("variables", {})
    if not isinstance(variables, Mapping):
        return _("variables: must be a table of colour strings")
    if len(variables) > MAX_VARIABLES:
        return _("variables: more than {count} entries", count=MAX_VARIABLES)
    for key, value in variables.items():
        if not isinstance(key, str) or not _VARIABLE_NAME.fullmatch(key):
            return _("variables: {key!r} is not a variable name (a-z, 0-9 and '-')", key=safe_text(key, 40))
        if not isinstance(value, str) or not _VARIABLE_VALUE.fullmatch(value):
            return _("variables.{key}: must be a colour or a text style, as text", key=key)
    return check_variables(variables)


def theme_from_mapping(data: Mapping[str, Any], origin: str) -> Theme:
    """Build a Theme; raises ``ValueError`` naming ``origin``, the key and the problem."""
    if not isinstance(data, Mapping):
        raise ValueError(_("{origin}: a theme must be a table", origin=origin))
    if nesting_depth(data) > 3:
        raise ValueError(_("{origin}: it is nested too deeply", origin=origin))
    problem = _problem(data)
    if problem is not None:
        raise ValueError(f"{origin}: {problem}")
    try:
        theme = Theme(**dict(data))
        theme.to_color_system().generate()  # parses every colour now, not at first use
    except Exception as error:
        raise ValueError(f"{origin}: {safe_text(error)}") from None
    return theme


@dataclass
class ThemeSet:
    """Loaded themes by name, and the problems met while loading."""

    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    """The problem of each theme that did not load, by its name (or its file's stem)."""
    shipped: set[str] = field(default_factory=set)
    """Names of the themes read from the built-in folder."""


def _read(path: Path) -> Mapping[str, Any]:
    try:
        return read_toml(path, MAX_THEME_BYTES)[1]
    except TomlFileError as error:
        raise ValueError(f"{path}: {error}") from None


def _name_of(source: Path | str | Mapping[str, Any], data: Any) -> str:
    if isinstance(data, Mapping) and isinstance(data.get("name"), str):
        return safe_text(data["name"], 64)
    if isinstance(source, Mapping):
        return "<plugin theme>"
    return Path(source).stem


_SHIPPED: dict[tuple[str, int, int], Theme] = {}
"""Built-in themes already read and checked, by (path, mtime in ns, size): a room loads the themes
two or three times (at start, for another config folder, when the games arrive), and a room forked
from ``serve-ssh``'s template (:mod:`gamenight.ssh.template`) finds them loaded.  Only themes that
loaded are kept; a file that changes is read again."""


def _shipped_key(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return (str(path), stat.st_mtime_ns, stat.st_size)


def load_themes(sources: Iterable[Path | str | Mapping[str, Any]], user_dir: Path | None = None) -> ThemeSet:
    """Load the built-in themes, then ``sources`` (from plugins), then ``user_dir``."""
    result = ThemeSet()
    ordered: list[Path | str | Mapping[str, Any]] = [*sorted(builtin_theme_dir().glob("*.toml")), *sources]
    if user_dir is not None and user_dir.is_dir():
        user_files = sorted(user_dir.glob("*.toml"))
        if len(user_files) > MAX_THEME_FILES:
            result.errors.append(
                _("{folder}: only the first {count} theme files are read", folder=user_dir, count=MAX_THEME_FILES)
            )
        ordered.extend(user_files[:MAX_THEME_FILES])
    shipped_dir = builtin_theme_dir()
    for source in ordered:
        origin = safe_text(source.get("name", "<plugin theme>"), 64) if isinstance(source, Mapping) else str(source)
        data: Any = None
        try:
            key = _shipped_key(source) if isinstance(source, Path) and source.parent == shipped_dir else None
            theme = _SHIPPED.get(key) if key is not None else None
            if theme is None:
                data = source if isinstance(source, Mapping) else _read(Path(source))
                theme = theme_from_mapping(data, origin)
                if key is not None:
                    _SHIPPED[key] = theme
            if key is not None:  # a copy: the room may rename its variables (resolve_game_variables)
                theme = replace(theme, variables=dict(theme.variables))
        except (OSError, ValueError) as error:
            message = safe_text(error) if isinstance(error, ValueError) else f"{origin}: {safe_text(error)}"
            result.errors.append(message)
            result.broken.setdefault(_name_of(source, data), message)
            continue
        result.themes[theme.name] = theme
        result.broken.pop(theme.name, None)
        if isinstance(source, Path) and source.parent == shipped_dir:
            result.shipped.add(theme.name)
        else:
            result.shipped.discard(theme.name)
    return result


def check_game_variables(game_id: str, variables: Any, reserved: Iterable[str] = ()) -> str | None:
    """Why a game's ``GameInfo.theme_variables`` cannot be registered, or ``None``.

    Each name must start with ``<game_id>-`` and not be one of ``reserved`` (the
    room's and Textual's own); each value is held to a theme's rules (a colour,
    or a text style for ``*-style`` names), through :func:`check_variables`.
    """
    if not isinstance(variables, Mapping):
        return _("theme_variables: must be a table of colour strings")
    if len(variables) > MAX_VARIABLES:
        return _("theme_variables: more than {count} entries", count=MAX_VARIABLES)
    reserved = set(reserved)
    prefix = f"{game_id}-"
    for key, value in variables.items():
        if (
            not isinstance(key, str)
            or not _VARIABLE_NAME.fullmatch(key)
            or not key.startswith(prefix)
            or key in reserved
        ):
            return _(
                "theme_variables: {key!r} must be named {prefix}… (a-z, 0-9 and '-')",
                key=safe_text(key, 40),
                prefix=prefix,
            )
        if not isinstance(value, str) or not _VARIABLE_VALUE.fullmatch(value):
            return _("theme_variables.{key}: must be a colour or a text style, as text", key=key)
    problem = check_variables(variables)
    return None if problem is None else problem.replace("variables.", "theme_variables.", 1)


def resolve_game_variables(
    theme: Theme, known: Iterable[str], declared: Mapping[str, str], game_ids: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Rename a theme's old unprefixed game variables; find the ones nobody declares.

    ``known`` are the names every theme may set (Textual's and the room's),
    ``declared`` the games' own (``lits-shape-l``).  An old name (``shape-l``)
    that is exactly one game's declared name without its ``<id>-`` prefix is
    renamed in ``theme.variables`` (unless the theme sets the new name too).
    Returns ``(notices, unknown)``: a deprecation notice per renamed name, and
    the names that are neither known nor declared nor an alias.
    """
    known = set(known)
    ids = list(game_ids)
    notices: list[str] = []
    unknown: list[str] = []
    variables = dict(theme.variables)
    for name in list(variables):
        if name in known or name in declared:
            continue
        targets = [f"{game_id}-{name}" for game_id in ids if f"{game_id}-{name}" in declared]
        if len(targets) != 1:
            unknown.append(name)
            continue
        value = variables.pop(name)
        variables.setdefault(targets[0], value)
        notices.append(
            _("{theme}: variables.{old} is deprecated; name it {new}", theme=theme.name, old=name, new=targets[0])
        )
    if notices:
        theme.variables = variables
    return notices, unknown
