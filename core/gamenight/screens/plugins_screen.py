"""What every plugin added, and what failed (the in-app ``gamenight plugins``)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from gamenight.i18n import _
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar


class PluginsScreen(Screen):
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
            adds = ", ".join([*record.games, *record.bots, *record.themes])
            table.add_row(f"{record.name}\n[dim]{record.distribution}[/dim]", record.version, adds,
                          f"[red]{escape(record.error)}[/red]" if record.error else "")
        with VerticalScroll():
            yield Static(table)
            for error in self.app.theme_errors:
                yield Static(f"[red]{_('Theme')}: {escape(error)}[/red]")
        yield KeyBar()
