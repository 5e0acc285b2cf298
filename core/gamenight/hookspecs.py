"""The pluggy hooks a gamenight plugin may implement (project name ``gamenight``).

Every hook takes a ``register`` callback, in the style of ``llm``: the hooks
can gain keyword arguments later without breaking older plugins.  A plugin
module looks like::

    from gamenight.hookspecs import hookimpl

    @hookimpl
    def register_games(register):
        register(GAME_INFO)

and is announced in its ``pyproject.toml``::

    [project.entry-points.gamenight]
    mygame = "mygame_package.plugin"
"""

from __future__ import annotations

import pluggy

PROJECT = "gamenight"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["PROJECT", "hookimpl", "hookspec"]


@hookspec
def register_games(register) -> None:
    """Call ``register(game_info)`` once for every :class:`gamenight.sdk.GameInfo` you add."""


@hookspec
def register_bots(register) -> None:
    """Call ``register(game_id, bot_spec)`` to add a :class:`gamenight.sdk.BotSpec` to any game.

    This is how a third party ships a stronger bot for a built-in game.
    """


@hookspec
def register_themes(register) -> None:
    """Call ``register(path)`` with a theme TOML file, or ``register(mapping)`` with its table.

    The table holds the arguments of ``textual.theme.Theme`` (``name``,
    ``primary``, ``background``, ... and an optional ``variables`` table).
    """
