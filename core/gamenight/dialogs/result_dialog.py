"""The end-of-game (or end-of-hand) dialog: itemised scores, totals, what next."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from gamenight.i18n import _
from gamenight.text import safe_text
from gamenight.widgets.key_bar import KeyBar


def _number(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _same(values: Sequence[float | str], scores: Sequence[float]) -> bool:
    """True when a line's values are the scores, seat by seat."""
    if len(values) != len(scores):
        return False
    return all(not isinstance(v, str) and float(v) == float(s) for v, s in zip(values, scores, strict=True))


class ResultTable(Static):
    """A score table: one column per seat, one row per itemised line."""

    def __init__(
        self,
        names: Sequence[str],
        lines: Sequence[tuple[str, Sequence[float | str]]],
        scores: Sequence[float],
        totals: Sequence[float] | None = None,
        winners: Sequence[int] = (),
        translate=_,
        score_row: bool = True,
    ) -> None:
        """``score_row=False`` leaves out the "Score" row, for games whose last line already is the score.

        It is left out too when the game's first or last line holds the scores already (LITS'
        "Uncovered marks", Goofspiel's "Points"): the same figures twice, one of them "Score"."""
        if any(_same(values, scores) for _label, values in [*lines[:1], *lines[-1:]]):
            score_row = False
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", collapse_padding=True)
        table.add_column("", overflow="fold")
        for seat, name in enumerate(names):
            header = Text(f"★ {safe_text(name)}" if seat in winners else safe_text(name))  # never markup
            table.add_column(header, justify="right", overflow="fold")
        for label, values in lines:
            table.add_row(
                Text(translate(label)),
                *(Text(translate(v) if isinstance(v, str) and v else _number(v)) for v in values),
            )
        if score_row:
            table.add_row(Text(_("Score"), style="bold"), *(Text(_number(v), style="bold") for v in scores))
        if totals is not None:
            table.add_row(Text(_("Running total")), *(Text(_number(v)) for v in totals))
        self.wanted_width = Console(width=500).measure(table).maximum
        """Columns the table needs to show every name and number unwrapped."""
        super().__init__(table)


class ResultDialog(ModalScreen[str]):
    """Show a result; dismisses with the id of the chosen button.

    ``choices`` is a list of ``(id, label, key)``; the first is the default
    (Return).  The choices stay in view at any size: the title sits at the
    top, the buttons at the bottom and the headline and score table scroll
    between them.  With ``board`` (the default) a "Look at the board" choice
    (``b``) hides the box so the table underneath -- the final position --
    can be looked at, undimmed; ``b``, ``Esc`` or ``Return`` bring the box
    back, and the choices' keys work from there too.  ``keys`` are more choices, ``(id, label,
    key)`` like ``choices``, offered by their key only (in the key bar, no button): the row of
    buttons stays within 80 columns.
    """

    BOARD_KEY = "b"

    DEFAULT_CSS = """
    ResultDialog { align: center middle; layers: bar box; }
    ResultDialog KeyBar { layer: bar; }  /* under the box: a tall box keeps every row, covering it */
    ResultDialog > #box {
        layer: box;
        width: 50; height: auto; max-height: 100%;
        padding: 0 2; border: thick $accent; background: $surface;
    }
    ResultDialog #title { dock: top; text-style: bold; width: auto; margin: 1 0; }
    ResultDialog #body { height: auto; max-height: 1fr; }
    ResultDialog #headline { margin-bottom: 1; }
    ResultDialog ResultTable { width: 100%; height: auto; margin-bottom: 1; }
    ResultDialog #choices { dock: bottom; width: auto; height: auto; margin-bottom: 1; }
    ResultDialog #choices Button { margin: 0 1 0 0; }
    ResultDialog #board-bar { display: none; dock: bottom; height: 1; padding: 0 1; background: $panel; }
    ResultDialog.-board { background: transparent; }
    ResultDialog.-board > #box { display: none; }
    ResultDialog.-board #board-bar { display: block; }
    ResultDialog.-board KeyBar { display: none; }
    """

    def __init__(
        self,
        title: str,
        headline: str,
        table: ResultTable,
        choices: Sequence[tuple[str, str, str]],
        board: bool = True,
        keys: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        super().__init__()
        self.title_text = title
        self.headline = headline
        self.table = table
        self.choices = list(choices)
        self.keys = list(keys)
        """Choices offered by their key only."""
        self.board = board and all(key != self.BOARD_KEY for _id, _label, key in [*self.choices, *self.keys])
        """Whether the "Look at the board" choice is offered."""
        # The key bar shows the choices' keys (on_key answers them; a click on the bar presses the key).
        for _id, label, key in [*self.choices, *self.keys]:
            self._bindings.bind(key, f"noop({key!r})", label)
        if self.board:
            self._bindings.bind(self.BOARD_KEY, f"noop({self.BOARD_KEY!r})", _("Look at the board"))

    @property
    def looking(self) -> bool:
        """True while the box is hidden and the board shows."""
        return self.has_class("-board")

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Label(safe_text(self.title_text), id="title", markup=False)
            with VerticalScroll(id="body"):
                if self.headline:
                    yield Label(safe_text(self.headline), id="headline", markup=False)
                yield self.table
            with Horizontal(id="choices"):
                for index, (choice_id, label, key) in enumerate(self.choices):
                    yield Button(
                        f"{label} ({key})",
                        id=f"choice-{choice_id}",
                        variant="primary" if index == 0 else "default",
                    )
                if self.board:
                    yield Button(f"{_('Look at the board')} ({self.BOARD_KEY})", id="board")
        if self.board:
            keys = "  ".join(f"{key} {label}" for _id, label, key in [*self.choices, *self.keys])
            yield Static(f"{self.BOARD_KEY} {_('Back to the result')}  {keys}", id="board-bar", markup=False)
        yield KeyBar()  # not the keys of the screen under the dialog (its choices' keys are on its buttons)

    def on_mount(self) -> None:
        # Wide enough for every seat's column and the row of buttons (each at least 16 cells, a cell apart),
        # up to the 80-column screen, never narrower than 50; border and padding take 6.
        buttons = sum(max(16, cell_len(str(button.label)) + 4) + 1 for button in self.query(Button))
        wanted = max(8 + self.table.wanted_width, 6 + buttons)
        self.query_one("#box").styles.width = min(78, max(50, wanted))

    def action_noop(self, _key: str) -> None:
        """The choices' keys are answered in :meth:`on_key`; their bindings only show them."""

    def look_at_board(self, looking: bool = True) -> None:
        """Hide the box to show the table underneath (``False``: the box again)."""
        self.set_class(looking, "-board")
        if not looking:
            self.query_one(Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "board":
            self.look_at_board()
            return
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def on_key(self, event: events.Key) -> None:
        keys = {key: choice_id for choice_id, _label, key in [*self.choices, *self.keys]}
        if event.key in keys:
            event.stop()
            self.dismiss(keys[event.key])
        elif self.looking and event.key in (self.BOARD_KEY, "escape", "enter"):
            event.stop()
            self.look_at_board(False)
        elif self.board and event.key == self.BOARD_KEY:
            event.stop()
            self.look_at_board()
        elif event.key == "enter" and not isinstance(self.focused, Button):
            event.stop()
            self.dismiss(self.choices[0][0])
