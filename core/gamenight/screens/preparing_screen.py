"""A progress bar while bots prepare (e.g. build a strategy table) before a game."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar

from gamenight.i18n import _, translator
from gamenight.match import Match
from gamenight.sdk import BotSpec


def specs_to_prepare(match: Match) -> list[BotSpec]:
    """The bots of ``match`` that have one-time preparation, each once."""
    ids = dict.fromkeys(seat.bot for seat in match.seats if seat.bot is not None)
    return [spec for spec in (match.game.bot(bot_id) for bot_id in ids) if spec.prepare is not None]


class PreparingScreen(ModalScreen[str | None]):
    """Runs every ``BotSpec.prepare`` of a match in a worker; dismisses with an error or ``None``.

    ``then(error_or_none)`` runs once it is done.  It is called by this screen itself, not as a
    ``push_screen`` result callback: Textual runs those through the message pump that pushed the
    screen, and when that was a screen closing itself (setup's Return, the saves list), the callback
    died with it and the game never opened.
    """

    DEFAULT_CSS = """
    PreparingScreen { align: center middle; }
    PreparingScreen > Vertical {
        width: 60; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    PreparingScreen ProgressBar { margin-top: 1; }
    """

    def __init__(self, match: Match, specs: list[BotSpec], then: Callable[[str | None], None] | None = None) -> None:
        super().__init__()
        self.match = match
        self.specs = specs
        self.then = then

    def compose(self) -> ComposeResult:
        t = translator(self.match.game.id)
        names = ", ".join(t(spec.label) for spec in self.specs)
        with Vertical():
            yield Label(_("Preparing {bots} (only the first time)…", bots=names))
            yield ProgressBar(total=100, show_eta=True, id="progress")

    def on_mount(self) -> None:
        self._prepare()

    def _report(self, fraction: float) -> None:
        self.query_one("#progress", ProgressBar).update(progress=max(0.0, min(1.0, fraction)) * 100)

    @work(thread=True, exit_on_error=False)
    def _prepare(self) -> None:
        count = len(self.specs)
        try:
            for index, spec in enumerate(self.specs):
                assert spec.prepare is not None

                def progress(fraction: float, index: int = index) -> None:
                    self.app.call_from_thread(self._report, (index + fraction) / count)

                spec.prepare(self.match.options, progress)
        except Exception as error:
            self.app.call_from_thread(self._finish, f"{type(error).__name__}: {error}")
            return
        self.app.call_from_thread(self._finish, None)

    def _finish(self, error: str | None) -> None:
        self.dismiss(error)
        if self.then is not None:
            self.then(error)
