"""A question with two answers; dismisses with ``True`` (yes) or ``False`` (no)."""

from __future__ import annotations

import dataclasses

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from gamenight.i18n import _
from gamenight.text import safe_text
from gamenight.widgets.key_bar import KeyBar


class YesNoDialog(ModalScreen[bool]):
    """Ask a yes/no question.  ``y``/``n``, Return (the focused button, else yes), Escape (= no) and
    the mouse all work."""

    DEFAULT_CSS = """
    YesNoDialog { align: center middle; }
    YesNoDialog > Vertical {
        width: auto; max-width: 70; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    YesNoDialog Label { width: auto; max-width: 64; margin-bottom: 1; }
    YesNoDialog Horizontal { width: auto; height: auto; }
    YesNoDialog Button { margin: 0 1; min-width: 10; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", _("Yes")),
        Binding("n", "answer(False)", _("No")),
        Binding("escape", "answer(False)", show=False),
        # Return is the first choice even when no button has focus: a browser tab starts the room
        # unfocused, so its first dialog gets none (a focused button takes Return itself).
        Binding("enter", "answer(True)", show=False),
    ]

    def __init__(self, question: str, yes: str | None = None, no: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes or _("Yes")
        self.no_label = no or _("No")
        # the bar says the answers as the buttons do (a question's own words where it has them)
        labels = {"y": self.yes_label, "n": self.no_label}
        table = self._bindings.key_to_bindings
        for key, label in labels.items():
            table[key] = [dataclasses.replace(binding, description=label) for binding in table[key]]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe_text(self.question, multiline=True), id="question", markup=False)
            with Horizontal():
                yield Button(f"{self.yes_label} (y)", id="yes", variant="primary")
                yield Button(f"{self.no_label} (n)", id="no")
        yield KeyBar()  # this question's keys, not those of the screen under it

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
