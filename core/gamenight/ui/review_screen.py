"""The review of a finished game, in the room: every person decision against the game's coach.

It shows what :func:`gamenight.coach.review` computes (the same figures as ``gamenight
review FILE``): each person seat's total cost and accuracy at the top, then one row per
decision -- the move's number, who, the action in words, its cost against the best and the
coach's choice -- and, under the list, the highlighted decision in full.  ``n`` and ``p``
jump to the next and the previous costliest decision (costliest first), Esc closes.

The review runs in a worker thread with a progress bar (a search coach takes seconds a
decision); closing the screen cancels it (the review stops at its next decision).  Opened
from the end dialog of a local game, the records screen's past games and the replay viewer;
from a shared (or hosted solo) table's end dialog, for the player's own decisions only;
review is after the game, so it never marks a game coached.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from gamenight.coach import Decision, Review, ReviewError, game_shown, review
from gamenight.i18n import _, translator
from gamenight.match import Match
from gamenight.replay import Replay
from gamenight.text import safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.coach_text import cost_text, total_cost_text, value_text
from gamenight.widgets.key_bar import KeyBar

__all__ = ["ReviewScreen", "no_coach_message"]


def no_coach_message(game: Any) -> str | None:
    """What to say when ``game`` (a :class:`~gamenight.sdk.GameInfo`) has no coach, else ``None``."""
    if getattr(game, "advisor", None) is not None:
        return None
    return _("{game} has no coach, so there is nothing to review.", game=translator(game.id)(game.title))


class ReviewScreen(Screen[None]):
    """A finished game's review: totals, the decisions and keys to the costliest ones."""

    BINDINGS = [
        Binding("n", "costly(1)", _("Next costly"), tooltip=_("The next costliest decision")),
        Binding("p", "costly(-1)", _("Previous costly"), tooltip=_("The previous costliest decision")),
        Binding("escape,q", "close", _("Back")),
    ]

    DEFAULT_CSS = """
    ReviewScreen #review-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    ReviewScreen #review-progress { height: 1; margin: 1 1 0 1; }
    ReviewScreen #review-totals { height: auto; max-height: 4; padding: 0 1; }
    ReviewScreen #review-list { height: 1fr; border: round $primary; }
    ReviewScreen #review-detail { height: 3; padding: 0 1; }
    """

    def __init__(self, source: Match | Replay, registry: Any = None, seats: list[int] | None = None) -> None:
        """``source``: the match just finished (its current game) or a replay; ``seats``: only these
        person seats' decisions (a shared table's player: their own), else every person seat's."""
        super().__init__()
        self.seats = seats
        translate_bindings(self, _)
        if isinstance(source, Match):  # a copy: the worker must not read a match the room may change
            self._source: Replay | tuple[Any, ...] = (
                source.game,
                list(source.seats),
                dict(source.options),
                source.seed,
                game_shown(source),
                list(source.log),
            )
        else:
            self._source = source
        self.game = source.game
        self.registry = registry
        self.t = translator(self.game.id)
        self.result: Review | None = None
        """The review, once computed."""
        self.error = ""
        """Why the game could not be reviewed (one line), if it could not."""
        self._ranking: list[Decision] = []
        self._rank = -1

    # -- building ------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(_("Review: {game}", game=safe_text(self.t(self.game.title))), id="review-title", markup=False)
        yield ProgressBar(id="review-progress", show_eta=False)
        yield Static(_("The coach is going through the game…"), id="review-totals", markup=False)
        yield OptionList(id="review-list")
        yield Static("", id="review-detail", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#review-list", OptionList).display = False
        message = no_coach_message(self.game)
        if message is not None:
            self._failed(message)
            return
        self.run_worker(self._compute, thread=True, group="review", exclusive=True, exit_on_error=False)

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "review")

    def _compute(self) -> None:
        """In the worker thread: the review, telling the progress bar after each decision."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        app = self.app

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise _Cancelled
            app.call_from_thread(self._progress, done, total)

        source = self._source
        try:
            if isinstance(source, tuple):
                source = Replay(*source)
            result = review(self.registry, source, progress=progress, seats=self.seats)
        except ReviewError as error:
            if not worker.is_cancelled:
                app.call_from_thread(self._failed, str(error))
            return
        except Exception as error:  # a replay that cannot be rebuilt: one line, never a traceback
            if not worker.is_cancelled:
                app.call_from_thread(self._failed, safe_text(f"{type(error).__name__}: {error}", 300))
            return
        if not worker.is_cancelled:
            app.call_from_thread(self._done, result)

    def _progress(self, done: int, total: int) -> None:
        if self.is_attached:
            self.query_one("#review-progress", ProgressBar).update(total=total, progress=done)

    def _failed(self, message: str) -> None:
        if not self.is_attached:
            return
        self.error = message
        self.query_one("#review-progress", ProgressBar).display = False
        self.query_one("#review-totals", Static).update(message)

    def _done(self, result: Review) -> None:
        if not self.is_attached:
            return
        self.result = result
        self._ranking = result.costliest(len(result.decisions))
        self._rank = -1
        self.query_one("#review-progress", ProgressBar).display = False
        self.query_one("#review-totals", Static).update(self.totals_text(result))
        decisions = self.query_one("#review-list", OptionList)
        decisions.display = True
        decisions.add_options(
            Option(self.row(decision), id=str(index)) for index, decision in enumerate(result.decisions)
        )
        if result.decisions:
            decisions.highlighted = 0
            decisions.focus()
        else:
            self.query_one("#review-detail", Static).update(_("No person took a decision in this game."))

    # -- words -----------------------------------------------------------------

    def seat_name(self, seat: int) -> str:
        result = self.result
        names = {entry.seat: entry.name for entry in result.seats} if result else {}
        return safe_text(names.get(seat, str(seat)), 20)

    def totals_text(self, result: Review) -> str:
        """One line a person seat: its total cost and its accuracy."""
        lines = []
        for seat in result.seats:
            accuracy = "—" if seat.accuracy is None else f"{seat.accuracy:.1f}%"
            lines.append(
                _(
                    "{name}: accuracy {accuracy} · total {cost} · best {best} of {counted} that mattered",
                    name=safe_text(seat.name, 20),
                    best=seat.best,
                    counted=seat.counted,
                    cost=total_cost_text(result.unit, seat),
                    accuracy=accuracy,
                )
            )
        return "\n".join(lines)

    def cost_of(self, decision: Decision) -> str:
        """The decision's cost as the coach panel prints it ("best", "−4.2", "−12%")."""
        assert self.result is not None
        return cost_text(self.result.unit, decision.best(), decision.played(), self.t)

    def row(self, decision: Decision) -> Text:
        """A decision in the list: number, who, what; its cost and, when not the best, the coach's."""
        head = _(
            "{number}. {name}: {action}",
            number=decision.number,
            name=self.seat_name(decision.seat),
            action=decision.text,
        )
        cost = self.cost_of(decision)
        if decision.cost > 0:
            tail = _("{cost}  coach: {best}", cost=cost, best=decision.best_text)
            return Text.assemble(head, "\n   ", (tail, "bold"))
        return Text.assemble(head, "\n   ", (cost, "dim"))

    def detail(self, decision: Decision) -> str:
        """The highlighted decision in full: both values in the unit."""
        assert self.result is not None
        best, played = decision.best(), decision.played()
        unit = self.result.unit
        return _(
            "Move {number}: {action} ({value}). The coach: {best} ({best_value}). Cost: {cost}.",
            number=decision.number,
            action=decision.text.rstrip(".。"),
            value=value_text(unit, played, self.t),
            best=decision.best_text.rstrip(".。"),
            best_value=value_text(unit, best, self.t),
            cost=cost_text(unit, best, played, self.t),
        )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.result is None or event.option.id is None:
            return
        decision = self.result.decisions[int(event.option.id)]
        self.query_one("#review-detail", Static).update(self.detail(decision))

    # -- keys ------------------------------------------------------------------

    def highlighted(self) -> Decision | None:
        """The decision the list's cursor is on."""
        decisions = self.query_one("#review-list", OptionList)
        if self.result is None or decisions.highlighted is None:
            return None
        return self.result.decisions[decisions.highlighted]

    def action_costly(self, step: int) -> None:
        """Jump to the next (``1``) or previous (``-1``) decision in order of cost, costliest first."""
        if self.result is None:
            self.notify(self.error or _("The review is not ready yet."), markup=False)
            return
        if not self._ranking:
            self.notify(_("Nothing to jump to: every decision was the best."), markup=False)
            return
        self._rank = max(0, min(len(self._ranking) - 1, self._rank + step))
        decision = self._ranking[self._rank]
        decisions = self.query_one("#review-list", OptionList)
        decisions.highlighted = self.result.decisions.index(decision)
        decisions.scroll_to_highlight(top=True)

    def action_close(self) -> None:
        self.workers.cancel_group(self, "review")
        self.dismiss(None)


class _Cancelled(Exception):
    """The screen closed: stop the review at its next decision."""
