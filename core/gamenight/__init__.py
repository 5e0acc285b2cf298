"""gamenight: a terminal game room built on Textual, where every game is a plugin.

Plugin authors start with :mod:`gamenight.sdk` (the game, rules, view and bot
contract) and :mod:`gamenight.hookspecs` (how to register).  Both are
re-exported here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below are imported on first use (see __getattr__)
    from gamenight.hookspecs import hookimpl
    from gamenight.i18n import translator
    from gamenight.sdk import (
        API_VERSION,
        CHANCE,
        TERMINAL,
        Action,
        Bot,
        BotContext,
        BotSpec,
        GameInfo,
        IllegalAction,
        Interlude,
        Option,
        Outcome,
        Rules,
        View,
        fill_seat_names,
        seat_token,
    )

__version__ = "0.1.0"

__all__ = [
    "API_VERSION",
    "CHANCE",
    "TERMINAL",
    "Action",
    "Bot",
    "BotContext",
    "BotSpec",
    "GameInfo",
    "IllegalAction",
    "Interlude",
    "Option",
    "Outcome",
    "Rules",
    "View",
    "__version__",
    "fill_seat_names",
    "hookimpl",
    "seat_token",
    "translator",
]

_HOMES = {"hookimpl": "gamenight.hookspecs", "translator": "gamenight.i18n"}


def __getattr__(name: str) -> Any:
    """Import a re-exported name when it is first used.

    ``import gamenight.app`` then does not pay for pluggy and the SDK before
    the room's first frame; ``from gamenight import GameInfo`` works as ever.
    """
    if name not in __all__ or name == "__version__":
        raise AttributeError(f"module 'gamenight' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES.get(name, "gamenight.sdk")), name)
    globals()[name] = value
    return value
