"""``self.app`` typed as the room (:class:`~gamenight.app.GameNightApp`) on the room's own screens.

Textual types a screen's ``self.app`` as any ``App``, so every ``self.app.registry`` went unchecked (mypy:
``"App[Any]" has no attribute "registry"``).  A screen or widget of the room inherits :class:`InTheRoom`
first (``class LobbyScreen(InTheRoom, Screen)``), and ``self.app`` is the room for a type checker, declared
with Textual's own ``getters.app``.  Only the annotation changes: at run time :class:`InTheRoom` is an empty
class and ``self.app`` is Textual's own property, as before (the room's screens are pushed only by
:class:`~gamenight.app.GameNightApp`).  A game's screens never use this: they know only the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import getters
    from textual.message_pump import MessagePump as _Node

    from gamenight.app import GameNightApp
else:
    _Node = object  # a type checker sees a MessagePump, whose ``app`` this narrows; at run time, nothing


class InTheRoom(_Node):
    """Inherit first, before the Textual base: ``self.app`` is the room's ``GameNightApp``."""

    if TYPE_CHECKING:
        app = getters.app(GameNightApp)
