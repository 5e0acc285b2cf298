"""The built-in themes' names, without Textual (the SSH server picks one for a room's argv)."""

from __future__ import annotations

__all__ = ["DEFAULT_THEME", "SIXTEEN_COLOUR_THEME"]

DEFAULT_THEME = "gamenight"
SIXTEEN_COLOUR_THEME = "gamenight-16"
