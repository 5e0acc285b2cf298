"""Covers everything while the terminal is smaller than 80×24."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from gamenight.i18n import _


class TooSmallScreen(ModalScreen[None]):
    """ "Enlarge the window" -- shown by the app on resize, removed when it fits again.

    It swallows keys, so nothing happens to the game underneath meanwhile.
    """

    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; background: $background; }
    TooSmallScreen Static { width: 100%; height: auto; content-align: center middle; text-align: center; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self._update()

    def on_resize(self) -> None:
        self._update()

    def _update(self) -> None:
        width, height = self.app.size
        self.query_one(Static).update(
            _("Please enlarge the window to at least 80×24.\n(It is {width}×{height} now.)", width=width, height=height)
        )

    def on_key(self, event) -> None:
        if event.key not in ("ctrl+q", "ctrl+c"):
            event.stop()
            event.prevent_default()
