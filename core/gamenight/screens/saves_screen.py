"""Saved games, newest first; Return resumes one."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gamenight.i18n import _
from gamenight.text import hosted, safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar


class SavesScreen(Screen):
    """Pick a save file to resume."""

    BINDINGS = [Binding("escape", "app.pop_screen", _("Back"))]

    DEFAULT_CSS = """
    SavesScreen #saves-title { dock: top; height: 1; background: $primary; color: $text; padding: 0 1; }
    SavesScreen OptionList { height: 1fr; border: round $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)

    def compose(self) -> ComposeResult:
        # A hosted room's folder is a path on the server (its users' folders): no business of a visitor's.
        title = _("Saved games") if hosted() else _("Saved games in {folder}", folder=safe_text(self.app.saves.folder))
        yield Static(title, id="saves-title", markup=False)
        files = self.app.saves.list()
        options = [
            # Anyone who can write to the folder names these files: plain text, made safe, never markup.
            Option(
                Text(f"{safe_text(path.name):<44} {datetime.fromtimestamp(path.stat().st_mtime):%Y-%m-%d %H:%M}"),
                id=str(path),
            )
            for path in files
        ] or [Option(_("No saved games yet."), disabled=True)]
        yield OptionList(*options)
        yield KeyBar()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            from pathlib import Path

            self.app.pop_screen()
            self.app.resume(Path(event.option.id))
