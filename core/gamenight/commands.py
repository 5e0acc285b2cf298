"""Command-palette entries: the room's own and the current game's.

A game's palette commands come from two places, so that a third-party game
gets them without writing any palette code:

* every key of its table -- each binding of the game's screen that the key
  bar shows (``show=True``), and every hidden one that has a ``tooltip`` --
  becomes a command titled with the key's label and the key itself
  ("Draw (d)"); the binding's ``tooltip`` is its help line.  Running it does
  exactly what pressing the key does (the same action on the same node);
* ``GameInfo.commands``, ``(label, help, action)`` triples, for a game whose
  keys are not bindings (Mille reads its keys itself); the action runs on the
  game's screen (``"toggle_scores"`` calls ``action_toggle_scores``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.dom import DOMNode
from textual.screen import Screen

from gamenight.i18n import _, translator

if TYPE_CHECKING:
    from gamenight.app import GameNightApp

__all__ = ["game_key_commands", "system_commands"]

_BASE_ACTIONS = frozenset({"help", "save", "leave"})
"""The game screen's own keys, which the room lists as Rules, Save game and Leave game."""


def system_commands(app: GameNightApp, screen: Screen) -> Iterator[SystemCommand]:
    """The room's commands plus those of the game on ``screen``."""
    from gamenight.ui.game_screen import GameScreen

    yield SystemCommand(_("Settings"), _("Language, theme, bot speed and player names"), app.open_settings)
    if getattr(app, "tables", None) is not None and not isinstance(screen, GameScreen):
        from gamenight.screens.tables_screen import TablesScreen

        if not isinstance(screen, TablesScreen):
            yield SystemCommand(
                _("Shared tables"),
                _("Tables shared with the other people on this server"),
                lambda: app.push_screen(TablesScreen()),
            )
    login = getattr(app, "reconnect_as", "")
    if login:
        from gamenight.dialogs import MessageDialog
        from gamenight.text import reconnect_command

        host = getattr(app, "reconnect_host", "")
        if host:  # the address players reach the server at: the whole command
            way_back = _("Come back with {command}", command=reconnect_command(login, host))
        else:  # never a placeholder host, which a guest would copy as it is
            way_back = _(
                "Next time, log in as {login}: the same ssh command as this time, with that user name.", login=login
            )
        told = getattr(app, "server_notice", "") or way_back
        yield SystemCommand(
            _("Reconnect code"),
            _("How to come back under your name: {login}", login=login),
            lambda: app.push_screen(MessageDialog(_("Reconnect code"), told)),
        )
    if hasattr(app, "open_records"):
        yield SystemCommand(_("Records"), _("Games played, wins, ratings and high scores"), app.open_records)
    if isinstance(screen, GameScreen):
        t = translator(screen.match.game.id)
        yield SystemCommand(_("Rules"), _("Read the rules of this game"), screen.action_help)
        yield SystemCommand(_("Save game"), _("Save the game in progress"), screen.action_save)
        yield SystemCommand(_("Leave game"), _("Back to the lobby"), screen.action_leave)
        for label, help_text, action in screen.match.game.commands:

            async def run(action: str = action) -> None:
                await screen.run_action(action)

            yield SystemCommand(t(label), t(help_text), run)
        yield from game_key_commands(app, screen)


def game_key_commands(app: App, screen: Screen) -> Iterator[SystemCommand]:
    """A palette command for every game key of ``screen`` (see the module's docstring)."""
    from gamenight.ui.game_screen import GameScreen

    if not isinstance(screen, GameScreen):
        return
    # the actions already listed, and each (node, action) of a binding listed (one node's keys, once)
    seen: set[str | tuple[DOMNode, str]] = set(_BASE_ACTIONS)
    seen |= {action for _label, _help, action in screen.match.game.commands}
    for key, active in screen.active_bindings.items():
        node, binding = active.node, active.binding
        if node is app or key == app.COMMAND_PALETTE_BINDING or not binding.description:
            continue  # the room's own keys (Quit, the palette) are Textual's commands already
        if not (binding.show or binding.tooltip) or (node, binding.action) in seen or binding.action in seen:
            continue
        seen.add((node, binding.action))
        shown_key = app.get_key_display(binding)
        title = f"{screen.palette_title(binding)} ({shown_key})"
        help_text = binding.tooltip or _("The same as pressing {key} at the table", key=shown_key)

        async def run(action: str = binding.action, namespace=node) -> None:
            await app.run_action(action, namespace)

        yield SystemCommand(title, help_text, run)
