"""The end-of-game (or end-of-hand) dialog: itemised scores, totals, what next."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from gamenight.i18n import _
from gamenight.text import safe_text


def _number(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


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
    ) -> None:
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", collapse_padding=True)
        table.add_column("", overflow="fold")
        for seat, name in enumerate(names):
            header = Text(f"★ {safe_text(name)}" if seat in winners else safe_text(name))  # never markup
            table.add_column(header, justify="right", overflow="fold")
        for label, values in lines:
            table.add_row(Text(translate(label)),
                          *(Text(translate(v) if isinstance(v, str) and v else _number(v)) for v in values))
        table.add_row(Text(_("Score"), style="bold"), *(Text(_number(v), style="bold") for v in scores))
        if totals is not None:
            table.add_row(Text(_("Running total")), *(Text(_number(v)) for v in totals))
        self.wanted_width = Console(width=500).measure(table).maximum
        """Columns the table needs to show every name and number unwrapped."""
        super().__init__(table)


class ResultDialog(ModalScreen[str]):
    """Show a result; dismisses with the id of the chosen button.

    ``choices`` is a list of ``(id, label, key)``; the first is the default
    (Return).
    """

    DEFAULT_CSS = """
    ResultDialog { align: center middle; }
    ResultDialog > Vertical {
        width: 50; height: auto; max-height: 22;
        padding: 0 2; border: thick $accent; background: $surface;
    }
    ResultDialog #title { text-style: bold; width: auto; margin: 1 0; }
    ResultDialog #headline { margin-bottom: 1; }
    ResultDialog ResultTable { width: 100%; height: auto; margin-bottom: 1; }
    ResultDialog Horizontal { width: auto; height: auto; margin-bottom: 1; }
    ResultDialog Button { margin: 0 1; }
    """

    def __init__(
        self,
        title: str,
        headline: str,
        table: ResultTable,
        choices: Sequence[tuple[str, str, str]],
    ) -> None:
        super().__init__()
        self.title_text = title
        self.headline = headline
        self.table = table
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe_text(self.title_text), id="title", markup=False)
            if self.headline:
                yield Label(safe_text(self.headline), id="headline", markup=False)
            yield self.table
            with Horizontal():
                for index, (choice_id, label, key) in enumerate(self.choices):
                    yield Button(
                        f"{label} ({key})", id=f"choice-{choice_id}",
                        variant="primary" if index == 0 else "default",
                    )

    def on_mount(self) -> None:
        # Wide enough for every seat's column (up to the 80-column screen), never narrower than 50.
        self.query_one(Vertical).styles.width = min(78, max(50, 8 + self.table.wanted_width))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def on_key(self, event: events.Key) -> None:
        keys = {key: choice_id for choice_id, _label, key in self.choices}
        if event.key in keys:
            event.stop()
            self.dismiss(keys[event.key])
        elif event.key == "enter" and not isinstance(self.focused, Button):
            event.stop()
            self.dismiss(self.choices[0][0])
