"""The Yatzy table: a :class:`gamenight.ui.game_screen.GameScreen` subclass.

The base class does turns, bots, chance, the end dialog, saving and help; this
module draws the score sheet (one column per seat, with what each open box
would score for the dice on the table), the dice with their holds, upper-bonus
progress, Yatzy bonuses and the final ranking, and turns keys and clicks into
``self.submit(...)``.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import ClassVar

from gamenight.sdk import (
    CHANCE,
    Action,
    GameScreen,
    GameTable,
    PublicEvent,
    ScoreCell,
    ScoreRow,
    ScoreTable,
    repaint,
    translator,
)
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.widgets import Static

from .dice import DiceRow
from .rules import (
    BOX_LABELS,
    BOXES,
    MAX_ROLLS,
    ROUNDS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YATZY_BONUS,
    YatzyState,
    earns_yatzy_bonus,
    preview,
    seat_total,
    upper_bonus,
    upper_total,
)
from .texts import describe_event

_ = translator("yatzy")

# Sheet rows: the 13 boxes interleaved with the upper section's progress and bonus.
_UPPER_PROGRESS, _UPPER_BONUS_ROW, _YATZY_BONUS_ROW, _TOTAL_ROW = "upper", "bonus", "yatzy-bonus", "total"
BOX_KEYS = "abcdefghijklm"
"""The key of each box, in :data:`BOXES` order: shown before the box's name on the sheet."""

SHEET_ROWS: tuple[int | str, ...] = (
    0, 1, 2, 3, 4, 5, _UPPER_PROGRESS, _UPPER_BONUS_ROW, 6, 7, 8, 9, 10, 11, 12, _YATZY_BONUS_ROW, _TOTAL_ROW,
)  # fmt: skip
"""What each sheet row shows: a box index, or one of the summary rows."""


def ranking(totals: list[float]) -> list[tuple[int, int]]:
    """``(rank, seat)`` pairs, best total first; tied seats share a rank."""
    order = sorted(range(len(totals)), key=lambda seat: (-totals[seat], seat))
    ranks: list[tuple[int, int]] = []
    for position, seat in enumerate(order):
        tied = position > 0 and totals[seat] == totals[order[position - 1]]
        ranks.append((ranks[-1][0] if tied else position + 1, seat))
    return ranks


