"""The Mille Bornes table: a :class:`gamenight.ui.game_screen.GameScreen` played with BSD ``mille``'s keys.

Keys (docs/rules/mille.md 12.1 and 12.2): ``P`` pick; ``U`` or ``D``, then ``1``-``6``
or ``P``/``0``, then Return or Space (the confirmation is required; Backspace
re-opens the card, Escape abandons); ``O`` orders the hand; ``W`` toggles the
score window; ``S`` saves; ``R`` / ``Ctrl+L`` redraw; ``Q`` quits after
``Really?`` (so does Delete).  A click on a card selects it for use (``D`` switches to discard)
with the same confirmation; a click on the deck picks.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from gamenight.sdk import (
    CHANCE,
    Action,
    GameScreen,
    GameTable,
    IllegalAction,
    Interlude,
    PublicEvent,
    ResultDialog,
    ResultTable,
    StatusLine,
    YesNoDialog,
    translator,
)
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal

from .rules import (
    EMPTY,
    EXTENSION,
    SLOT_NAMES,
    MilleState,
    MilleView,
    score_window,
)
from .texts import describe_event, say_refusal
from .widgets import MileageArea, MilleBoard, ScoreWindow

_ = translator("mille")

ORDER_KEY = "order"
"""The key of the ``O`` setting in the save's ``display`` table."""
CARD_KEYS = {"p": 0, "0": 0, **{str(n): n for n in range(1, 7)}}
"""The key typed after ``U``/``D`` -> the display row of the card."""
CONFIRM = ("enter", "space", "ctrl+j")
ERASE = ("backspace", "ctrl+h")
KILL = ("escape", "ctrl+u")


def public_state(view: MilleView) -> MilleState:
    """A state with only what ``view`` shows (no hand, a deck of blanks): enough for the score window."""
    seats = (view.opponent, view.me) if view.seat == 1 else (view.me, view.opponent)
    return MilleState(
        phase=view.phase,
        seats=seats,
        deck=(EMPTY,) * view.deck_count,
        discards=view.discards,
        turn=view.turn,
        picked=view.picked,
        trip=view.trip,
        extended=view.extended,
        hand_number=view.hand_number,
        totals=view.totals,
        target=view.target,
    )


