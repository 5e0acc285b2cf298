"""A message the player must acknowledge (errors, notices)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from gamenight.i18n import _
from gamenight.text import safe_text
from gamenight.widgets.key_bar import KeyBar


class MessageDialog(ModalScreen[None]):
    """Show ``message`` under ``title`` until OK, Return or Escape."""

    DEFAULT_CSS = """
    MessageDialog { align: center middle; }
    MessageDialog > Vertical {
        width: auto; max-width: 76; height: auto; max-height: 20; padding: 1 2;
        border: thick $error; background: $surface;
    }
    MessageDialog #title { text-style: bold; margin-bottom: 1; }
    MessageDialog #message { width: auto; max-width: 70; margin-bottom: 1; }
    """

    BINDINGS = [Binding("escape", "close", show=False), Binding("enter", "close", show=False)]

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        # in the bar (Return is the focused OK button's), in today's language
        self._bindings.key_to_bindings["escape"] = [Binding("escape", "close", _("Close"))]
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe_text(self.title_text), id="title", markup=False)
            yield Label(safe_text(self.message, multiline=True), id="message", markup=False)
            yield Button(_("OK"), id="ok", variant="primary")
        yield KeyBar()  # this message's keys, not those of the screen under it

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