class YatzyScreen(GameScreen):
    """The score sheet on the left, the dice and what happened on the right."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "roll", _("Roll"), tooltip=_("Roll every die that is not held")),
        Binding("1", "hold(0)", _("Hold 1-5"), tooltip=_("Hold or release this die for the next roll")),
        *(
            Binding(
                str(key),
                f"hold({key - 1})",
                _("Hold {number}", number=key),
                show=False,
                tooltip=_("Hold or release this die for the next roll"),
            )
            for key in range(2, 6)
        ),
        Binding("up", "cursor(-1)", _("Box ↑"), show=False),
        Binding("down", "cursor(1)", _("Box ↓"), show=False),
        Binding("enter", "score", _("Score"), tooltip=_("Write the dice in the box under the cursor")),
        *(
            Binding(key, f"score_box({box})", _("Score"), show=False, tooltip=_("Write the dice in this box"))
            for box, key in enumerate(BOX_KEYS)
        ),
    ]

    def __init__(self, match: GameTable) -> None:
        super().__init__(match)
        self.held = [False] * 5
        """Which dice the person to move holds for the next roll (also shows a bot's holds)."""
        self.cursor: int | None = None
        """The box (index) the cursor is on, in the column of the seat to move."""
        self.touched = "box"
        """What the person touched last, ``"hold"`` (a die) or ``"box"`` (the cursor): the coach's
        cost line follows it (:meth:`highlighted_action`)."""
        self.events: deque[str] = deque(maxlen=5)

    # -- composition -----------------------------------------------------------

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="yatzy-table"):
            with ScrollableContainer(id="sheet-scroll"):
                yield ScoreTable(label_width=18, id="sheet")
            with Vertical(id="side"):
                yield Static("", id="turn-line")
                yield DiceRow(hold_label=_("HOLD"), id="dice")
                yield Static("", id="roll-line")
                yield Static("", id="keys-help")
                yield Static("", id="events")  # the newest lines that fit (see _fit_events)

    @property
    def state(self) -> YatzyState:
        """What the table shows: the view of the seat in view (Yatzy hides nothing, so it holds every sheet)."""
        view: YatzyState = self.view
        return view

    def describe_event(self, event: PublicEvent) -> str:
        return describe_event(event, self.t)

    # -- drawing -----------------------------------------------------------------

    def refresh_view(self) -> None:
        state = self.state
        over = self.match.over
        seat = state.seat
        if not state.dice:
            # A turn not rolled yet holds nothing.  (At a shared table on_action gets no action to
            # reset the holds after a score: a person's holds showed under the next player's dice.)
            self.held = [False] * 5
        sheet = state.sheets[seat]
        suggestions = {} if over else preview(sheet, state.dice, state.joker)
        if self.cursor not in suggestions:
            self.cursor = max(suggestions, key=lambda box: (suggestions[box], -box)) if suggestions else None
        rows = [self._sheet_row(kind, seat, suggestions, over) for kind in SHEET_ROWS]
        cursor_row = SHEET_ROWS.index(self.cursor) if self.cursor is not None and self._my_turn() else None
        table = self.query_one("#sheet", ScoreTable)
        table.show(
            [self.match.seats[i].name for i in range(len(state.sheets))],
            rows,
            active_column=None if over else seat,
            cursor_row=cursor_row,
        )
        if not over:  # past four seats the sheet scrolls: keep the seat to move in view
            self.query_one("#sheet-scroll", ScrollableContainer).scroll_to_region(
                table.column_region(seat), animate=False, immediate=False
            )
        self.query_one("#dice", DiceRow).show(state.dice, self.held if state.dice else [False] * 5)
        repaint(self.query_one("#turn-line", Static), self._turn_text())
        repaint(self.query_one("#roll-line", Static), self._roll_text())
        repaint(
            self.query_one("#keys-help", Static),
            "" if over or self.in_replay else _("Space roll · 1-5 hold\n↑↓ choose a box · Enter score"),
        )
        repaint(self.query_one("#events", Static), self._fit_events(self._events_text()))

    def _fit_events(self, text: str) -> str:
        """The newest lines of ``text`` that fit the events' box (the ranking at the end: from its top).

        The box keeps its size (the rest of the side column's height): a move repaints it, where a
        log growing in a scrolling box laid the whole screen out at every move."""
        box = self.query_one("#events", Static)
        width, height = box.content_region.width, box.content_region.height
        if self.match.over or width <= 0 or height <= 0:
            return text
        lines = Text(text).wrap(self.app.console, width)
        return "\n".join(line.plain.rstrip() for line in lines[-height:])

    def on_resize(self, _event: object = None) -> None:
        self.call_after_refresh(self.refresh_view)  # the events' lines fit the new width

    def _sheet_row(self, kind: int | str, active: int, suggestions: dict[int, int], over: bool) -> ScoreRow:
        state = self.state
        cells = []
        for seat, sheet in enumerate(state.sheets):
            cells.append(self._cell(kind, seat, sheet, state.bonuses[seat], suggestions if seat == active else {}))
        if isinstance(kind, int):
            label = f"{BOX_KEYS[kind]} {_(BOX_LABELS[kind])}"
            return ScoreRow(label, tuple(cells), selectable=kind in suggestions and not over, rule_above=kind == 6)
        labels = {
            _UPPER_PROGRESS: _("Upper total"),
            _UPPER_BONUS_ROW: _("Bonus (63+)"),
            _YATZY_BONUS_ROW: _("Yatzy bonuses"),
            _TOTAL_ROW: _("Total"),
        }
        return ScoreRow("  " + labels[kind], tuple(cells), rule_above=kind == _UPPER_PROGRESS)

    def _cell(
        self, kind: int | str, seat: int, sheet: tuple[int | None, ...], bonuses: int, suggestions: dict[int, int]
    ) -> ScoreCell:
        if isinstance(kind, int):
            if sheet[kind] is not None:
                return ScoreCell(str(sheet[kind]))
            if kind in suggestions:
                points = suggestions[kind]
                return ScoreCell(str(points), "suggest" if points else "muted")
            return ScoreCell("·", "muted")
        if kind == _UPPER_PROGRESS:
            return ScoreCell(f"{upper_total(sheet)}/{UPPER_BONUS_THRESHOLD}", "muted" if None in sheet[:6] else "score")
        if kind == _UPPER_BONUS_ROW:
            if upper_bonus(sheet):
                return ScoreCell(str(UPPER_BONUS), "total")
            return ScoreCell("" if None in sheet[:6] else "0", "muted")
        if kind == _YATZY_BONUS_ROW:
            return ScoreCell(str(YATZY_BONUS * bonuses) if bonuses else "", "total")
        return ScoreCell(str(seat_total(sheet, bonuses)), "total")

    def _my_turn(self) -> bool:
        return self.match.human_to_move() and self.state.seat == self.view_seat

    def _turn_text(self) -> str:
        state = self.state
        if self.match.over:
            return _("Final ranking")
        filled = sum(score is not None for score in state.sheets[state.seat])
        return _(
            "Round {round}/{rounds} · {name}", round=filled + 1, rounds=ROUNDS, name=self.match.seats[state.seat].name
        )

    def _roll_text(self) -> str:
        state = self.state
        if self.match.over:
            return ""
        if state.rolls == 0:
            return _("Press Space to roll.") if self._my_turn() else _("Waiting for the roll…")
        if state.rolls < MAX_ROLLS:
            text = _("Roll {number} of {rolls}: hold dice, roll again or score.", number=state.rolls, rolls=MAX_ROLLS)
        else:
            text = _("Roll {number} of {rolls}: choose a box.", number=state.rolls, rolls=MAX_ROLLS)
        if earns_yatzy_bonus(state.sheets[state.seat], state.dice):
            text = _("Yatzy! +{points} bonus when scored.", points=YATZY_BONUS) + "\n" + text
        return text

    def _events_text(self) -> str:
        if not self.match.over:
            return "\n".join(self.events)
        totals = list(self.match.rules.current_scores(self.state) or ())  # (Yatzy's always has them)
        return "\n".join(
            _("{rank}. {name} — {points}", rank=rank, name=self.match.seats[seat].name, points=int(totals[seat]))
            for rank, seat in ranking(totals)
        )

    # -- what happened -------------------------------------------------------------

    def on_action(self, seat: int, action: Action, text: str) -> None:
        kind, _sep, arg = action.partition(":")
        if kind == "roll":
            self.held = [hold == "1" for hold in arg]
            self.touched = "box"
        elif kind == "score":
            self.held = [False] * 5
            self.cursor = None
        if seat != CHANCE:
            self.events.append(f"{self.match.seats[seat].name}: {text}")

    def on_new_game(self) -> None:
        self.held = [False] * 5
        self.cursor = None
        self.events.clear()

    # -- the person's moves ----------------------------------------------------------

    def coach_panel_box(self) -> tuple[int, int]:
        """The coach panel below the dice (the sheet keeps the left; the dice stay in view)."""
        dice = self.query_one("#dice", DiceRow).region
        return (dice.bottom if dice.height else 1, 42)

    def highlighted_action(self) -> Action | None:
        """The choice in hand, for the coach: a re-roll with the dice held now, after a die was
        held or released; else scoring in the box under the cursor."""
        if self.match.over or not self._my_turn():
            return None
        state = self.state
        if state.rolls == 0:
            return None
        if self.touched == "hold" and state.rolls < MAX_ROLLS and not all(self.held):
            return "roll:" + "".join("1" if hold else "0" for hold in self.held)
        return "score:" + BOXES[self.cursor] if self.cursor is not None else None

    def _may_act(self) -> bool:
        """True when the person in view may act now; else says why (a bot is thinking...)."""
        if self._my_turn():
            return True
        seat = self.match.to_move()
        if seat >= 0:
            self.message(_("Wait: {name} is playing.", name=self.match.seats[seat].name), error=True)
        return False

    def palette_title(self, binding: Binding) -> str:
        """Each hold key is a command of its own ("Hold die 3"), not the key bar's "Hold 1-5"."""
        if binding.action.startswith("hold("):
            return self.t("Hold die {number}", number=int(binding.action[5:-1]) + 1)
        if binding.action.startswith("score_box("):
            return self.t("Score in {box}", box=self.t(BOX_LABELS[int(binding.action[10:-1])]))
        return super().palette_title(binding)

    def action_roll(self) -> None:
        """Roll: all five dice first, then every die not held."""
        if not self._may_act():
            return
        state = self.state
        if state.rolls == 0:
            self.submit("roll:00000")
        elif state.rolls >= MAX_ROLLS:
            self.message(_("No rolls left: choose a box and press Enter."), error=True)
        elif all(self.held):
            self.message(_("Every die is held: release one (keys 1-5) or score."), error=True)
        else:
            self.submit("roll:" + "".join("1" if hold else "0" for hold in self.held))

    def action_hold(self, index: int) -> None:
        """Hold or release die ``index`` (0-4) for the next roll."""
        if not self._may_act():
            return
        state = self.state
        if state.rolls == 0:
            self.message(_("Roll first (Space)."), error=True)
            return
        if state.rolls >= MAX_ROLLS:
            self.message(_("No rolls left: choose a box and press Enter."), error=True)
            return
        self.held[index] = not self.held[index]
        self.touched = "hold"
        self.refresh_view()

    def action_release_all(self) -> None:
        """Hold no dice for the next roll."""
        if self._may_act():
            self.held = [False] * 5
            self.touched = "hold"
            self.refresh_view()

    def action_cursor(self, step: int) -> None:
        """Move the box cursor to the previous/next box the dice may go in."""
        if not self._my_turn() or self.state.rolls == 0:
            return
        state = self.state
        boxes = sorted(preview(state.sheets[state.seat], state.dice, state.joker))
        if not boxes:
            return
        position = boxes.index(self.cursor) if self.cursor in boxes else 0
        self.cursor = boxes[(position + step) % len(boxes)]
        self.touched = "box"
        self.refresh_view()

    def action_score(self) -> None:
        """Score the dice in the box under the cursor."""
        if not self._may_act():
            return
        if self.state.rolls == 0:
            self.message(_("Roll first (Space)."), error=True)
            return
        if self.cursor is not None:
            self._score(self.cursor)

    def action_score_box(self, box: int) -> None:
        """Score the dice in ``box`` (its letter key, as a click on its row)."""
        if not self._may_act():
            return
        if self.state.rolls == 0:
            self.message(_("Roll first (Space)."), error=True)
            return
        state = self.state
        if box in preview(state.sheets[state.seat], state.dice, state.joker):
            self.cursor = box
        self._score(box)  # a filled box is refused by the rules, with the reason

    def _score(self, box: int) -> None:
        self.submit("score:" + BOXES[box])

    def on_dice_row_toggled(self, event: DiceRow.Toggled) -> None:
        self.action_hold(event.index)

    def on_score_table_selected(self, event: ScoreTable.Selected) -> None:
        kind = SHEET_ROWS[event.row]
        if isinstance(kind, int) and self._may_act():
            self.cursor = kind
            self._score(kind)
