"""The SEVEN table, in the spirit of SEVEN.CMD's windows (docs/rules/seven.md 1.2, 3.3 and 5.1).

A panel per other seat along the top (name, hand size, what it did last; the
seat to move highlighted), the green table (top card, called suit, a pending
7, stock and discard counts, "Table: Shuffling"), your hand as a menu headed
by "Draw", and the log of the last plays.  The base class paces the bots,
runs chance, shows the end-of-deal dialog and keeps the running totals.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gamenight.sdk import Action, GameScreen, GameTable, PublicEvent, translator
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from .rules import CARD_CODES, QUEEN, SUITS, Event, SevenView, card_label, rank_of
from .suit_dialog import SuitDialog
from .texts import describe_event
from .widgets import HandView, SeatPanel, TablePanel, card_text, even_rows, fit_cells, suit_text

_ = translator("seven")

LOG_WIDTH = 40
LOG_LINES = 15
"""Lines of the public log the table shows (its newest)."""


def _adds_to_draws(events: tuple[Event, ...], index: int) -> bool:
    """Whether the log counts ``events[index]`` into the line before it (a draw by the seat whose
    draws that line counts): :meth:`SevenScreen._log_lines`' rule, looked at from one event."""
    event = events[index]
    if index == 0 or event.kind != "draw":
        return False
    before = events[index - 1]
    return event.seat == (before.seat if before.kind == "draw" else -1)