class MilleScreen(GameScreen):
    """Board and score window side by side, mileage below, as in BSD ``mille`` (80×24)."""

    CSS_PATH = str(Path(__file__).with_name("game.tcss"))

    def __init__(self, match: GameTable) -> None:
        super().__init__(match)
        self.full_window = False
        """``W``: the full score window (with the bonus rows) instead of the small one."""
        self.ordering = bool(match.display.get(ORDER_KEY, False))
        """``O``: show the hand sorted (slots 1-6; ``P`` stays); kept in the save."""
        self.command: str | None = None
        """``"use"`` or ``"discard"`` while a card is being chosen."""
        self.selected: int | None = None
        """The display row (0 = ``P``) of the chosen card, waiting for Return/Space."""
        self._refused = False
        """True right after a card was refused (until the next key)."""
        self.last_play: tuple[str, int] | None = None
        """What the other seat last played or discarded, from the move's public events."""
        self._asking = False

    # -- drawing -------------------------------------------------------------------

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="mille-top"):
            yield MilleBoard(id="board")
            yield ScoreWindow(id="score-window")
        yield MileageArea(id="mileage")

    @property
    def names(self) -> list[str]:
        """The seats' names, in seat order."""
        return [seat.name for seat in self.match.seats]

    def display_slots(self, view: MilleView) -> list[int]:
        """Hand slots in display order: ``P`` then 1-6, sorted by card when ordering is on."""
        numbered = list(range(1, 7))
        if self.ordering:
            numbered.sort(key=lambda slot: view.me.hand[slot])
        return [0, *numbered]

    def prompt_text(self) -> str:
        """The prompt on the board: ``>>:Move:`` or the command being typed."""
        if not self.match.human_to_move():
            return ""
        if self.command is None:
            return ">>:" + self.t("Move") + ":"
        verb = self.t("Use") if self.command == "use" else self.t("Discard")
        card = "" if self.selected is None else SLOT_NAMES[self.selected]
        return f">>:{verb}: {card}_"

    def refresh_view(self) -> None:
        view: MilleView = self.view  # the screen draws from the view only (it may be a remote table's)
        if view.phase == 0:  # waiting for the first deal: no board to draw (the base screen says who sits)
            return
        seat = self.view_seat
        names = self.names
        ordered = (names[seat], names[1 - seat])
        self.query_one(MilleBoard).show(
            view, self.display_slots(view), self.last_play, self.prompt_text(), self.selected, self.t
        )
        lines = score_window(public_state(view))
        if seat == 1:
            lines = [(label, (values[1], values[0])) for label, values in lines]
        games = (int(self.match.wins[seat]), int(self.match.wins[1 - seat]))
        full = self.full_window or self.match.pending_interlude() is not None
        self.query_one(ScoreWindow).show(ordered, lines, games, full, self.ordering, list(self.recent), self.t)
        self.query_one(MileageArea).show([(names[seat], view.me), (names[1 - seat], view.opponent)], view.trip, self.t)
        if view.phase != EXTENSION:
            self._asking = False
        elif self.match.human_to_move() and not self._asking:
            self._asking = True
            self.call_after_refresh(self._ask_extension)

    def on_mount(self) -> None:
        """As the original after a restore: which save and its time on the message line."""
        super().on_mount()
        if self.save_path is not None and self.save_path.exists():
            self.message(self.resumed_label(self.save_path))

    def resumed_label(self, path: Path) -> str:
        """ "Resumed “mid-hand”, saved 2026-12-01 07:14." -- or for a name the room chose, only its time."""
        when = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        name = path.name.removesuffix(".toml")
        if re.fullmatch(rf"{re.escape(self.match.game.id)}-\d{{8}}-\d{{6}}", name):
            return self.t("Resumed the save of {when}.", when=when)
        return self.t("Resumed “{name}”, saved {when}.", name=name, when=when)

    # -- the log --------------------------------------------------------------------

    def describe_event(self, event: PublicEvent) -> str:
        return self.fill_names(describe_event(event, self.t))

    def illegal_text(self, error: IllegalAction) -> str:
        """A refusal in BSD ``mille``'s words, in the player's language (a card it names too)."""
        return say_refusal(error, self.t)

    def on_events(self, seat: int, events: list[PublicEvent]) -> None:
        """Remember what the other seat just played or discarded (the event names the card)."""
        if seat == CHANCE:
            self.last_play = None
            return
        for event in events:
            if event.kind in ("play", "discard") and seat != self.view_seat:
                self.last_play = (self.t("PLAY") if event.kind == "play" else self.t("DISCARD"), event.params["card"])

    def on_action(self, seat: int, action: Action, text: str) -> None:
        """Keep plays (not draws) in the log."""
        if action == "draw":
            self.recent.pop()  # the log keeps plays; draws only change the deck counter

    def on_new_game(self) -> None:
        self.last_play = None
        self._reset_command()

    # -- keys -------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """The original's command keys (a small state machine for ``U``/``D``)."""
        key = event.key.lower() if len(event.key) == 1 else event.key
        self._clear_error()  # the next command replaces the previous error
        refused, self._refused = self._refused, False
        if refused and self.command is None and key in KILL:
            # Escape right after a refused card abandons that card (already abandoned): it does
            # not ask to leave the table, whose Yes the next Return -- the confirm key -- would take.
            event.stop()
            event.prevent_default()
            return
        if self.command is not None:
            event.stop()
            event.prevent_default()
            self._command_key(key)
            return
        handled = True
        if key == "p":
            self.action_pick()
        elif key == "u":
            self.action_use()
        elif key == "d":
            self.action_discard()
        elif key == "o":
            self.action_order()
        elif key == "w":
            self.action_window()
        elif key == "s":
            self.action_save()
        elif key in ("r", "ctrl+l"):
            self.action_redraw()
        elif key in ("q", "delete"):
            self.action_quit()
        elif key == "e":
            self.message(self.t("E: command not implemented"), error=True)
        elif key in CONFIRM:
            pass
        elif event.character and event.character.isprintable() and len(event.key) == 1:
            self.message(self.t("unknown command: {command}", command=event.character), error=True)
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    # The command keys as actions: the keys above and the command palette (``GameInfo.commands``) run them.

    def action_pick(self) -> None:
        """``P``: draw a card from the deck."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self._reset_command()
        self.submit("draw")

    def action_use(self) -> None:
        """``U``: start choosing a card to play (its key and Return follow)."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self._start_command("use")

    def action_discard(self) -> None:
        """``D``: start choosing a card to discard (its key and Return follow)."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self._start_command("discard")

    def action_order(self) -> None:
        """``O``: show the hand sorted, or as dealt (kept in saves)."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self.ordering = not self.ordering
        self.match.display[ORDER_KEY] = self.ordering
        self.autosave()  # a setting of the table: resumed as it was left
        self.redraw()

    def action_window(self) -> None:
        """``W``: the full score window (with the bonus rows) or the small one."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self.full_window = not self.full_window
        self.redraw()

    def action_redraw(self) -> None:
        """``R``: redraw the screen."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self.refresh(repaint=True, layout=True)
        self.redraw()

    def action_quit(self) -> None:
        """``Q``: leave the table after "Really?"."""
        self._clear_error()  # as a key does: the next command replaces the previous error
        self._ask_quit()

    def _start_command(self, command: str) -> None:
        if self._my_turn():
            self.command = command
            self.selected = None
            self.redraw()

    def _my_turn(self) -> bool:
        if not self.match.human_to_move():
            seat = self.match.to_move()
            if seat >= 0:
                self.message(self.t("Wait: {name} is thinking.", name=self.seat_name(seat)), error=True)
            return False
        return True

    def _clear_error(self) -> None:
        message = self.query_one(StatusLine).query_one("#message")
        if message.has_class("error"):
            self.query_one(StatusLine).show("")

    def _command_key(self, key: str) -> None:
        if key in KILL:
            self._reset_command()
        elif self.selected is None:
            if key in CARD_KEYS:
                self.selected = CARD_KEYS[key]
            elif key in ("u", "d"):
                self.command = "use" if key == "u" else "discard"
            else:  # "u 9", "u x", or Return before a card: say what is wanted (with the bell)
                verb = self.t("use") if self.command == "use" else self.t("discard")
                self.message(self.t("Which card to {verb}? Type P or 1-6 (Escape cancels).", verb=verb), error=True)
        elif key in CONFIRM:
            row = self.selected
            verb = self.command or "use"
            self._reset_command()
            slot = self.display_slots(self.view)[row]
            if not self.submit(f"{verb}:{SLOT_NAMES[slot]}"):
                self._refused = True
                self.redraw()
            return
        elif key in ERASE:
            self.selected = None
        elif key in ("u", "d"):
            self.command = "use" if key == "u" else "discard"
        else:
            self.message(self.t("Return or Space to confirm, Backspace to choose again, Escape to cancel."), error=True)
        self.redraw()

    def _reset_command(self) -> None:
        self.command = None
        self.selected = None

    # -- mouse ------------------------------------------------------------------------

    def on_mille_board_slot_clicked(self, event: MilleBoard.SlotClicked) -> None:
        """A click selects the card for use; Return/Space confirms (``D`` first to discard)."""
        if not self._my_turn():
            return
        if self.view.me.hand[self.display_slots(self.view)[event.row]] < 0:
            self.message(self.t("no card there"), error=True)
            return
        self.command = self.command or "use"
        self.selected = event.row
        self.message(self.t("Return or Space to confirm, D to discard instead, Escape to cancel."))
        self.redraw()

    def on_mille_board_deck_clicked(self, _event: MilleBoard.DeckClicked) -> None:
        """A click on the deck picks."""
        self._reset_command()
        self.submit("draw")

    # -- prompts ------------------------------------------------------------------------

    def _ask_extension(self) -> None:
        def answer(extend: bool | None) -> None:
            if (
                self.view.phase == EXTENSION
                and self.match.human_to_move()
                and self.submit("extend" if extend else "stop")
            ):
                # Asked until the view leaves the extension phase: at a shared table the answer takes a
                # round trip, and the redraw as the dialog closes would otherwise ask again.
                return
            self._asking = False

        self.app.push_screen(
            YesNoDialog(self.t("Extension? Go on to 1000 miles (yes) or stop the hand at 700 (no).")), answer
        )

    def _ask_quit(self) -> None:
        """``Q``: the original's "Really?", saying (as Esc's question does) what becomes of the game."""
        if self.match.over:
            self.app.pop_screen()
            return

        def answer(really: bool | None) -> None:
            if really:
                self.leave_table()

        self.app.push_screen(YesNoDialog(self.t("Really? {note}", note=self.leave_note())), answer)

    def show_interlude(self, interlude: Interlude) -> None:
        """End of hand: the full score window, then ``Another hand?`` (no: ``Save game?``)."""
        self.paused = True
        self._reset_command()

        def chosen(choice: str | None) -> None:
            self.paused = False
            if choice == "again":
                self.match.acknowledge(interlude)
                self.advance()
                return
            self._offer_save()

        self.app.push_screen(
            ResultDialog(
                self.t(interlude.title),
                self.t("Another hand?"),
                self.result_table(interlude.lines, interlude.scores),
                [("again", self.t("Another hand"), "y"), ("leave", self.t("Leave"), "n")],
            ),
            chosen,
        )

    def result_table(self, lines, scores, winners=(), totals=None) -> ResultTable:
        """The score window's lines, then Games; no "Score" row (it would repeat Overall Total)."""
        lines = [*lines, ("Games", tuple(self.match.wins))]
        return ResultTable([s.name for s in self.match.seats], lines, scores, totals, winners, self.t, score_row=False)

    def _offer_save(self) -> None:
        def answer(save: bool | None) -> None:
            if save:
                self.action_save(then_leave=True)
            else:
                self.app.pop_screen()

        self.app.push_screen(YesNoDialog(self.t("Save game?")), answer)
