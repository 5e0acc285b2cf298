"""Ask for one line of text (a save name); dismisses with the text or ``None``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from gamenight.i18n import _
from gamenight.text import safe_text
from gamenight.widgets.key_bar import KeyBar


class PlainInput(Input):
    """An input that drops control, format and bidi characters as they are typed or pasted.

    An RLO or a zero-width space would otherwise be echoed to the terminal
    and reorder or hide what the person sees.
    """

    def replace(self, text: str, start: int, end: int) -> None:
        super().replace(safe_text(text, limit=len(text) + 1), start, end)


class TextPrompt(ModalScreen[str | None]):
    """A one-line prompt; Return accepts, Escape cancels."""

    DEFAULT_CSS = """
    TextPrompt { align: center middle; }
    TextPrompt > Vertical {
        width: 60; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    """

    BINDINGS = [Binding("escape", "cancel", show=False)]

    def __init__(self, question: str, value: str = "", accept: str | None = None) -> None:
        super().__init__()
        self._bindings.key_to_bindings["escape"] = [Binding("escape", "cancel", _("Back"))]  # today's language
        # Return is the Input's own key (not shown); the bar names it too, or "esc Back" looks like the
        # only way out ("Save", "Send": the caller's word for what Return does, else "OK").
        self._bindings.key_to_bindings["enter"] = [Binding("enter", "accept", accept or _("OK"), priority=True)]
        self.question = question
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe_text(self.question), markup=False)
            yield PlainInput(value=safe_text(self.value), id="answer")
        yield KeyBar()  # this prompt's keys, not those of the screen under it

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_accept(self) -> None:
        self.dismiss(self.query_one(PlainInput).value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
