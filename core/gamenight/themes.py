"""Themes: TOML files holding the arguments of ``textual.theme.Theme``.

Sources, in order: the built-in ``themes/`` folder, themes registered by
plugins, then the user's ``<config dir>/themes/*.toml``.  A broken file is
reported and skipped; it never stops the app.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.theme import Theme

__all__ = ["ThemeSet", "builtin_theme_dir", "load_themes", "theme_from_mapping"]

DEFAULT_THEME = "gamenight"
SIXTEEN_COLOUR_THEME = "gamenight-16"


def builtin_theme_dir() -> Path:
    """The shipped themes: ``<prefix>/share/gamenight/themes`` or the checkout's ``themes/``."""
    checkout = Path(__file__).resolve().parents[2] / "themes"
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "gamenight" / "themes"


def theme_from_mapping(data: Mapping[str, Any], origin: str) -> Theme:
    """Build a Theme; raises ``ValueError`` naming ``origin`` and the problem."""
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ValueError(f"{origin}: a theme needs a 'name'")
    if not isinstance(data.get("primary"), str):
        raise ValueError(f"{origin}: a theme needs a 'primary' colour")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError(f"{origin}: 'variables' must be a table of colour strings")
    try:
        theme = Theme(**dict(data))
        theme.to_color_system()  # parses every colour now, not at first use
    except TypeError as error:
        raise ValueError(f"{origin}: unknown or missing theme key ({error})") from None
    except Exception as error:
        raise ValueError(f"{origin}: {error}") from None
    return theme


@dataclass
class ThemeSet:
    """Loaded themes by name, and the problems met while loading."""

    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _read(path: Path) -> Mapping[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def load_themes(sources: Iterable[Path | str | Mapping[str, Any]], user_dir: Path | None = None) -> ThemeSet:
    """Load the built-in themes, then ``sources`` (from plugins), then ``user_dir``."""
    result = ThemeSet()
    ordered: list[Path | str | Mapping[str, Any]] = sorted(builtin_theme_dir().glob("*.toml"))
    ordered.extend(sources)
    if user_dir is not None and user_dir.is_dir():
        ordered.extend(sorted(user_dir.glob("*.toml")))
    for source in ordered:
        origin = str(source.get("name", "<plugin theme>")) if isinstance(source, Mapping) else str(source)
        try:
            data = source if isinstance(source, Mapping) else _read(Path(source))
            theme = theme_from_mapping(data, origin)
        except (OSError, tomllib.TOMLDecodeError, ValueError) as error:
            result.errors.append(str(error) if isinstance(error, ValueError) else f"{origin}: {error}")
            continue
        result.themes[theme.name] = theme
    return result
