"""What every plugin added, and what failed (the in-app ``gamenight plugins``)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from gamenight.i18n import _
from gamenight.screens.room import InTheRoom
from gamenight.text import safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar


class PluginsScreen(InTheRoom, Screen):
    """A table of plugins, then theme problems."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", _("Back"))]

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)

    def compose(self) -> ComposeResult:
        table = Table(expand=True)
        for column in (_("Plugin"), _("Version"), _("Adds"), _("Error")):
            table.add_column(column, overflow="fold")
        for record in self.app.registry.plugins:
            # Everything here comes from installed packages: plain text, made safe, never markup.
            adds = ", ".join([*record.games, *record.bots, *record.themes])
            table.add_row(
                Text.assemble(safe_text(record.name), "\n", (safe_text(record.distribution), "dim")),
                Text(safe_text(record.version)),
                Text(safe_text(adds)),
                Text(safe_text(record.error, multiline=True), style="red") if record.error else "",
            )
        with VerticalScroll():
            yield Static(table)
            for error in self.app.theme_errors:
                yield Static(Text(f"{_('Theme')}: {safe_text(error, multiline=True)}", style="red"))
            for notice in self.app.theme_notices:
                yield Static(Text(f"{_('Theme')}: {safe_text(notice, multiline=True)}", style="yellow"))
        yield KeyBar()
