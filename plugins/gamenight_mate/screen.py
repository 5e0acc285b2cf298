"""The Mate table: a :class:`gamenight.ui.game_screen.GameScreen` subclass.

The base class does turns, bots, pauses, the end dialog, saving and help;
this module draws both hands face up, the cards played move by move, the
lead and the cards that may answer it, the score formula of a mate and the
match sheet, and turns keys and clicks into ``self.submit(...)``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar, cast

from gamenight.sdk import Action, GameScreen, GameTable, Interlude, PublicEvent, translator
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from .bots import explain_best_play
from .rules import (
    DEALERS,
    HAND_SIZE,
    MOVES,
    NONE,
    PLAYS,
    MateRules,
    MateState,
    answers,
)
from .solver import Solver
from .texts import describe_event, describe_result, pretty
from .widgets import ActionChip, CardChip, MatchSheet, MoveTable, repaint, show_if

_ = translator("mate")


class MateScreen(GameScreen):
    """The felt on the left (the other hand on top, the seat in view at the bottom); the sheet on the right."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", _("Card ←"), show=False),
        Binding("right", "cursor(1)", _("Card →"), show=False),
        Binding(
            "enter,space",
            "play",
            _("Play"),
            tooltip=_("Play the card under the cursor (or set it aside when foreplacing)"),
        ),
        Binding("n", "keep_all", _("Keep all"), tooltip=_("Set no card aside this play")),
        Binding(
            "e", "explain", _("Best play"), tooltip=_("The move to make now with best play by both, and its outcome")
        ),
        Binding("c", "continue", _("Continue"), tooltip=_("Go on to the next play")),
    ]

    def __init__(self, match: GameTable) -> None:
        super().__init__(match)
        if self.remote:  # no coach at a shared or hosted table: e says why, but the bar does not offer it
            keys = self._bindings.key_to_bindings
            keys["e"] = [dataclasses.replace(binding, show=False) for binding in keys.get("e", [])]
        self.cursor = 0
        self.hint = ""
        self.pause: Interlude | None = None
        """The end of a play being shown on the table, until the players continue."""
        self._solver: Solver | None = None

    # -- composition and drawing ---------------------------------------------------

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="table"):
            with Vertical(id="felt"):
                yield Static("", id="info")
                yield Static("", id="top-name", classes="seat-name")
                with Horizontal(id="top-hand", classes="hand"):
                    for slot in range(HAND_SIZE):
                        yield CardChip("top", slot)
                yield MoveTable("", id="moves")
                yield Static("", id="lead-line")
                with Horizontal(id="bottom-hand", classes="hand"):
                    for slot in range(HAND_SIZE):
                        yield CardChip("bottom", slot)
                yield Static("", id="bottom-name", classes="seat-name")
                yield ActionChip(_("Keep all cards (N)"), NONE, id="keep-all")
                yield Static("", id="formula")
                yield ActionChip(_("Continue (C)"), "continue", id="continue")
                yield Static("", id="hint")
            with Vertical(id="side"):
                yield MatchSheet("", id="sheet")

    @property
    def rules(self) -> MateRules:
        """The game's rules."""
        return cast("MateRules", self.match.rules)  # a screen is given its own game's

    def shown_state(self) -> MateState:
        """The state on the table: a finished play stays in view until its pause is confirmed."""
        state = self.view
        if self.match.pending_interlude() is None:
            state = self.rules.current(state)
        return state

    def names(self) -> list[str]:
        """The seats' names, in seat order."""
        return [seat.name for seat in self.match.seats]

    def mover(self, state: MateState) -> int | None:
        """The seat to act on the shown state, or None (deal, pause, end)."""
        if state.phase == "foreplace":
            return state.decider()
        if state.phase == "play":
            return state.to_act()
        return None

    def hand_cards(self, state: MateState, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` still holds (or, on move 10, replays)."""
        if state.phase in ("foreplace", "play"):
            return state.available(seat)
        return state.hands[seat]

    def playable(self, state: MateState, seat: int) -> set[str]:
        """The cards of ``seat`` that may be chosen now (empty when it is not its turn)."""
        if self.mover(state) != seat or self.match.pending_interlude() is not None:
            return set()
        return {action for action in self.rules.legal_actions(state) if action != NONE}

    def refresh_view(self) -> None:
        state = self.shown_state()
        bottom = self.view_seat
        top = 1 - bottom
        seat_names = [seat.name for seat in self.match.seats]
        repaint(self.query_one("#info", Static), self.info_text(state))
        for row, seat in (("top", top), ("bottom", bottom)):
            repaint(self.query_one(f"#{row}-name", Static), self.seat_text(state, seat))
            cards = self.hand_cards(state, seat)
            playable = self.playable(state, seat)
            human = row == "bottom" and bool(playable) and self.match.seats[seat].is_human
            if human:
                self.cursor = min(self.cursor, len(cards) - 1)
            replay = not state.hands[seat] and bool(cards)
            for chip in self.query(f"#{row}-hand CardChip").results(CardChip):
                card = cards[chip.slot] if chip.slot < len(cards) else ""
                chip.show_card(
                    card,
                    playable=card in playable,
                    cursor=human and chip.slot == self.cursor,
                    replay=replay,
                )
        self.query_one("#moves", MoveTable).show(state, (top, bottom), seat_names)
        repaint(self.query_one("#lead-line", Static), self.lead_text(state))
        show_if(self.query_one("#keep-all", ActionChip), self._may_keep_all(state))
        self.refresh_bindings()  # "n Keep all" in the key bar comes and goes with the chip
        ended = state.phase == "ended"
        formula = self.fill_names(describe_result(state.results[-1], self.t)) if ended and state.results else ""
        repaint(self.query_one("#formula", Static), formula)
        show_if(self.query_one("#continue", ActionChip), self.pause is not None)
        repaint(self.query_one("#hint", Static), self.hint)
        self.query_one("#sheet", MatchSheet).show(state, seat_names)

    def coach_panel_box(self) -> tuple[int, int]:
        """The coach panel, 46 cells wide (4 more than the default): each choice's value, "lose in 10,
        -110" (「負け・10 ムーブ -110」), fits whole beside its words at 80 columns."""
        return (1, 46)

    def title_text(self) -> str:
        """The game's title, and during a pause which play has ended."""
        if self.pause is not None:
            return _("Mate — end of play {number}", number=self.view.play + 1)
        return super().title_text()

    def info_text(self, state: MateState) -> str:
        """Play, round and move (the dealer is marked on its seat's line: names can be long)."""
        return _(
            "Play {play}/{plays} · round {round} · move {move}/{moves}",
            play=state.play + 1,
            plays=PLAYS,
            round=state.play // 2 + 1,
            move=min(state.move, MOVES),
            moves=MOVES,
        )

    def seat_text(self, state: MateState, seat: int) -> str:
        """A seat's name, its card set aside and whether it leads."""
        parts = [self.names()[seat]]
        if DEALERS[state.play] == seat:
            parts.append(_("dealer"))
        aside = state.foreplaced[seat]
        if aside is not None:
            parts.append(_("aside: {card}", card=pretty(aside)))
        if state.phase == "play" and state.leader == seat:
            parts.append(_("leads"))
        return " · ".join(parts)

    def lead_text(self, state: MateState) -> str:
        """What is asked now: a foreplacing decision, a lead, or an answer to the lead."""
        mover = self.mover(state)
        if mover is None:
            return ""
        name = self.match.seats[mover].name
        if state.phase == "foreplace":
            first = state.foreplaced[1 - mover]
            if first is not None:
                return _(
                    "{name}: set a card aside (not sharing suit or rank with {card}), or keep all.",
                    name=name,
                    card=pretty(first),
                )
            return _("{name}: set a card aside, or keep all.", name=name)
        if state.lead is None:
            return _("{name} leads move {move}.", name=name, move=state.move)
        replies = answers(state.lead, state.available(mover), state.variant)
        return _(
            "{leader} led {card}: {name} may answer {cards}.",
            leader=self.match.seats[state.leader].name,
            card=pretty(state.lead),
            name=name,
            cards=" ".join(pretty(card) for card in replies),
        )

    # -- acting ---------------------------------------------------------------------

    def bottom_cards(self) -> tuple[str, ...]:
        """The cards of the seat in view."""
        return self.hand_cards(self.shown_state(), self.view_seat)

    def action_cursor(self, step: int) -> None:
        """Move the card cursor along the hand in view."""
        cards = self.bottom_cards()
        if cards:
            self.cursor = (self.cursor + step) % len(cards)
            self.refresh_view()

    def action_play(self) -> None:
        """Play (or set aside) the card under the cursor; after a play, continue."""
        if self.pause is not None:
            self.action_continue()
            return
        cards = self.bottom_cards()
        if cards:
            self.submit(cards[min(self.cursor, len(cards) - 1)])

    def _may_keep_all(self, state: MateState) -> bool:
        """True while this room's person has a foreplacing decision to take."""
        return state.phase == "foreplace" and self.mover(state) == self.view_seat and self.match.human_to_move()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "keep_all" and self.is_mounted:
            # The key bar showed "n Keep all" through the whole play, where it only said "no
            # foreplacing decision now": it is there while the decision is open to this person.
            return self._may_keep_all(self.shown_state())
        if action == "continue" and self.is_mounted:
            return self.pause is not None  # in the bar while the end of a play is on show
        return super().check_action(action, parameters)

    def action_keep_all(self) -> None:
        """Decide not to foreplace."""
        if self.shown_state().phase != "foreplace":
            self.message(_("There is no foreplacing decision to take now."), error=True)
            return
        self.submit(NONE)

    def on_action_chip_chosen(self, event: ActionChip.Chosen) -> None:
        chip = event.chip
        if chip.id == "continue":
            self.action_continue()
            return
        if isinstance(chip, CardChip):
            if chip.row != "bottom":
                self.message(_("That card is not yours to play."), error=True)
                return
            self.cursor = chip.slot
        self.submit(chip.action)

    def submit(self, action: Action) -> bool:
        """A person's move; refused while the end of a play is on show."""
        if self.pause is not None:
            self.message(_("Press C to go on to the next play."), error=True)
            return False
        return super().submit(action)

    def show_interlude(self, interlude: Interlude) -> None:
        """Show the end of a play on the table itself: the mate, its formula and the sheet."""
        self.pause = interlude
        self.message(self.fill_names(self.t(interlude.title)))
        self.query_one("#title-bar", Static).update(self.title_text())
        self.refresh_view()

    def action_continue(self) -> None:
        """Go on to the next play after the pause."""
        if self.pause is None:
            return
        self.match.acknowledge(self.pause)
        self.pause = None
        self.advance()

    def describe_event(self, event: PublicEvent) -> str:
        return self.fill_names(describe_event(event, self.t))

    def on_action(self, seat: int, action: Action, text: str) -> None:
        self.hint = ""

    def on_new_game(self) -> None:
        self.cursor = 0
        self.hint = ""
        self.pause = None

    # -- explaining -----------------------------------------------------------------

    def action_explain(self) -> None:
        """Show how the play ends with best play by both (solved in a worker).

        That is the coach's advice: never at a shared table nor in a game hosted on the
        server (the room's reason is said instead), and a local game in which it was shown
        is marked coached."""
        refusal = self.coach.refusal() if self.remote else None
        if refusal is not None:
            self.message(refusal, error=True)
            return
        if self.pause is not None:  # the play on show is over; the next one's cards are not dealt on screen
            self.message(_("Press C to go on to the next play."), error=True)
            return
        self.hint = _("Solving…")
        self.refresh_view()
        self._explain(self.view, self.view_seat, for_help=False)

    def action_help(self) -> None:
        """The rules, with how the current play ends under best play below them (the rules alone where
        the coach is not allowed: at a shared table, in a game hosted on the server)."""
        if self.remote:
            self.show_help("")
            return
        self.message(_("Solving…"))
        self._explain(self.view, self.view_seat, for_help=True)

    @work(thread=True, exclusive=True, group="hint", exit_on_error=False)
    def _explain(self, state: MateState, seat: int, for_help: bool) -> None:
        if self._solver is None or self._solver.variant != state.variant:
            self._solver = Solver(state.variant)
        text = explain_best_play(state, seat, self._solver)
        self.app.call_from_thread(self._show_explanation, state, text, for_help)

    def _show_explanation(self, state: MateState, text: str, for_help: bool) -> None:
        if for_help:
            sentence = _("{explanation}.", explanation=f"{text[:1].upper()}{text[1:]}")  # "。" in Japanese
            extra = f"## {_('This play')}\n\n{sentence}" if text else ""
            if text:
                self.mark_coached()
            self.show_help(extra)
        elif state == self.view:  # still the position it was asked for
            if text:
                self.mark_coached()
            self.hint = text or _("Nothing to solve now.")
            self.refresh_view()