class SevenScreen(GameScreen):
    """The five-seat table.  Arrows and Return (or the mouse) choose a card; ``d`` draws."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))
    BINDINGS: ClassVar[list[BindingType]] = [
        # The hand's Return, named in the key bar (it is the key that plays): the hand binds no Return.
        Binding(
            "enter", "play", _("Play"), tooltip=_("Play the card under the cursor (on the first line: draw or pass)")
        ),
        Binding("d", "draw", _("Draw"), tooltip=_("Draw a card from the stock (or take a pending 7 penalty, or pass)")),
    ]

    def __init__(self, match: GameTable) -> None:
        super().__init__(match)
        self._hand_signature: tuple[tuple[str | None, str, bool], ...] = ()
        """What the hand menu shows, so that it is rebuilt only when that changes."""

    def compose_table(self) -> ComposeResult:
        with Vertical(id="seven"):
            with Horizontal(id="others"):
                for seat in range(len(self.match.seats)):
                    yield SeatPanel(seat)
            with Horizontal(id="middle"):
                with Vertical(id="left"):
                    yield TablePanel(id="table")
                    yield HandView(id="hand")
                yield Static("", id="log")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#hand", HandView).focus()

    # -- drawing -------------------------------------------------------------------

    def refresh_view(self) -> None:
        view: SevenView = self.view
        over = self.match.over
        watching = self.watching  # a watcher holds no hand: every seat gets a panel, there is no hand menu
        for panel in self.query(SeatPanel):
            seat = panel.seat
            panel.display = watching or seat != self.view_seat
            lines = [self._count_text(view.hand_sizes[seat])]
            if over:  # every card shown, over as many lines as it takes
                lines.append(" ".join(card_label(c) for c in view.shown_hands[seat]) or self.t("out!"))
            else:
                lines.append(self._last_deed(view.events, seat))
            panel.show(
                self.seat_name(seat),
                lines,
                view.to_move == seat,
                over and view.winner == seat,
                total=self._total_text(seat),
                wrap_last=over,
            )
        even_rows(self.query(SeatPanel))
        self.query_one(TablePanel).show(self._table_lines(view))
        self.query_one("#hand", HandView).display = not watching
        self._fill_hand(view)
        log = self.query_one("#log", Static)
        told = Text("\n").join(self._log_lines(view.events)[-15:])
        if log.content != told:
            log.update(told, layout=False)  # its size is the screen's: a repaint, never a layout

    def _total_text(self, seat: int) -> str:
        """The seat's running total over the deals played at this table."""
        total = self.match.totals[seat]
        return self.t("Total {points}", points=int(total) if float(total).is_integer() else f"{total:.1f}")

    def _count_text(self, count: int) -> str:
        return self.t("1 card") if count == 1 else self.t("{count} cards", count=count)

    def _table_lines(self, view: SevenView) -> list[Text]:
        t = self.t
        lines = [Text(t("Top card: ")) + (card_text(view.top) if view.top >= 0 else Text("—"))]
        if view.called >= 0:
            lines.append(Text(t("Called suit: ")) + suit_text(view.called))
        elif view.penalty:
            lines.append(Text(t("7 penalty: draw {count}", count=view.penalty), style="bold yellow"))
        else:
            lines.append(Text(""))
        lines.append(
            Text(t("Stock {stock} · Discards {discards}", stock=view.stock_count, discards=view.discard_count))
        )
        if view.shuffling:
            lines.append(Text(t("Table: Shuffling"), style="bold yellow"))
        elif view.blocked:
            lines.append(Text(t("Blocked: nobody can play."), style="bold yellow"))
        return lines

    def _fill_hand(self, view: SevenView) -> None:
        menu = self.query_one("#hand", HandView)
        mine = self.match.to_move() == self.view_seat
        legal = set(self.match.legal_actions()) if mine else set()
        menu.border_title = fit_cells(f"{self.seat_name(self.view_seat)} · {self._count_text(len(view.hand))}", 30)
        menu.border_subtitle = self._total_text(self.view_seat)
        menu.set_class(mine, "to-move")
        if "pass" in legal:
            head = self.t("Pass (nothing to play or draw)")
            head_id = "pass"
        elif view.penalty and mine:
            head = self.t("Draw {count} (take the 7 penalty)", count=view.penalty)
            head_id = "draw"
        else:
            head = self.t("Draw")
            head_id = "draw"
        items = [(head_id, Text(head, style="bold"))]
        playable = {action[:2] for action in legal if action not in ("draw", "pass")}
        for card in view.hand:
            code = CARD_CODES[card]
            style = "" if not mine or code in playable else "dim"
            items.append((code, card_text(card, style)))
        signature = tuple((item_id, text.markup, mine) for item_id, text in items)
        if self._hand_signature == signature:
            return
        highlighted = menu.highlighted_id
        self._hand_signature = signature
        ids = [item_id for item_id, _text in items]
        if mine and highlighted not in playable:
            playable_ids = [code for code in ids if code in playable]
            highlighted = playable_ids[0] if playable_ids else head_id
        menu.show(items, ids.index(highlighted) if highlighted in ids else 0)

    def _last_deed(self, events: tuple[Event, ...], seat: int) -> str:
        t = self.t
        for event in reversed(events):
            if event.seat != seat:
                continue
            if event.kind == "play":
                return t("played {card}", card=card_label(event.card))
            if event.kind == "draw":
                return t("drew")
            if event.kind == "penalty":
                return t("took {count}", count=event.count)
            if event.kind == "pass":
                return t("passed")
            if event.kind == "skip":
                return t("skipped")
        return ""

    def _log_lines(self, events: tuple[Event, ...], last: int = LOG_LINES) -> list[Text]:
        """The public log's last ``last`` lines (0: all of it) as sentences with names; consecutive
        draws by one seat are counted together.  Only the events those lines show are put in words:
        the table redraws at every move, and wording the whole deal each time cost a long deal
        (460 events) 1.4 CPU-s in each room that shows it."""
        t = self.t
        lines: list[Text] = []
        run_seat, run_count = -1, 0
        blocked = any(event.kind == "blocked" for event in events)
        start, starts = 0, 0
        for index in range(len(events) - 1, -1, -1) if last else ():
            starts += not _adds_to_draws(events, index)
            if starts == last:
                start = index
                break
        for event in events[start:]:
            if event.kind == "draw" and event.seat == run_seat and lines:
                run_count += event.count
                lines[-1] = self._line(t("{who} drew {count}.", who=self.seat_name(event.seat), count=run_count))
                continue
            run_seat, run_count = (event.seat, event.count) if event.kind == "draw" else (-1, 0)
            lines.append(self._event_line(event, blocked))
        return lines

    def _line(self, text: str | Text) -> Text:
        plain = text.plain if isinstance(text, Text) else text
        if isinstance(text, Text) and plain == fit_cells(plain, LOG_WIDTH):
            return text
        return Text(fit_cells(plain, LOG_WIDTH))

    def _event_line(self, event: Event, blocked: bool) -> Text:
        t = self.t
        who = self.seat_name(event.seat) if event.seat >= 0 else ""
        kind = event.kind
        if kind == "play":
            line = Text(f"{who} ") + card_text(event.card)
            if event.call >= 0:
                line += Text(" → ") + suit_text(event.call)
            return self._line(line)
        if kind == "draw":
            return self._line(t("{who} drew {count}.", who=who, count=event.count))
        if kind == "penalty":
            if event.count == event.call:
                return self._line(t("{who} took the 7 penalty: {count}.", who=who, count=event.count))
            return self._line(
                t("{who} took the 7 penalty: {count} of {due}.", who=who, count=event.count, due=event.call)
            )
        if kind == "pass":
            return self._line(t("{who} passed.", who=who))
        if kind == "skip":
            return self._line(t("Skipped: {who}.", who=who))
        if kind == "shuffle":
            return Text(t("Table: Shuffling"), style="yellow")
        if kind == "up":
            return self._line(Text(t("Table turns up ")) + card_text(event.card))
        if kind == "bury":
            return self._line(Text(t("Table buries ")) + card_text(event.card))
        if kind == "blocked":
            return Text(t("Blocked: nobody can play."), style="yellow")
        if blocked:
            return self._line(Text(t("{who} won the blocked deal.", who=who), style="bold"))
        return self._line(Text(t("{who} went out!", who=who), style="bold"))

    def describe_event(self, event: PublicEvent) -> str:
        return self.fill_names(describe_event(event, _=self.t))

    # -- acting --------------------------------------------------------------------

    def on_hand_view_selected(self, event: HandView.Selected) -> None:
        event.stop()
        self.choose(event.item_id)

    def choose(self, code: str) -> None:
        """Play the card ``code`` (asking for a Queen's suit), or draw / pass."""
        if code in ("draw", "pass"):
            self.submit(code)
            return
        calls = (
            [a for a in self.match.legal_actions() if a.startswith(code + ":")] if self.match.human_to_move() else []
        )
        if rank_of(CARD_CODES.index(code)) == QUEEN and calls:

            def called(suit: int | None) -> None:
                if suit is not None:
                    self.submit(f"{code}:{SUITS[suit]}")

            self.app.push_screen(SuitDialog(card_label(CARD_CODES.index(code))), called)
            return
        self.submit(code)

    def highlighted_action(self) -> Action | None:
        """The card (or Draw, Pass) under the hand's cursor, for the coach's last line ("Your choice:
        Play 8♥ · 23% (best)"); a Queen whose suit is still to be called is four choices: none."""
        if self.match.over or not self.match.human_to_move() or self.match.to_move() != self.view_seat:
            return None
        try:
            code = self.query_one("#hand", HandView).highlighted_id
            return code if code is not None and code in self.match.legal_actions() else None
        except Exception:  # read by the screen's timer: never raise (a hand not composed yet)
            return None

    def action_play(self) -> None:
        """Return: play the card under the hand's cursor (or draw, or pass, on its first line)."""
        self.query_one("#hand", HandView).action_choose()

    def action_draw(self) -> None:
        """Draw a card (or take a pending 7 penalty, or pass when that is all that is left)."""
        legal = self.match.legal_actions() if self.match.human_to_move() else []
        self.submit("pass" if legal == ["pass"] else "draw")

    def on_new_game(self) -> None:
        self.query_one("#hand", HandView).focus()

    def show_end(self) -> None:
        """The end dialog; the table behind it shows the totals with this deal counted."""
        super().show_end()
        self.refresh_view()

    def end_title(self) -> str:
        """The end dialog closes a deal (the running totals go on), not the whole evening."""
        return self.t("End of the deal")

    def submit(self, action: Action) -> bool:
        """Apply a move; keep the hand menu focused afterwards."""
        done = super().submit(action)
        self.query_one("#hand", HandView).focus()
        return done
