"""The Battle of LITS table: a :class:`gamenight.ui.game_screen.GameScreen` subclass.

The base class does turns, bots, the end dialog, saving and help; this module
draws the board, the palette and the scores, steers the ghost piece (keys and
mouse) and turns Return, a click or the pie buttons into ``self.submit(...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gamenight.sdk import Action, GameScreen, GameTable, PublicEvent, pad_cells, repaint, translator
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from .rules import KEEP, PLACEMENTS, SHAPES, SIZE, SWAP, LitsState, Placement, why_illegal
from .texts import cell_name, describe_event
from .widgets import Board, ShapeChip

_ = translator("lits")
SYMBOLS = ("×", "○")


class LitsScreen(GameScreen):
    """The board on the left; scores, palette, the ghost's verdict and the pie prompt on the right."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1, 0)", "Up", show=False),
        Binding("down", "move(1, 0)", "Down", show=False),
        Binding("left", "move(0, -1)", "Left", show=False),
        Binding("right", "move(0, 1)", "Right", show=False),
        Binding("r", "rotate", _("Rotate"), tooltip=_("Turn the piece a quarter clockwise")),
        Binding("f", "mirror", _("Mirror"), tooltip=_("Mirror the piece left-right")),
        Binding("tab", "next_shape", _("Shape"), priority=True, tooltip=_("Take the next shape still available")),
        Binding("l", "shape('L')", "L", show=False),
        Binding("i", "shape('I')", "I", show=False),
        Binding("t", "shape('T')", "T", show=False),
        Binding("s", "shape('S')", "S", show=False),
        Binding("enter", "place", _("Place"), tooltip=_("Place the piece where it is (refused with the reason)")),
        Binding("x", "pie('swap')", "Take ×", show=False),
        Binding("o", "pie('keep')", "Keep ○", show=False),
    ]

    def __init__(self, match: GameTable) -> None:
        super().__init__(match)
        self.shape = "L"
        self.orientation = 0
        self.cursor = (4, 4)
        self._ghost_stale = False
        """True after a move until the ghost is moved: it may lie on the piece just placed."""

    # -- composition and drawing ------------------------------------------------

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="table"):
            yield Board(id="board")
            with Vertical(id="side"):
                yield Static("", id="scores")
                with Horizontal(id="palette"):
                    for shape in SHAPES:
                        yield ShapeChip(shape)
                yield Static("", id="verdict")
                with Vertical(id="pie"):
                    yield Static("", id="pie-question")
                    with Horizontal(id="pie-buttons"):
                        swap, keep = Button("", id="swap", variant="warning"), Button("", id="keep", variant="primary")
                        for button in (swap, keep):
                            # x and o answer from the keyboard; a focused button would swallow Return later
                            button.can_focus = False
                            yield button
                yield Static("", id="last-move")
                yield Static("", id="hint")

    def describe_event(self, event: PublicEvent) -> str:
        return self.fill_names(describe_event(event, self.t))

    @property
    def placement(self) -> Placement:
        """The ghost: the selected shape and orientation anchored at the cursor."""
        return Placement(self.shape, self.cursor[0], self.cursor[1], self.orientation)

    def refresh_view(self) -> None:
        state: LitsState = self.view
        t = self.t
        self._keep_shape_available(state)
        placing = self.match.human_to_move() and not state.pie_pending
        ghost = self.placement
        violation = why_illegal(state, ghost) if placing else None
        on_board = [(r, c) for r, c in ghost.cells if 0 <= r < SIZE and 0 <= c < SIZE]
        self.query_one(Board).show(state, on_board if placing else [], violation is None)
        repaint(self.query_one("#scores", Static), self._score_lines(state))
        for chip in self.query(ShapeChip):
            chip.show(state.remaining[SHAPES.index(chip.shape)], chip.shape == self.shape)
        verdict = self.query_one("#verdict", Static)
        if placing:
            where = cell_name(*self.cursor)
            if violation is None:
                repaint(
                    verdict, t("{shape} on {cell}: legal. Return or a click places it.", shape=self.shape, cell=where)
                )
            elif self._ghost_stale:
                # the ghost still lies where the last piece went: no rule broken yet, only a spot to choose
                repaint(verdict, t("Move the {shape} to a free spot: arrows or the mouse.", shape=self.shape))
                violation = None
            else:
                repaint(
                    verdict,
                    t(
                        "{shape} on {cell}: {reason}",
                        shape=self.shape,
                        cell=where,
                        reason=violation.message(self.shape),
                    ),
                )
            verdict.set_class(violation is not None, "illegal")
        else:
            repaint(verdict, "")
            verdict.set_class(False, "illegal")
        self._show_pie(state)
        repaint(self.query_one("#last-move", Static), self._last_move(state))
        keys = t("Arrows/mouse move · r rotate · f mirror · Tab or l i t s shape · Return place")
        # a replay's keys are its own (Space steps on): its key bar says them
        repaint(self.query_one("#hint", Static), "" if self.in_replay else keys)

    def _score_lines(self, state: LitsState) -> str:
        lines = [self.t("Uncovered marks")]
        for seat, player in enumerate(self.match.seats):
            marker = "▶" if self.match.to_move() == seat else " "
            symbol = SYMBOLS[state.symbol(seat)] if state.x_marks else " "
            lines.append(f"{marker} {pad_cells(player.name, 14)} {symbol} {state.uncovered(seat):>2}")
        return "\n".join(lines)

    def _show_pie(self, state: LitsState) -> None:
        pie = self.query_one("#pie")
        asking = state.pie_pending and self.match.human_to_move()
        pie.display = asking
        if asking:
            t = self.t
            self.query_one("#pie-question", Static).update(t("Pie rule: take × or keep ○?"))
            self.query_one("#swap", Button).label = t("Take × (x)")
            self.query_one("#keep", Button).label = t("Keep ○ (o)")

    def _last_move(self, state: LitsState) -> str:
        if not state.moves:
            return ""
        pid, seat = state.moves[-1]
        placement = PLACEMENTS[pid]
        name = self.match.seats[seat].name
        text = self.t(
            "Last: {name} placed {shape} on {cell}.",
            name=name,
            shape=placement.shape,
            cell=cell_name(placement.row, placement.col),
        )
        if not state.pie_pending and len(state.moves) == 1 and state.turn >= 0:
            taker = self.match.seats[1].name
            text += "\n" + (
                self.t("{name} swapped and took ×.", name=taker)
                if state.swapped
                else self.t("{name} kept ○.", name=taker)
            )
        return text

    def _keep_shape_available(self, state: LitsState) -> None:
        """Move the selection off a shape that ran out."""
        if state.remaining[SHAPES.index(self.shape)] == 0 and any(state.remaining):
            self._select(next(s for s in self._shape_cycle() if state.remaining[SHAPES.index(s)]))

    def _shape_cycle(self) -> list[str]:
        start = SHAPES.index(self.shape)
        return [SHAPES[(start + step) % len(SHAPES)] for step in range(1, len(SHAPES) + 1)]

    def _select(self, shape: str) -> None:
        if shape != self.shape:
            self.shape = shape
            self.orientation = 0

    def on_new_game(self) -> None:
        self.shape, self.orientation, self.cursor = "L", 0, (4, 4)
        self._ghost_stale = False

    def on_action(self, seat: int, action: Action, text: str) -> None:
        super().on_action(seat, action, text)
        self._ghost_stale = seat >= 0  # a piece placed or the pie answered: the ghost may lie on it now

    def _ghost_moved(self) -> None:
        self._ghost_stale = False

    # -- actions -------------------------------------------------------------------

    def action_move(self, rows: int, cols: int) -> None:
        """Move the ghost by one cell (it stays on the board)."""
        self._ghost_moved()
        row, col = self.cursor
        self.cursor = (min(SIZE - 1, max(0, row + rows)), min(SIZE - 1, max(0, col + cols)))
        self.refresh_view()

    def action_rotate(self) -> None:
        """Turn the ghost a quarter clockwise."""
        self._ghost_moved()
        self.orientation = self.placement.rotated().orientation
        self.refresh_view()

    def action_mirror(self) -> None:
        """Mirror the ghost left-right."""
        self._ghost_moved()
        self.orientation = self.placement.mirrored().orientation
        self.refresh_view()

    def action_next_shape(self) -> None:
        """Select the next shape that is still available."""
        self._ghost_moved()
        state: LitsState = self.view
        for shape in self._shape_cycle():
            if state.remaining[SHAPES.index(shape)]:
                self._select(shape)
                break
        self.refresh_view()

    def action_shape(self, shape: str) -> None:
        """Select ``shape`` (its first orientation)."""
        self._ghost_moved()
        self._select(shape)
        self.refresh_view()

    def action_place(self) -> None:
        """Place the ghost where it is (refused with the reason if illegal)."""
        if self.view.pie_pending:
            self.message(self.t("First answer the pie rule: x takes ×, o keeps ○."), error=True)
            return
        self.submit(self.placement.action)

    def action_pie(self, choice: Action) -> None:
        """Answer the pie rule: ``swap`` (take ×) or ``keep`` (stay ○)."""
        if not self.view.pie_pending:
            return
        self.submit(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_pie(SWAP if event.button.id == "swap" else KEEP)

    def on_board_hovered(self, event: Board.Hovered) -> None:
        if self.cursor != (event.row, event.col):
            self.cursor = (event.row, event.col)
            self._ghost_moved()
            self.refresh_view()

    def on_board_clicked(self, event: Board.Clicked) -> None:
        self.cursor = (event.row, event.col)
        self._ghost_moved()
        self.action_place()

    def on_shape_chip_chosen(self, event: ShapeChip.Chosen) -> None:
        self.action_shape(event.shape)
