"""Command-palette entries: the room's own and the current game's.

A game lists its commands in ``GameInfo.commands`` as ``(label, help,
action)``; the action runs on the game's screen (``"toggle_scores"`` calls
``action_toggle_scores``).
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import App, SystemCommand
from textual.screen import Screen

from gamenight.i18n import _, translator

__all__ = ["system_commands"]


def system_commands(app: App, screen: Screen) -> Iterator[SystemCommand]:
    """The room's commands plus those of the game on ``screen``."""
    from gamenight.ui.game_screen import GameScreen

    yield SystemCommand(_("Settings"), _("Language, theme, bot speed and player names"), app.open_settings)
    if isinstance(screen, GameScreen):
        t = translator(screen.match.game.id)
        yield SystemCommand(_("Rules"), _("Read the rules of this game"), screen.action_help)
        yield SystemCommand(_("Save game"), _("Save the game in progress"), screen.action_save)
        yield SystemCommand(_("Leave game"), _("Back to the lobby"), screen.action_leave)
        for label, help_text, action in screen.match.game.commands:

            async def run(action: str = action) -> None:
                await screen.run_action(action)

            yield SystemCommand(t(label), t(help_text), run)
