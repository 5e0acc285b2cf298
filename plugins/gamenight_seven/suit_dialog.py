"""The suit choice after a Queen: ♠ ♥ ♣ ♦ by key (s h c d, 1-4) or by mouse.

It sits over the right of the table, clear of the hand on the left, which
stays in view (dimmed) while the player weighs the call.
"""

from __future__ import annotations

from typing import ClassVar

from gamenight.sdk import translator
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from .rules import SUIT_SYMBOLS, SUITS

_ = translator("seven")


class SuitDialog(ModalScreen[int | None]):
    """Ask which suit a Queen calls; dismisses with the suit index, or ``None`` (Escape)."""

    DEFAULT_CSS = """
    SuitDialog { align: right middle; }
    SuitDialog > Vertical {
        width: 44; height: auto; margin-right: 1; padding: 1 2; border: thick $primary; background: $surface;
    }
    SuitDialog Label { width: 100%; margin-bottom: 1; }
    SuitDialog Horizontal { width: auto; height: auto; }
    SuitDialog Button { min-width: 8; width: 8; margin: 0 1 0 0; text-style: bold; }
    SuitDialog Button.red { color: $text-error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"call({index})", show=False) for index, key in enumerate(SUITS.lower())),
        *(Binding(str(index + 1), f"call({index})", show=False) for index in range(4)),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(self, queen: str) -> None:
        super().__init__()
        self.queen = queen

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(_("{queen}: call a suit (s h c d, Escape to choose another card)", queen=self.queen))
            with Horizontal():
                for index, symbol in enumerate(SUIT_SYMBOLS):
                    button = Button(f"{symbol} {SUITS[index].lower()}", id=f"suit-{SUITS[index]}")
                    button.set_class(index in (1, 3), "red")
                    yield button

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(SUITS.index(str(event.button.id)[-1]))

    def action_call(self, suit: int) -> None:
        """Call ``suit``."""
        self.dismiss(suit)

    def action_cancel(self) -> None:
        """Back to the hand without playing the Queen."""
        self.dismiss(None)
