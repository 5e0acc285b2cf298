"""The coach at a local table: the hint panel (``?``) and the warning before a costly move.

It uses nothing of a game but its :class:`~gamenight.sdk.AdvisorSpec` (``GameInfo.advisor``)
and the game screen's words for an action (:meth:`GameScreen.describe_choice`), so a
third-party game with an advisor gets it with no screen code.  A screen with a cursor may
say which action it stands on (:meth:`GameScreen.highlighted_action`): the panel's last
line then says what that choice costs, as the cursor moves.

The advisor runs in a worker thread from the seat's view only (``rules.view(state, seat)``,
as a bot), with a spinner and the advisor's preparation progress in the panel.  Advice is
cached per position (the game, the log's length, the seat) and a computation for a
position the game has left is cancelled.  A search advisor (``AdvisorSpec.exact`` false) is
asked twice: at :data:`FIRST_BUDGET`, shown at once marked "refining…", then at
:data:`ADVICE_BUDGET`, shown in its place.  Once the player has asked for a hint in a game
(or with the ``warn`` mode), each of their turns' advice is computed as the turn starts, in
the background, so that the next ``?`` finds it cached; nothing is marked ``coached`` until
the panel or a warning shows it.  Fairness: no coach at a shared table nor in a
game hosted on a server (their games count for everyone), none in a replay; a local game
in which the coach showed advice -- the panel's figures or a warning -- is marked
``coached`` (kept in its save and its record, where it counts for no rating nor high score).
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rich.cells import cell_len
from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from gamenight.config import CoachSettings
from gamenight.dialogs import YesNoDialog
from gamenight.i18n import _
from gamenight.sdk import Action, Advice, BotContext
from gamenight.text import fit_cells, pad_cells, safe_text
from gamenight.ui.coach_text import checked_advice, cost_text, costly, said, value_text, warning_text

if TYPE_CHECKING:
    from gamenight.match import Match
    from gamenight.ui.game_screen import GameScreen

__all__ = ["CACHED_POSITIONS", "SHOWN_CHOICES", "Coach", "CoachPanel"]

SHOWN_CHOICES = 8
"""Most choices the panel lists, best first (fewer where the screen leaves it fewer rows; the
highlighted one's cost is on its last line)."""
BOTTOM_ROWS = 2
"""The game screen's status line and key bar, which the panel never covers."""
CACHED_POSITIONS = 32
"""Positions whose advice is kept (the newest): going back to one costs nothing."""
ADVICE_BUDGET = 2.0
"""Seconds an advisor is asked to answer within (``BotContext.time_budget``)."""
FIRST_BUDGET = 0.1
"""The budget of a search advisor's first answer (``AdvisorSpec.exact`` false): a first ranking
shown at once, marked "refining…", then the full budget's in its place (bench/RESULTS.md: the
hint's latency)."""

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def _fit(text: str, width: int) -> str:
    """``text`` cut (with "…") or padded to exactly ``width`` cells (wide characters count 2)."""
    return pad_cells(fit_cells(text, width), width)


def _right(text: str, width: int) -> str:
    """``text`` in ``width`` cells, flush right (cut with "…" when longer)."""
    if cell_len(text) > width:
        return _fit(text, width)
    return " " * (width - cell_len(text)) + text


class CoachPanel(Vertical):
    """The coach's panel: over the table's right side, below the title, above the status line.

    It lies on a layer of its own (the table keeps its whole width under it) and is as tall as
    what it lists, so at 80×24 the left part of every table -- hands, boards, score sheets'
    first columns -- stays in view.
    """

    DEFAULT_CSS = """
    CoachPanel {
        layer: coach; dock: right; width: 42; height: auto; max-height: 20; margin: 1 0 0 0;
        display: none; background: $panel; border: round $accent; border-title-align: left;
        border-subtitle-align: right; padding: 0 1;
    }
    CoachPanel.-shown { display: block; }
    CoachPanel Static { height: auto; width: 1fr; }
    CoachPanel #coach-unit { color: $text-muted; text-style: italic; }
    CoachPanel #coach-status { color: $text-accent; }
    CoachPanel #coach-cost { border-top: solid $accent; color: $text; text-style: bold; }
    CoachPanel #coach-reason { color: $text-muted; }
    """

    inner = 38
    """Cells inside the border and the padding."""

    def place(self, top: int, width: int) -> int:
        """Put the panel ``top`` rows below the screen's top edge, ``width`` cells wide, above the
        status line; the rows it may take."""
        width = max(30, min(width, self.screen.size.width))
        self.inner = width - 4  # the border and the padding
        rows = max(8, self.screen.size.height - top - BOTTOM_ROWS)
        top = min(top, max(1, self.screen.size.height - BOTTOM_ROWS - rows))
        if (self.styles.margin.top, self.styles.width, self.styles.max_height) != (top, width, rows):
            self.styles.margin = (top, 0, 0, 0)
            self.styles.width = width
            self.styles.max_height = rows
        return rows

    def compose(self):
        yield Static("", id="coach-unit", markup=False)
        yield Static("", id="coach-status", markup=False)
        yield Static("", id="coach-choices", markup=False)
        yield Static("", id="coach-cost", markup=False)
        yield Static("", id="coach-reason", markup=False)

    def on_mount(self) -> None:
        self.border_title = _("Coach")
        self.border_subtitle = _("? hides")

    def unit(self, text: str) -> None:
        """What the values measure, above them (a game's words: too long for the border)."""
        self.query_one("#coach-unit", Static).update(text)

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def status(self, text: str) -> None:
        status = self.query_one("#coach-status", Static)
        if status.display and text and cell_len(text) == cell_len(str(status.content)):
            status.update(text, layout=False)  # the spinner's next step: the same size, no new layout
            return
        status.display = bool(text)
        status.update(text)

    def choices(self, lines: list[Text]) -> None:
        self.query_one("#coach-choices", Static).update(Text("\n").join(lines) if lines else "")

    def cost(self, text: str, reason: str = "") -> None:
        cost = self.query_one("#coach-cost", Static)
        cost.display = bool(text)
        cost.update(text)
        why = self.query_one("#coach-reason", Static)
        why.display = bool(reason)
        why.update(reason)


class Coach:
    """The coach of one game screen: asks the game's advisor, shows the panel, warns before a move."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen
        self.cache: OrderedDict[tuple[int, int, int], list[Advice]] = OrderedDict()
        self.computing: tuple[int, int, int] | None = None
        """The position whose advice the worker is computing."""
        self.progress: float | None = None
        """How far the advisor's preparation is (0 to 1), while it prepares."""
        self.pending: Action | None = None
        """A move held back until its position's advice is in (mode ``warn``)."""
        self.advisors: dict[int, Any] = {}
        self.computed = 0
        """Advice computations started (a cached position starts none)."""
        self.words: OrderedDict[tuple[int, int, int], dict[Action, str]] = OrderedDict()
        """Each cached position's actions in words (the screen's :meth:`GameScreen.describe_choice`)."""
        self._highlighted: Action | None = None
        self._shown_key: tuple[int, int, int] | None = None
        self._spin = 0
        self._advising = threading.Lock()
        """One advisor call at a time: a cancelled one may still be finishing when the next starts."""
        self.first: tuple[tuple[int, int, int], list[Advice]] | None = None
        """A search advisor's first answer for the position being computed (shown while it refines)."""
        self.asked: set[int] = set()
        """The seats whose player asked for a hint in this game: from then on each of their turns'
        advice is computed as the turn starts (in the background), ready for their next ``?``."""

    # -- when the coach may speak -------------------------------------------------------

    @property
    def settings(self) -> CoachSettings:
        config = getattr(self.screen.app, "config", None)
        settings = getattr(config, "coach", None)
        return settings if isinstance(settings, CoachSettings) else CoachSettings()

    @property
    def spec(self):
        return getattr(self.screen.match.game, "advisor", None)

    def refusal(self) -> str | None:
        """Why there is no hint now (``None``: there can be one)."""
        screen = self.screen
        if screen.remote:
            if getattr(screen.match, "solo", False):
                return _("No hints in a game hosted on the server: its results count for everyone.")
            return _("No hints at a shared table: everyone plays on their own.")
        if screen.in_replay:
            return _("No hints in a replay.")
        if self.spec is None:
            return _("This game has no coach.")
        if screen.match.over:
            return _("The game is over.")
        if not screen.match.human_to_move() or screen.match.to_move() != screen.view_seat:
            return _("The coach advises the player to move: wait for your turn.")
        return None

    def position(self) -> tuple[int, int, int]:
        match = cast("Match", self.screen.match)  # the coach serves local games only (see refusal())
        return (match.games_played, len(match.log), match.to_move())

    # -- the panel ------------------------------------------------------------------------

    @property
    def panel(self) -> CoachPanel:
        return self.screen.query_one(CoachPanel)

    @property
    def active(self) -> bool:
        """True while the advisor thinks or the panel is shown (the screen's timer then ticks the coach)."""
        if self.computing is not None:
            return True
        panels = self.screen.query(CoachPanel)
        return bool(panels) and panels.first().shown

    def toggle(self) -> None:
        """``?``: show the panel (asking the advisor if need be), or hide it; or say why not."""
        if not self.screen.query(CoachPanel):  # a screen that composes without the base class's parts
            self.screen.message(_("This game has no coach."), error=True)
            return
        if self.panel.shown:
            self.panel.set_class(False, "-shown")
            return
        reason = self.refusal()
        if reason is not None:
            self.screen.message(reason, error=True)
            return
        self.asked.add(self.position()[2])
        self.panel.set_class(True, "-shown")
        self.refresh()

    def refresh(self) -> None:
        """The position may have changed: draw the panel for it (asking for advice if need be)."""
        panels = self.screen.query(CoachPanel)
        if not panels:  # not composed (yet, or any more)
            return
        panel = panels.first()
        if self.computing is not None and self.computing != self.position():
            self.cancel()  # the game has left that position: its advice would never be shown
        reason = self.refusal()
        if self.settings.mode == "always" and reason is None and not panel.shown:
            panel.set_class(True, "-shown")
        if not panel.shown:
            if reason is None and (self.settings.mode == "warn" or self.position()[2] in self.asked):
                self.want(self.position())  # ready for the warning before the move, or the next ``?``
            return
        if reason is not None:
            panel.set_class(False, "-shown")
            return
        key = self.position()
        top, width = self.screen.coach_panel_box()
        panel.place(top, width)
        panel.unit(said(self.spec.unit.label, {}, self.screen.t))
        advice = self.cache.get(key)
        if advice is None:
            self.want(key)
            if self.first is not None and self.first[0] == key:  # a first answer in: shown while it refines
                self.draw(key, self.first[1], refining=True)
                return
            panel.choices([])
            panel.cost("")
            self._shown_key = None
            self.tick()
            return
        self.draw(key, advice)

    def advice(self, key: tuple[int, int, int]) -> list[Advice]:
        """Position ``key``'s advice: the full answer when in, else a first answer while it refines."""
        advice = self.cache.get(key)
        if advice is None and self.first is not None and self.first[0] == key:
            return self.first[1]
        return advice or []

    def draw(self, key: tuple[int, int, int], advice: list[Advice], refining: bool = False) -> None:
        """Fill the panel with ``advice`` (``refining``: a first answer, the full one on its way)."""
        panel = self.panel
        unit = self.spec.unit
        t = self.screen.t
        top, width = self.screen.coach_panel_box()
        rows = panel.place(top, width)
        panel.status(self._refining_text() if refining else "" if advice else _("The coach has no advice here."))
        best = advice[0] if advice else None
        unit_line = said(unit.label, {}, t)
        if best is not None and best.samples > 0:  # a search advisor's estimate: say what it rests on
            if best.samples == 1:
                unit_line = _("{unit} · from 1 sample", unit=unit_line)
            else:
                unit_line = _("{unit} · from {samples} samples", unit=unit_line, samples=best.samples)
        panel.unit(unit_line)
        words = self.said(key)
        # Rows for the list: the panel's less its border (2), the unit (1-2), the cost line and why (3).
        room = max(3, min(SHOWN_CHOICES, rows - 7))
        listed: list[Advice] = []
        seen: set[tuple[str | None, float]] = set()
        for entry in advice:  # one line per choice: equal words and worth are one choice
            if (words.get(entry.action), entry.value) not in seen and len(listed) < room:
                seen.add((words.get(entry.action), entry.value))
                listed.append(entry)
        columns = []
        for entry in listed:
            assert best is not None
            value = value_text(unit, entry, t)
            if unit.kind == "outcome":  # the outcome says how much worse: only the best is marked
                cost = _("best") if entry.value == best.value else ""
            else:
                cost = cost_text(unit, best, entry, t)
            columns.append((words.get(entry.action, entry.action), value, cost))
        value_need = max((cell_len(value) for _w, value, _c in columns), default=0)
        words_need = max((cell_len(text) for text, _v, _c in columns), default=0)
        cost_width = min(10, max((cell_len(cost) for _w, _v, cost in columns), default=0))
        gap = "  "
        room = panel.inner - 2 - cost_width - 2 * len(gap)  # for the words and the value
        if words_need + value_need > room:  # one space between the columns before cutting either
            gap = " "
            room += 2
        # The value whole (an outcome such as Mate's "lose in 10, -110" is longer than points) unless
        # the words would keep fewer than 12 cells; then the value keeps 12 at least, cut with "…".
        value_width = value_need
        if words_need + value_need > room:
            value_width = min(value_need, max(12, room - 12))
        words_width = max(6, room - value_width)
        lines = [
            Text(f"{number} {_fit(text, words_width)}{gap}{_right(value, value_width)}{gap}{_right(cost, cost_width)}")
            for number, (text, value, cost) in enumerate(columns, start=1)
        ]
        panel.choices(lines)
        self._shown_key = key
        self._highlighted = None
        self.show_highlighted(force=True)
        if advice:
            self.screen.mark_coached()

    def show_highlighted(self, force: bool = False) -> None:
        """The last line: what the choice under the game's cursor costs (as the cursor moves)."""
        if self._shown_key is None or self._shown_key != self.position():
            return
        action = self.screen.highlighted_action()
        if action == self._highlighted and not force:
            return
        self._highlighted = action
        advice = self.advice(self._shown_key)
        if not advice:
            self.panel.cost("")
            return
        best = advice[0]
        entry = next((entry for entry in advice if entry.action == action), None)
        if entry is None:
            entry, heading = best, _("Best")
        else:
            heading = _("Your choice")
        t = self.screen.t
        unit = self.spec.unit
        words = self.said(self._shown_key).get(entry.action, entry.action)
        cost = cost_text(unit, best, entry, t)
        line = _(
            "{heading}: {choice} · {value} ({cost})",
            heading=heading,
            choice=words,
            value=value_text(unit, entry, t),
            cost=cost,
        )
        self.panel.cost(safe_text(line, 200), said(entry.reason, entry.params, t))

    def said(self, key: tuple[int, int, int]) -> dict[Action, str]:
        """The actions of position ``key``'s advice in words (described once per position)."""
        if key not in self.words:
            self.words[key] = describe_all(self.screen.describe_choice, self.advice(key))
            while len(self.words) > CACHED_POSITIONS:
                self.words.popitem(last=False)
        return self.words[key]

    def tick(self) -> None:
        """The spinner while the advisor thinks (the game screen's timer calls this)."""
        if not self.screen.query(CoachPanel):
            return
        if self.computing is None:
            if self.panel.shown and self._shown_key is not None:
                self.show_highlighted()
            return
        if not self.panel.shown:
            return
        self._spin = (self._spin + 1) % len(_SPINNER)
        if self._shown_key is not None and self._shown_key == self.computing:  # a first answer shown
            self.panel.status(self._refining_text())
            self.show_highlighted()
            return
        text = f"{_SPINNER[self._spin]} {_('The coach is thinking…')}"
        if self.progress is not None:
            text += f" {round(100 * self.progress)}%"
        self.panel.status(text)

    def _refining_text(self) -> str:
        return f"{_SPINNER[self._spin]} {_('A first ranking: refining…')}"

    # -- asking the advisor ---------------------------------------------------------------

    def want(self, key: tuple[int, int, int]) -> None:
        """Have the advice of position ``key`` computed (unless cached or on its way)."""
        if key in self.cache or key == self.computing:
            return
        self.screen.workers.cancel_group(self.screen, "coach")
        self.computing = key
        self.progress = None
        self.first = None
        self.computed += 1
        match = cast("Match", self.screen.match)
        state, seat, options = match.state, key[2], dict(match.options)
        spec = self.spec
        app = self.screen.app
        rng = random.Random(f"{match.seed}:coach:{key[0]}:{key[1]}:{seat}")
        advisors = self.advisors
        lock = self._advising

        def compute() -> None:
            from textual.worker import get_current_worker

            worker = get_current_worker()
            started = time.monotonic()

            def stopped() -> bool:
                return worker.is_cancelled or time.monotonic() - started > 4 * ADVICE_BUDGET

            def progress(fraction: float) -> None:
                app.call_from_thread(self._progress, key, fraction)

            try:
                if spec.prepare is not None:
                    spec.prepare(options, progress)
                rules = match.rules
                if seat not in advisors:
                    advisors[seat] = spec.factory(rules, seat, options)
                view = rules.view(state, seat)  # the seat's view only, as a bot gets
                legal = rules.legal_actions(state)
                if not spec.exact and FIRST_BUDGET < ADVICE_BUDGET and len(legal) > 1:
                    quick = BotContext(
                        seat=seat, rng=random.Random(f"{match.seed}:coach:first:{key[0]}:{key[1]}:{seat}"),
                        options=options, should_stop=stopped, time_budget=FIRST_BUDGET,
                    )  # fmt: skip
                    with lock:
                        if worker.is_cancelled:
                            return
                        first = checked_advice(advisors[seat].advise(view, legal, quick), legal)
                    if worker.is_cancelled:
                        return
                    app.call_from_thread(self._first, key, first)
                context = BotContext(
                    seat=seat, rng=rng, options=options, should_stop=stopped, time_budget=ADVICE_BUDGET
                )
                with lock:
                    if worker.is_cancelled:
                        return
                    advice = checked_advice(advisors[seat].advise(view, legal, context), legal)
            except Exception as error:  # a plugin's advisor failing: said, never raised into the room
                if not worker.is_cancelled:
                    app.call_from_thread(self._failed, key, f"{type(error).__name__}: {error}")
                return
            if not worker.is_cancelled:
                app.call_from_thread(self._done, key, advice)

        self.screen.run_worker(compute, thread=True, group="coach", exclusive=True, exit_on_error=False)

    def _first(self, key: tuple[int, int, int], advice: list[Advice]) -> None:
        """A search advisor's first answer: shown (marked "refining…") while the full one is computed."""
        if key != self.computing or not advice:
            return
        self.first = (key, advice)
        self.words.pop(key, None)
        if self.screen.is_attached and key == self.position() and self.panel.shown:
            self.draw(key, advice, refining=True)

    def _progress(self, key: tuple[int, int, int], fraction: float) -> None:
        if key == self.computing:
            self.progress = min(1.0, max(0.0, float(fraction)))

    def _failed(self, key: tuple[int, int, int], error: str) -> None:
        if key != self.computing:
            return
        self.computing = None
        self.first = None
        pending, self.pending = self.pending, None
        self.screen.message(_("The coach failed: {error}", error=safe_text(error, 200)), error=True)
        if self.panel.shown:
            self.panel.status(_("The coach has no advice here."))
        if pending is not None and key == self.position() and not self.screen.paused:
            self.screen.submit_past_coach(pending)  # a coach that fails holds up no move

    def _done(self, key: tuple[int, int, int], advice: list[Advice]) -> None:
        if key != self.computing:
            return
        self.computing = None
        self.progress = None
        self.first = None
        self.words.pop(key, None)  # said again from the full answer (its ties may differ)
        self.cache[key] = advice
        while len(self.cache) > CACHED_POSITIONS:
            self.cache.popitem(last=False)
        if not self.screen.is_attached:
            return
        if key == self.position() and self.panel.shown:
            self.draw(key, advice)
        self._done_pending(key)

    def cancel(self) -> None:
        """Stop asking (the screen closes, or the game left the position being computed)."""
        self.screen.workers.cancel_group(self.screen, "coach")
        self.computing = None
        self.first = None
        self.pending = None

    # -- the warning before a costly move ---------------------------------------------------

    def holds(self, action: Action) -> bool:
        """True when the coach takes ``action`` over (mode ``warn``): it asks "Are you sure?" first, or
        waits for the position's advice to know whether to ask.  The screen submits nothing then."""
        if self.settings.mode != "warn" or self.refusal() is not None:
            return False
        key = self.position()
        if key not in self.cache:
            self.pending = action
            self.want(key)
            self.screen.message(_("The coach is thinking…"))
            return True
        return self.ask_if_costly(action)

    def _done_pending(self, key: tuple[int, int, int]) -> None:
        pending, self.pending = self.pending, None
        if pending is not None and key == self.position() and not self.screen.paused:
            self.screen.message("")
            if not self.ask_if_costly(pending):
                self.screen.submit_past_coach(pending)

    def ask_if_costly(self, action: Action) -> bool:
        """Ask "Are you sure?" before a costly ``action`` (Yes makes it); True when it asked."""
        key = self.position()
        advice = self.cache.get(key) or []
        entry = next((entry for entry in advice if entry.action == action), None)
        unit = self.spec.unit
        if entry is None or not costly(unit, advice[0], entry, self.settings):
            return False
        best = advice[0]
        t = self.screen.t
        question = warning_text(unit, best, entry, self.said(key).get(best.action, best.action), t)
        self.screen.mark_coached()
        self.screen.paused = True

        def answered(yes: bool | None) -> None:
            self.screen.paused = False
            if yes:
                self.screen.submit_past_coach(action)
            else:
                self.screen.message(_("Not played: choose again."))

        self.screen.app.push_screen(YesNoDialog(question), answered)
        return True


def describe_all(describe: Callable[[Action], str], advice: list[Advice]) -> dict[Action, str]:
    """Each advised action in words.  Actions that read the same and are worth the same are the same
    choice to the player (Yatzy's two ways to keep one 3); where they read the same but are worth
    different amounts (a card bid "face down"), each gets its action after its words, to tell them apart.
    """
    words = {entry.action: safe_text(describe(entry.action), 120) or entry.action for entry in advice}
    values: dict[str, set[float]] = {}
    for entry in advice:
        values.setdefault(words[entry.action], set()).add(entry.value)
    return {
        action: text if len(values[text]) == 1 else f"{text} ({safe_text(action, 40)})"
        for action, text in words.items()
    }
