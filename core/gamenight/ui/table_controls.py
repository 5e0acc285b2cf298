"""What a game screen does differently by the kind of table it shows: one object, chosen once.

A :class:`~gamenight.ui.game_screen.GameScreen` is given a local match, a replay or a shared
table.  Where the two kinds of play differ -- applying a move or sending it, the bots and chance
or the service's snapshots, autosave, play again, saving, leaving, the thinking indicator, the
waiting table's text -- the screen asks its :attr:`~gamenight.ui.game_screen.GameScreen.controls`
without asking which kind it holds: a :class:`LocalTableControls` for a game played in the room
(and a replay, whose screen refuses every move before it reaches here), or a
:class:`~gamenight.ui.shared_table.SharedTableControls` for a shared table.

A game's own screen never sees these objects: it overrides and calls the screen's public methods
(``submit``, ``advance``, ``title_text`` ...), which hand the step to the controls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from gamenight.dialogs import TextPrompt
from gamenight.i18n import _
from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction
from gamenight.text import shown_path
from gamenight.ui.status_line import SPINNER, StatusLine

if TYPE_CHECKING:
    from gamenight.match import Match
    from gamenight.sdk import Outcome
    from gamenight.ui.game_screen import GameScreen

__all__ = ["SHARED_TABLE_KEYS", "LocalTableControls", "TableControls"]

SHARED_TABLE_KEYS = frozenset({"chat", "chat_log", "start_now"})
"""The actions of :class:`~gamenight.ui.game_screen.GameScreen`'s keys that only a shared table offers
(the chat, its log, the host's start key): a game played here never does."""


class TableControls(ABC):
    """The steps of a game screen that depend on the kind of table; one implementation per kind."""

    screen: GameScreen

    # -- what the screen shows ------------------------------------------------------------

    @property
    @abstractmethod
    def waiting(self) -> bool:
        """True while the table waits for people to sit down: no move yet."""

    @property
    @abstractmethod
    def watching(self) -> bool:
        """True for a watcher: no seat, no hand, only what is public."""

    @abstractmethod
    def humans(self) -> list[int]:
        """The seats people play from this room."""

    @abstractmethod
    def title_notes(self) -> str:
        """What the title bar adds after the game and the player to move ("" for nothing)."""

    @abstractmethod
    def waiting_text(self) -> str:
        """What a table waiting for people says ("" when it is not waiting)."""

    @abstractmethod
    def bottom_widgets(self) -> Iterator[Widget]:
        """Widgets of the bottom bar above the status line (a shared table's chat log)."""

    @abstractmethod
    def redraw(self) -> None:
        """Redraw the title bar and the table."""

    @abstractmethod
    def tick(self, status: StatusLine) -> None:
        """The screen's timer: the thinking indicator on the status line (and the coach's turn)."""

    @abstractmethod
    def offers(self, action: str) -> bool | None:
        """Whether one of the room's own keys (help, hint, save, leave, chat ...) is offered."""

    @abstractmethod
    def offers_moves(self) -> bool | None:
        """Whether the game's move keys are offered (``None``: shown dimmed, doing nothing)."""

    # -- the game ----------------------------------------------------------------------------

    @abstractmethod
    def submit(self, action: Action, past_coach: Action | None) -> bool:
        """A person's move, once it is their turn here; True if made (or sent, and listed legal).

        ``past_coach`` is the move the coach already let through, if any."""

    @abstractmethod
    def advance(self) -> None:
        """Drive the game until a person must act, a pause or the end (the screen is not paused)."""

    @abstractmethod
    def acknowledged(self) -> None:
        """This room's person acknowledged a pause (the match was told): go on, if it is ours to."""

    @abstractmethod
    def finish(self) -> Outcome:
        """The game ended: keep what is ours to keep, and say how it ended."""

    @abstractmethod
    def review_source(self) -> tuple[Match | None, list[int] | None, str | None]:
        """The finished game to review, the seats whose decisions to show (``None``: all), or why not."""

    @abstractmethod
    def play_again(self) -> None:
        """Start (or ask for) another game with the same seats."""

    @abstractmethod
    def on_message(self, message: Any) -> None:
        """A message from the table service (none comes to a game played here)."""

    @abstractmethod
    def connection_changed(self) -> None:
        """The connection to the table service came or went (nothing to a game played here)."""

    @abstractmethod
    def ask_chat(self) -> None:
        """Say one line to the table (a game played here has no one to say it to)."""

    @abstractmethod
    def toggle_chat_log(self) -> None:
        """Show or hide the table's chat log (a game played here has none)."""

    @abstractmethod
    def start_now(self) -> None:
        """Start a waiting table with bots (a game played here never waits)."""

    # -- saving and leaving --------------------------------------------------------------------

    @abstractmethod
    def autosave(self) -> bool:
        """Keep an autosave of the game in progress; False (with a message) if it could not be written."""

    @abstractmethod
    def save(self, then_leave: bool) -> None:
        """Ctrl+S, or "Save and leave" at a pause."""

    @abstractmethod
    def leave_note(self) -> str:
        """What becomes of the game if the person leaves now."""

    @abstractmethod
    def leave(self) -> None:
        """Leave the table for good (the screen goes)."""

    @abstractmethod
    def close_finished(self) -> None:
        """Leave a finished game."""

    @abstractmethod
    def unmounted(self) -> None:
        """The screen closed (however it did)."""


class LocalTableControls(TableControls):
    """A game played in this room (or a replay): the room applies moves, moves the bots, draws chance,
    keeps the autosave and the records."""

    def __init__(self, screen: GameScreen) -> None:
        self.screen = screen

    @property
    def _match(self) -> Match:
        return self.screen._local_match

    # -- what the screen shows ------------------------------------------------------------

    @property
    def waiting(self) -> bool:
        return False  # a game played here starts at once

    @property
    def watching(self) -> bool:
        return False  # (a replay's screen says so itself)

    def humans(self) -> list[int]:
        return [i for i, seat in enumerate(self.screen.match.seats) if seat.is_human]

    def title_notes(self) -> str:
        return ""

    def waiting_text(self) -> str:
        return ""

    def bottom_widgets(self) -> Iterator[Widget]:
        yield from ()

    def redraw(self) -> None:
        screen = self.screen
        screen._draw_title()
        screen.refresh_view()
        screen.coach.refresh()

    def tick(self, status: StatusLine) -> None:
        screen = self.screen
        if screen._thinking_since and screen.match.bot_to_move():
            screen._spin = (screen._spin + 1) % len(SPINNER)
            name = screen.seat_name(screen.match.to_move())
            status.thinking(f"{SPINNER[screen._spin]} {_('{name} is thinking…', name=name)}")
        else:
            status.thinking("")
        if screen.coach.active:
            screen.coach.tick()

    def offers(self, action: str) -> bool | None:
        return action not in SHARED_TABLE_KEYS

    def offers_moves(self) -> bool | None:
        screen = self.screen
        return not (screen.watching or screen.table_waiting or screen.match.over)  # no move to make: not in the bar

    # -- the game ----------------------------------------------------------------------------

    def submit(self, action: Action, past_coach: Action | None) -> bool:
        screen = self.screen
        if past_coach != action and screen.coach.holds(action):
            return False  # the coach asks first ("Are you sure?"), or waits for its advice to know
        try:
            screen._apply(action)
        except IllegalAction as error:
            screen.message(screen.illegal_text(error), error=True)
            return False
        screen.advance()
        return True

    def advance(self) -> None:
        screen = self.screen
        match = self._match
        drew_chance = False
        while match.to_move() == CHANCE and match.pending_interlude() is None:
            old_style = screen._describes_from_state()
            before = match.state if old_style else None
            action = match.apply_chance()
            screen._after_move(CHANCE, action, screen.describe(before, action, CHANCE) if old_style else None)
            drew_chance = True
        if drew_chance:
            screen.autosave()
        screen.redraw()
        interlude = screen.match.pending_interlude()
        if interlude is not None:
            screen.show_interlude(interlude)
            return
        seat = screen.match.to_move()
        if seat == TERMINAL:
            screen.show_end()
            return
        if screen.match.bot_to_move():
            screen._start_bot()
        else:
            screen._human_turn(seat)

    def acknowledged(self) -> None:
        self.screen.advance()

    def finish(self) -> Outcome:
        screen = self.screen
        match = self._match
        first_time = not match.recorded  # a finished game resumed from a save was counted before
        outcome = match.record_result()
        if first_time:
            screen.keep_record()
        screen.clear_autosave()
        return outcome

    def review_source(self) -> tuple[Match | None, list[int] | None, str | None]:
        return self._match, None, None  # the whole log is here

    def play_again(self) -> None:
        screen = self.screen
        self._match.start_game()
        screen.message("")  # the last game's last move is no news in the next one ("Ann played A♣" again)
        screen.recent.clear()
        screen.save_path = None
        screen._view_seat = screen._initial_view_seat()
        screen.on_new_game()
        screen.advance()

    # -- saving and leaving --------------------------------------------------------------------

    def autosave(self) -> bool:
        screen = self.screen
        saves = screen._saves()
        if saves is not None and not screen.match.over and not screen.nothing_played:
            try:
                saves.autosave(self._match)
            except OSError as error:
                screen.message(_("Autosave failed: {reason}", reason=error.strerror), error=True)
                return False
        return True

    def save(self, then_leave: bool) -> None:
        screen = self.screen
        saves = screen._saves()
        if saves is None:
            screen.message(_("Saving is not available here."), error=True)
            return

        def write(name: str | None) -> None:
            if not name:
                screen.message(_("Not saved."))
                return
            try:
                if screen.save_path is not None:
                    path = saves.save_to(self._match, screen.save_path)
                else:
                    path = saves.save(self._match, name)
            except OSError as error:
                screen.message(_("Could not save: {reason}", reason=error.strerror or error), error=True)
                return
            screen.save_path = path
            screen.message(_("Saved to {path}", path=shown_path(path)))
            if then_leave:
                screen.app.pop_screen()

        if screen.save_path is not None:
            write(str(screen.save_path))
        else:
            screen.app.push_screen(TextPrompt(_("Save as:"), saves.suggest_name(self._match), _("Save")), write)

    def leave_note(self) -> str:
        screen = self.screen
        if screen.nothing_played:
            return _("Nothing has been played yet, so nothing is kept.")
        if screen.can_autosave:
            return _("It stays in the autosave and can be resumed from the lobby.")
        return _("It cannot be resumed later.")

    def leave(self) -> None:
        screen = self.screen
        if not screen.nothing_played and not screen.autosave():
            return  # the reason is on the status line; the game stays open
        screen.workers.cancel_group(screen, "bot")
        screen.coach.cancel()
        screen._bot_token += 1
        screen.app.pop_screen()

    def close_finished(self) -> None:
        self.screen.app.pop_screen()

    # -- what only a shared table has: nothing here -------------------------------------------

    def on_message(self, message: Any) -> None:
        pass  # no table service talks to a game played here

    def connection_changed(self) -> None:
        pass

    def ask_chat(self) -> None:
        pass  # (the key is not offered here)

    def toggle_chat_log(self) -> None:
        pass

    def start_now(self) -> None:
        pass

    def unmounted(self) -> None:
        pass  # the bots stop with the screen (GameScreen.on_unmount); nothing else to let go
