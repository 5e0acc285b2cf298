"""gamenight: a terminal game room built on Textual, where every game is a plugin.

Plugin authors start with :mod:`gamenight.sdk` (the game, rules, view and bot
contract) and :mod:`gamenight.hookspecs` (how to register).  Both are
re-exported here.
"""

from gamenight.hookspecs import hookimpl
from gamenight.i18n import translator
from gamenight.sdk import (
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
