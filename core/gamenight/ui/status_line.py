"""A table's bottom line: the last message (errors in red) and the thinking indicator."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from gamenight.text import safe_text

__all__ = ["SPINNER", "StatusLine"]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
"""The frames of the thinking indicator's spinner."""


class StatusLine(Horizontal):
    """The bottom line: the last message (errors in red) and the thinking indicator."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; }
    StatusLine #message { width: 1fr; padding: 0 1; }
    StatusLine #message.error { color: $text-error; text-style: bold; }
    StatusLine #message.chat { text-wrap: nowrap; text-overflow: ellipsis; }
    StatusLine #thinking { width: auto; padding: 0 1; color: $text-accent; }
    """

    def __init__(self, *children: Any, **options: Any) -> None:
        super().__init__(*children, **options)
        self._indicator = ""
        """The thinking indicator's text as last shown."""

    def compose(self) -> ComposeResult:
        yield Static("", id="message", markup=False)
        yield Static("", id="thinking")

    def show(self, text: str, error: bool = False, chat: bool = False) -> None:
        """Show ``text`` (made safe: it may quote a plugin or a file); errors are highlighted.

        A ``chat`` line is not wrapped but cut with "…" at the line's end: wrapped, a line of one
        long word (or of wide characters) went below the one line shown, leaving only "name:".
        The whole line is in the table's chat log.
        """
        message = self.query_one("#message", Static)
        message.update(safe_text(text), layout=False)  # one line, as wide as the indicator leaves: no reflow
        message.set_class(error, "error")
        message.set_class(chat, "chat")

    def thinking(self, text: str) -> None:
        """Show (or with ``""`` hide) the thinking indicator.

        The same text again draws nothing, and a new text as wide as the old one
        repaints only the indicator: a spinner's turn must not lay out the whole
        screen (it did, 8 times a second, in every room waiting at a shared table).
        """
        if text == self._indicator:
            return
        width_changed = cell_len(text) != cell_len(self._indicator)
        self._indicator = text
        self.query_one("#thinking", Static).update(text, layout=width_changed)
