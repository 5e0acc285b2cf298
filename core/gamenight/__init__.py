"""gamenight: a terminal game room built on Textual, where every game is a plugin.

Plugin authors import from one place, :mod:`gamenight.sdk` (the game, rules,
view and bot contract, the screen kit, registering) and test with
:mod:`gamenight.sdk.testing`.  For plugins written before that, every public
name of the SDK is also reachable here (``from gamenight import GameInfo`` is
``gamenight.sdk.GameInfo``): there is no second list to keep, the SDK's
``__all__`` is the list.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below are imported on first use (see __getattr__)
    from gamenight.sdk import *  # noqa: F403

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """A public name of :mod:`gamenight.sdk`, imported when it is first used.

    ``import gamenight.app`` then does not pay for pluggy and the SDK before
    the room's first frame; ``from gamenight import GameInfo`` works as ever.
    """
    if name.startswith("__"):
        raise AttributeError(f"module 'gamenight' has no attribute {name!r}")
    sdk = importlib.import_module("gamenight.sdk")
    if name not in sdk.__all__:
        raise AttributeError(f"module 'gamenight' has no attribute {name!r} (a plugin imports from gamenight.sdk)")
    value = getattr(sdk, name)
    globals()[name] = value
    return value
