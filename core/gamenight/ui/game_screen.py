"""The base class of every game's screen: turns, bots, chance, pauses, the end.

A game's screen subclasses :class:`GameScreen`, composes its table in
:meth:`GameScreen.compose_table` and redraws it in :meth:`GameScreen.refresh_view`.
A person's move goes through :meth:`GameScreen.submit`; everything else --
chance outcomes, bots thinking in a worker thread with a visible indicator,
pacing so a person can follow, end-of-hand pauses, the end dialog with
running totals and "play again", saving, the help screen -- is done here.

Which seat's view to draw is :attr:`GameScreen.view_seat`: the only person at
the table, or in hot-seat play the person to move (with a hand-over prompt
in games with hidden information), or seat 0 when only bots play.

A screen is given a :class:`~gamenight.sdk.GameTable`: a local match, a shared
table or a replay.  At a shared table the table service drives the game; in a
local match the room does.  Every step that differs between the two -- applying a
move or sending it, the bots and chance or the service's snapshots, autosave,
play again, saving, leaving, chat, waiting -- is handed to :attr:`GameScreen.controls`,
chosen once when the screen is made: a
:class:`~gamenight.ui.table_controls.LocalTableControls` or a
:class:`~gamenight.ui.shared_table.SharedTableControls`.  This class does not ask
which it holds.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast, runtime_checkable

from textual import work
from textual._context import active_app
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from gamenight.dialogs import MessageDialog, ResultDialog, ResultTable, YesNoDialog
from gamenight.i18n import _, translator
from gamenight.match import Match
from gamenight.sdk import CHANCE, Action, GameTable, IllegalAction, Interlude, PublicEvent, fill_seat_names
from gamenight.text import pad_cells, shown_path  # (pad_cells, shown_path: SDK names, re-exported)
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.coach import Coach, CoachPanel
from gamenight.ui.shared_table import CHAT_LOG_LINES, SharedTableControls, refused_move_text, show_chat_line
from gamenight.ui.status_line import StatusLine
from gamenight.ui.table_controls import LocalTableControls, TableControls
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.save_store import SaveStore
    from gamenight.sdk import GameInfo
    from gamenight.tables.client import RemoteTable

__all__ = ["GameScreen", "Room", "StatusLine", "pad_cells", "shown_path"]


@runtime_checkable
class Room(Protocol):
    """What a game's table may use of the room it runs in (:attr:`GameScreen.room`).

    The room (``gamenight``'s app) provides all of it; a test harness or another
    host may provide it too. Beyond this, a table uses only Textual's own ``App``
    API (``push_screen``, ``pop_screen``, ``notify``, ``bell``, ``call_from_thread``).
    """

    bot_delay: float
    """Seconds a bot's move stays visible before the next one."""

    @property
    def saves(self) -> SaveStore:
        """Where games are saved and autosaved."""
        ...

    def open_help(self, game: GameInfo, extra: str = "") -> None:
        """Show ``game``'s rules and keys, with ``extra`` Markdown at the end."""
        ...


class GameScreen(Screen):
    """Base class for a game's table.  Subclass, compose, redraw, submit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", _("Help")),
        # Not in the key bar (a game's own keys need its room at 80 columns): in the palette.
        Binding(
            "question_mark", "hint", _("Hint"), tooltip=_("The coach: the best choices and what each costs"), show=False
        ),
        Binding("ctrl+s", "save", _("Save")),
        Binding("escape", "leave", _("Leave")),
        Binding("ctrl+t", "chat", _("Chat"), tooltip=_("Say one line to everyone at this shared table")),
        # Not in the key bar (at 80 columns it would push a game's own keys off it, in Japanese):
        # in the command palette, and named on the log's own border.
        Binding(
            "ctrl+o", "chat_log", _("Chat log"), tooltip=_("Show or hide the table's last 50 chat lines"), show=False
        ),
        Binding(
            "ctrl+b", "start_now", _("Start with bots"), tooltip=_("Start the table now: bots take the free seats")
        ),
    ]

    DEFAULT_CSS = """
    GameScreen #title-bar { height: 1; dock: top; background: $primary; color: $text; padding: 0 1; }
    GameScreen #bottom-bar { dock: bottom; height: auto; }
    GameScreen #bottom-bar Footer { dock: none; }
    GameScreen { layers: default coach; }
    GameScreen #waiting-table { display: none; height: 1fr; padding: 1 2; }
    """

    remote = False
    """True at a shared table (``match`` is a :class:`~gamenight.tables.client.RemoteTable`):
    the table service moves the bots and chance; this screen shows its snapshots and sends moves."""
    controls: TableControls
    """What this screen does that depends on the kind of table: a
    :class:`~gamenight.ui.shared_table.SharedTableControls` at a shared table, a
    :class:`~gamenight.ui.table_controls.LocalTableControls` in a game played here and in a replay.
    Chosen once, in ``__init__``; every difference between the two is a call to it."""

    class BotMoved(Message):
        """Posted by the bot worker with its choice (thread-safe)."""

        def __init__(self, token: int, action: Action | None, error: str | None = None) -> None:
            super().__init__()
            self.token = token
            self.action = action
            self.error = error

    @property
    def room(self) -> Room | None:
        """The room this table runs in, or None when the app is not a gamenight room."""
        app = self.app
        return app if isinstance(app, Room) else None

    def __init__(self, match: GameTable) -> None:
        super().__init__()
        self.match: GameTable = match
        """What the screen is given: a local match, a shared table or a replay (:class:`~gamenight.sdk.GameTable`)."""
        if getattr(match, "remote", False):  # the one choice of the kind of table: its stand-in for a match says so
            self.remote = True
            self.controls = SharedTableControls(self, cast("RemoteTable", match))
        else:
            self.controls = LocalTableControls(self)
        self._end_dialog: ResultDialog | None = None
        """The end dialog while it is open (a watcher's goes when the players start the next game)."""
        self.t = translator(match.game.id)
        """The game's translation function, for the subclass's strings."""
        translate_bindings(self, self.t, _ROOM_ACTIONS)
        self.recent: deque[str] = deque(maxlen=50)
        """Sentences describing the latest actions, newest last."""
        self.chat_lines: deque[tuple[str, str]] = deque(maxlen=CHAT_LOG_LINES)
        """A shared table's chat as ``(name, text)``, newest last (what its chat log shows)."""
        self.save_path: Path | None = None
        self._bot_token = 0
        self._thinking_since = 0.0
        self._spin = 0
        self.paused = False
        """True while a dialog or prompt holds the game (no moves, no bots)."""
        self._view_seat = self._initial_view_seat()
        self.coach = Coach(self)
        """The coach: the hint panel and the warning before a costly move (a local game only)."""
        self._past_coach: Action | None = None
        self._hidden_while_waiting: list[Widget] = []
        """The game's widgets the waiting table's text stands in for (:meth:`_show_waiting_table`)."""
        self._load_own_css()

    # -- to be provided by the game ----------------------------------------

    def compose_table(self) -> ComposeResult:
        """Yield the game's widgets (everything between title and status lines)."""
        yield from ()

    def refresh_view(self) -> None:
        """Redraw the table from ``self.match`` for :attr:`view_seat`."""

    def on_action(self, seat: int, action: Action, text: str) -> None:
        """Called after every applied action with its description (for logs)."""

    def on_events(self, seat: int, events: list[PublicEvent]) -> None:
        """Called after every applied action, before :meth:`on_action`, with its public events.

        What a move did -- the card played, the piece placed -- is here, for a
        local match and a shared table alike; a screen never needs the state
        before the move.
        """

    def title_text(self) -> str:
        """The title bar's text; the default is the game's title and the player to move."""
        seat = self.match.to_move()
        title = self.t(self.match.game.title)
        if seat >= 0 and not self.table_waiting:  # a waiting table's first player is not to move yet
            title = _("{game} — {name} to move", game=title, name=self.match.seats[seat].name)
        return title + self.controls.title_notes()

    def highlighted_action(self) -> Action | None:
        """The action the table's cursor stands on, if the screen has one (``None``: none).

        Optional: a screen with a cursor over choices (boxes, holds, cards, placements)
        returns the action pressing its key would make, and the coach panel's last line
        says what that choice is worth and costs as the cursor moves.  It is read often
        (the screen's timer): keep it cheap, and never let it raise.  Since SDK 1.2.
        """
        return None

    def coach_panel_box(self) -> tuple[int, int]:
        """Where the coach panel goes: ``(top, width)``, the screen row it starts on and its width.

        It lies over the right of the table, from ``top`` down to the status line at most.  The
        default, ``(1, 42)``, starts below the title bar; a table whose right side begins with
        what a player must keep seeing (Yatzy's dice) starts it below that.  Since SDK 1.2.
        """
        return (1, 42)

    def describe_choice(self, action: Action) -> str:
        """A legal action of the seat to move, in words, for the coach's list of choices.

        The default is the rules' words for a choice (:meth:`Rules.describe_choice` on the
        current position, seats by name; a game that has none gives its log sentence).  Where
        two actions read the same but are worth different amounts (a card bid "face down"), the
        coach adds the action itself to tell them apart; override this for short words of your
        own ("Bid K").  Since SDK 1.2.
        """
        rules = self.match.rules
        try:
            if callable(getattr(rules, "describe_choice", None)):
                text = rules.describe_choice(self._local_match.state, action, self.match.to_move())
            else:  # rules that are not an SDK ``Rules`` subclass: their log sentence
                text = rules.describe_action(self._local_match.state, action, self.match.to_move())
        except Exception:  # a game's own sentence failing: the action itself is still a word
            return action
        return self.fill_names(text)

    def waiting_text(self) -> str:
        """What a shared table waiting for people says ("" when it is not waiting): the seats, who sits
        where, how the others join, and the keys that start or leave it.  The screen shows it in place
        of the game's table while the table waits (the table has nothing to show before its first deal)."""
        return self.controls.waiting_text()

    def palette_title(self, binding: Binding) -> str:
        """The command-palette title of one of the table's keys (the key is added after it).

        The default is the key's label in the key bar; override it where that
        label names a group of keys ("Hold 1-5") rather than this key's deed.
        """
        return binding.description

    # -- seats and views ---------------------------------------------------

    @property
    def view_seat(self) -> int:
        """The seat whose view the table shows."""
        return self._view_seat

    @property
    def view(self) -> Any:
        """The current view of :attr:`view_seat`."""
        return self.match.view(self._view_seat)

    def _initial_view_seat(self) -> int:
        return self.humans[0] if self.humans else 0

    @property
    def _local_match(self) -> Match:
        """``match`` as the game this room plays itself, on the paths only such a game takes (chance,
        bots, saving, recording); a replay's table stands in for one there and refuses every move."""
        return cast("Match", self.match)

    @property
    def table_waiting(self) -> bool:
        """True while this shared table waits for people to sit down: no move yet."""
        return self.controls.waiting

    @property
    def in_replay(self) -> bool:
        """True when this screen shows a replay (``gamenight replay``, the records' past games): read-only,
        with the replay's own key bar and, at 100 columns and more, its move log beside the table (lay
        side panels out for the narrower space)."""
        return getattr(self.match, "replay", False) is True  # a ReplayTable says so; Match.replay is a method

    @property
    def watching(self) -> bool:
        """True for a watcher of a shared table: no seat, no hand, only what is public."""
        return self.controls.watching

    @property
    def humans(self) -> list[int]:
        """The seats played by people (at a shared table: this room's own seat)."""
        return self.controls.humans()

    def describe(self, state: Any, action: Action, seat: int) -> str:
        """The rules' sentence for an action, with the seats' names filled in.

        Kept for screens written before :meth:`describe_event`; it needs a full
        state, which a shared table does not have, so the base class no longer
        calls it (unless a subclass overrides it).
        """
        text = self.match.rules.describe_action(state, action, seat)
        return fill_seat_names(text, [s.name for s in self.match.seats])

    def describe_event(self, event: PublicEvent) -> str:
        """One public event as a sentence in the player's language, seats by name.

        Override it for your game's event kinds (:meth:`Rules.public_events`);
        the default says the :attr:`PublicEvent.ACTION` event's text, and for
        another kind its name and details.
        """
        params = event.params
        if event.kind == PublicEvent.ACTION:
            text = str(params.get("text", ""))
        else:
            details = ", ".join(f"{key}={value}" for key, value in params.items())
            text = f"{event.kind} ({details})" if details else event.kind
        return self.fill_names(text)

    def describe_events(self, events: list[PublicEvent]) -> str:
        """The sentences of a move's events, in one line."""
        return " ".join(text for text in (self.describe_event(event) for event in events) if text)

    def illegal_text(self, error: IllegalAction) -> str:
        """Why a move was refused, in the player's language (the rules raise it as data, in English)."""
        return self.fill_names(error.say(self.t))

    def fill_names(self, text: str) -> str:
        """``text`` with every :func:`~gamenight.sdk.seat_token` replaced by that seat's name."""
        return fill_seat_names(text, [s.name for s in self.match.seats])

    def seat_name(self, seat: int) -> str:
        """A seat's name (``"Table"`` for chance)."""
        return _("Table") if seat == CHANCE else self.match.seats[seat].name

    # -- styles ----------------------------------------------------------------

    @classmethod
    def _css_owner(cls) -> str:
        """The name of the class that declares ``CSS_PATH`` (its rules apply under that class only)."""
        for base in cls.__mro__:
            if base.__dict__.get("CSS_PATH") is not None:
                return base.__name__
        return cls.__name__

    def _load_own_css(self) -> None:
        """Load the game's ``CSS_PATH`` files scoped to its screen, so they style no other screen.

        Textual reads a screen's ``CSS_PATH`` into the app's one stylesheet
        unscoped: a game's ``.seat-name { height: 1; }`` then squeezed the
        setup screen's name fields, and one game's ``#side`` moved another's
        dice.  Here each rule is prefixed by the screen class, as Textual does
        for ``DEFAULT_CSS`` (a selector that already starts with it is kept).
        The game's own dialogs are screens of their own: they carry their
        style in ``DEFAULT_CSS``.
        """
        app = active_app.get(None)
        if app is None or not self.css_path:
            return  # made outside a running app: Textual loads CSS_PATH as usual when it is pushed
        stylesheet = app.stylesheet
        scope = self._css_owner()
        added = False
        for path in self.css_path:
            read_from = (str(path), f"{scope}.CSS_PATH")
            if stylesheet.has_source(*read_from):
                continue
            try:
                css = Path(path).read_text(encoding="utf-8")
            except OSError as error:
                raise OSError(f"{type(self).__name__}: cannot read its stylesheet {path}: {error}") from error
            stylesheet.add_source(css, read_from=read_from, is_default_css=False, scope=scope)
            added = True
        self.css_path = []  # loaded here, scoped: Textual would add the files again, for every screen
        if added:
            stylesheet.reparse()
            stylesheet.update(app)

    # -- composition ---------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="title-bar", markup=False)
        yield CoachPanel()
        yield from self.compose_table()
        # a shared table waiting for people: this in place of the game's widgets (_show_waiting_table)
        yield Static("", id="waiting-table", markup=False)
        with Vertical(id="bottom-bar"):
            yield from self.controls.bottom_widgets()
            yield StatusLine()
            yield KeyBar()

    def on_mount(self) -> None:
        self.set_interval(0.12, self._tick)
        self.call_after_refresh(self.advance)

    def on_screen_resume(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        """Redraw the title bar and the table (after a change the rules did not make)."""
        self.controls.redraw()

    def _draw_title(self) -> None:
        title_bar = self.query_one("#title-bar", Static)
        title = self.title_text()
        if title_bar.content != title:  # one line, docked: a new title needs no layout
            title_bar.update(title, layout=False)

    def _show_waiting_table(self) -> None:
        """While a shared table waits for people, its :meth:`waiting_text` in place of the game's
        widgets (an empty board said nothing of who sits or how the others join); the game's widgets
        again once it starts.  Only a change lays the screen out."""
        text = self.waiting_text()
        waiting = self.query_one("#waiting-table", Static)
        if text and not waiting.display:
            waiting.display = True
            self._hidden_while_waiting = [widget for widget in self._table_widgets() if widget.display]
            for widget in self._hidden_while_waiting:
                widget.display = False
        elif not text and waiting.display:
            waiting.display = False
            for widget in self._hidden_while_waiting:  # (those the game itself hid stay hidden)
                widget.display = True
            self._hidden_while_waiting = []
        if text and str(waiting.content) != text:
            waiting.update(text)

    def _table_widgets(self) -> list[Widget]:
        """The widgets :meth:`compose_table` made: the screen's children between the coach panel and
        the waiting table's text (Textual puts its own, the toasts and the tooltip, first)."""
        children = list(self.children)
        start = children.index(self.query_one(CoachPanel)) + 1
        return children[start : children.index(self.query_one("#waiting-table"))]

    def message(self, text: str, error: bool = False) -> None:
        """Show a message on the status line; errors ring the bell."""
        self.query_one(StatusLine).show(text, error)
        if error:
            self.app.bell()

    # -- acting --------------------------------------------------------------

    def submit(self, action: Action) -> bool:
        """Apply a person's move.  Returns False (with a message) if refused.

        Refused when it is not a person's turn in this screen -- e.g. a key
        pressed while a bot thinks is ignored, never applied to the bot's
        turn -- or when the rules reject it (nothing changes then).
        """
        if self.paused:
            return False  # a prompt is open; it has the keys
        if not self.match.human_to_move():
            seat = self.match.to_move()
            if seat >= 0:
                self.message(_("Wait: {name} is thinking.", name=self.seat_name(seat)), error=True)
            return False
        seat = self.match.to_move()
        if len(self.humans) > 1 and seat != self._view_seat and not self.match.game.perfect_information:
            return False
        past_coach, self._past_coach = self._past_coach, None
        return self.controls.submit(action, past_coach)  # applied here (the coach may ask first), or sent

    def submit_past_coach(self, action: Action) -> bool:
        """Submit ``action`` the coach has let through (the player said Yes, or it costs little)."""
        self._past_coach = action
        try:
            return self.submit(action)
        finally:
            self._past_coach = None

    def action_hint(self) -> None:
        """``?``: the coach panel -- the best choices for the seat to move and what each costs -- or why not."""
        self.coach.toggle()

    def mark_coached(self) -> None:
        """The coach showed advice in this game: it is marked ``coached`` (in its save and its record)."""
        if isinstance(self.match, Match):  # (a shared table's game is the service's; a replay is past)
            self.match.coached = True

    def _apply(self, action: Action) -> None:
        seat = self.match.to_move()
        old_style = self._describes_from_state()
        text = self.describe(self._local_match.state, action, seat) if old_style else ""
        self.match.apply(action)
        text = self._after_move(seat, action, text if old_style else None)
        if seat != CHANCE and text:
            self.message(text)
        self.autosave()

    def _describes_from_state(self) -> bool:
        """True for a screen written before events that overrides :meth:`describe` (it gets a state)."""
        return type(self).describe is not GameScreen.describe

    def _after_move(self, seat: int, action: Action, text: str | None = None) -> str:
        """Log an applied move from its public events; returns its sentence."""
        events = self.match.last_events()
        if text is None:
            text = self.describe_events(events)
        self.recent.append(text)
        self.on_events(seat, events)
        self.on_action(seat, action, text)
        return text

    def advance(self) -> None:
        """Drive the game until a person must act, a pause or the end."""
        if self.paused or not self.is_attached:
            return
        self.controls.advance()  # chance, bots and the turn here; or the table service's latest snapshot

    def _human_turn(self, seat: int) -> None:
        if seat == self._view_seat:
            return
        if len(self.humans) > 1 and not self.match.game.perfect_information:
            self._handover(seat)
            return
        self._view_seat = seat
        self.redraw()

    def _handover(self, seat: int) -> None:
        """Hot-seat with hidden cards: hide the table until the next person is ready."""
        self.paused = True
        self._view_seat = seat
        self.refresh_view()

        def ready(_answer: None) -> None:
            self.paused = False
            self.redraw()

        self.app.push_screen(
            MessageDialog(_("Hand over"), _("Pass the keyboard to {name}, then press OK.", name=self.seat_name(seat))),
            ready,
        )

    # -- a shared table: the service's messages and the keys only it offers ----------------

    def table_message(self, message: Any) -> None:
        """A message from the table service (the app hands every one to the screens)."""
        self.controls.on_message(message)

    def refused_move_text(self, error: Any) -> str:
        """Why the service refused this seat's move (an ``Error`` with the rules' reason as data), in
        the room's language and the game's own words, as :meth:`illegal_text` says it in a local game."""
        return refused_move_text(self, error)

    def chat_line(self, name: str, text: str) -> None:
        """A line of the table's chat: on the status line (cut to its width) and in the chat log."""
        show_chat_line(self, name, text)

    def tables_changed(self) -> None:
        """The connection to the table service came or went (the app calls this)."""
        self.controls.connection_changed()

    def action_chat(self) -> None:
        """Say one line to the table (plain text, at most 200 characters)."""
        self.controls.ask_chat()

    def action_chat_log(self) -> None:
        """Show the table's chat log above the status line (focused, to scroll it), or hide it."""
        self.controls.toggle_chat_log()

    def action_start_now(self) -> None:
        """The host starts the waiting table: the table's bot plays the seats nobody took."""
        self.controls.start_now()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _ROOM_ACTIONS:
            return self.controls.offers(action)  # the chat's keys only at a shared table, ...
        return self.controls.offers_moves()

    # -- bots ----------------------------------------------------------------

    @property
    def bot_delay(self) -> float:
        """Seconds a bot's move is held back so people can follow it."""
        room = self.room
        return float(room.bot_delay) if room is not None else 0.5

    def _start_bot(self) -> None:
        self._bot_token += 1
        self._thinking_since = time.monotonic()
        self._think(self._bot_token)

    @work(thread=True, group="bot", exit_on_error=False)
    def _think(self, token: int) -> None:
        worker = get_current_worker()
        started = time.monotonic()
        try:
            action = self._local_match.bot_choice(should_stop=lambda: worker.is_cancelled)
        except Exception as error:
            self.post_message(self.BotMoved(token, None, f"{type(error).__name__}: {error}"))
            return
        remaining = self.bot_delay - (time.monotonic() - started)
        while remaining > 0 and not worker.is_cancelled:
            time.sleep(min(remaining, 0.05))
            remaining -= 0.05
        if not worker.is_cancelled:
            self.post_message(self.BotMoved(token, action))

    def on_game_screen_bot_moved(self, event: BotMoved) -> None:
        if event.token != self._bot_token or not self.match.bot_to_move():
            return  # a stale answer (the game moved on, or was reloaded)
        self._thinking_since = 0.0
        self.query_one(StatusLine).thinking("")
        if event.action is None:
            self.message(_("The bot failed: {error}", error=event.error), error=True)
            return
        try:
            self._apply(event.action)
        except IllegalAction as error:
            self.message(_("The bot chose an illegal move: {error}", error=self.illegal_text(error)), error=True)
            return
        self.advance()

    def _tick(self) -> None:
        self.controls.tick(self.query_one(StatusLine))  # a bot's spinner and the coach; or "Waiting for …"

    @property
    def bot_thinking(self) -> bool:
        """True while a bot's worker is deciding."""
        return bool(self._thinking_since) and self.match.bot_to_move()

    # -- pauses and the end --------------------------------------------------

    def result_table(self, lines, scores, winners=(), totals=None) -> ResultTable:
        """A :class:`ResultTable` for this match's seat names."""
        return ResultTable([s.name for s in self.match.seats], lines, scores, totals, winners, self.t)

    def show_interlude(self, interlude: Interlude) -> None:
        """Show an end-of-hand pause; override for a game-specific prompt."""
        self.paused = True

        def chosen(choice: str | None) -> None:
            self.paused = False
            if choice == "save":
                self.action_save(then_leave=True)
                return
            self.match.acknowledge(interlude)
            self.controls.acknowledged()  # (a shared table goes on once every person has acknowledged)

        self.app.push_screen(
            ResultDialog(
                self.fill_names(self.t(interlude.title)),
                "",
                self.result_table(interlude.lines, interlude.scores),
                [("continue", _("Continue"), "c"), ("save", _("Save and leave"), "s")],
            ),
            chosen,
        )

    def show_end(self) -> None:
        """Record the result and show the end dialog (play again / leave)."""
        outcome = self.controls.finish()  # recorded here, or the service's to keep
        # The screen stays dimmed behind the dialog exactly as it is now (Textual repaints no covered
        # screen): the last "Waiting for …" (or a move timer) must go before the dialog comes.
        with contextlib.suppress(NoMatches):
            self.query_one(StatusLine).thinking("")
        self.refresh_bindings()  # nor the game's move keys in the key bar
        names = [self.match.seats[w].name for w in outcome.winners]
        if len(names) == 1:
            headline = _("Winner: {name}", name=names[0])
        else:
            headline = _("A tie between {names}.", names=", ".join(names))
        self.paused = True

        def chosen(choice: str | None) -> None:
            self._end_dialog = None
            if choice == "review":  # the game stays paused: the dialog comes back after the review
                self._open_review(then=show_dialog)
                return
            self.paused = False
            if choice == "watch":
                self.redraw()  # a watcher stays at the table: the final position, then the next game
            elif choice == "again":
                self.play_again()
            else:
                self._close_finished()

        if self.watching:  # a watcher cannot ask for another game: only the players can
            choices = [("watch", _("Keep watching"), "k"), ("leave", _("Leave"), "l")]
        else:
            choices = [("again", _("Play again"), "a"), ("leave", _("Leave"), "l")]
        # review is after the game (a key, not a fourth button): a local match has its whole log; a shared
        # table's player reviews their own decisions in the game's save the service sends them
        keys = [] if self.watching else [("review", _("Review"), "e")]

        def show_dialog() -> None:
            self.paused = True
            dialog = ResultDialog(
                self.end_title(),
                headline,
                self.result_table(outcome.lines, outcome.scores, outcome.winners, self.match.totals),
                choices,
                keys=keys,
            )
            self._end_dialog = dialog
            self.app.push_screen(dialog, chosen)

        show_dialog()

    def _open_review(self, then: Callable[[], None] | None = None) -> None:
        """Review the game just finished (the coach's view of every person decision), then ``then``.

        A game without a coach says so and goes straight on to ``then``.
        """
        from gamenight.ui.review_screen import ReviewScreen, no_coach_message

        message = no_coach_message(self.match.game)
        source: Match | None = None
        own_seats: list[int] | None = None  # a shared table's player reviews only their own decisions
        if message is None:
            source, own_seats, message = self.controls.review_source()
        if message is not None:
            self.notify(message, severity="warning", markup=False)
            if then is not None:
                then()
            return
        assert source is not None  # no message: the game is here
        self.app.push_screen(
            ReviewScreen(source, getattr(self.app, "registry", None), own_seats),
            (lambda _result: then()) if then is not None else None,
        )

    def keep_record(self) -> None:
        """Hand the finished game to the room's records, if the room keeps any (it never raises)."""
        keep = getattr(self.room, "record_finished_game", None)
        if callable(keep):
            keep(self._local_match)

    def end_title(self) -> str:
        """The end dialog's title; a game whose games are deals or hands says so."""
        return _("Game over")

    def play_again(self) -> None:
        """Start a new game with the same seats; running totals carry over."""
        self.controls.play_again()  # (at a shared table the service starts it once every person asked)

    def on_new_game(self) -> None:
        """Called when "play again" starts a fresh game (reset widgets here)."""

    # -- saving, help, leaving -------------------------------------------------

    def _saves(self) -> SaveStore | None:
        room = self.room
        return room.saves if room is not None else None

    def autosave(self) -> bool:
        """Keep an autosave of the game in progress (used after a crash or disconnect).

        False (with a message) when it could not be written.
        """
        return self.controls.autosave()  # (the table service keeps a shared game)

    def clear_autosave(self) -> None:
        """Drop the autosave of a finished game."""
        saves = self._saves()
        if saves is not None:
            saves.clear_autosave(self.match.game.id)

    def action_save(self, then_leave: bool = False) -> None:
        """Save to the file the game came from, or ask for a name."""
        self.controls.save(then_leave)  # (the table service keeps a shared game: it says where)

    def action_help(self) -> None:
        """Show the game's rules (the room's help screen: the table does not import the room's screens)."""
        self.show_help()

    def show_help(self, extra: str = "") -> None:
        """The game's rules and keys, with ``extra`` Markdown after them (e.g. advice for this position)."""
        room = self.room
        if room is None:
            self.message(_("The rules are not available here."), error=True)
            return
        coach = self._coach_help()
        room.open_help(self.match.game, "\n\n".join(part for part in (extra, coach) if part))

    def _coach_help(self) -> str:
        """The help's words on ``?`` where the coach can speak: it is in no key bar (a game's own keys
        need its room at 80 columns), so the rules page is where a player learns of it."""
        if self.remote or self.in_replay or self.coach.spec is None:
            return ""
        return "## {title}\n\n{text}".format(
            title=_("The coach"),
            text=_(
                "`?` shows the best choices for the player to move, each with its value and how much worse"
                " than the best, and what the choice under your cursor costs; `?` again hides it. Settings"
                " (`s` in the lobby) can have it open on every turn, or ask before a costly move."
            ),
        )

    def action_leave(self) -> None:
        """Leave the table (asks first while a game is in progress)."""
        if self.match.over:
            self._close_finished()
            return

        def answer(leave: bool | None) -> None:
            if leave:
                self.leave_table()

        self.app.push_screen(YesNoDialog(self.leave_question()), answer)

    def _close_finished(self) -> None:
        """Leave a finished game: a shared table is left (its seat freed), a game played here closed."""
        self.controls.close_finished()

    @property
    def can_autosave(self) -> bool:
        """True when this room keeps autosaves (a game left now can be resumed from the lobby)."""
        return self._saves() is not None and not self.match.over

    @property
    def nothing_played(self) -> bool:
        """True before the first move of the first game at this table: there is nothing to keep (the
        deal, or any other draw of the table's, is no one's move)."""
        match = self._local_match
        return not match.history and all(entry.seat == CHANCE for entry in match.log)

    def leave_note(self) -> str:
        """What becomes of the game if the person leaves now -- the truth, for every leave prompt."""
        return self.controls.leave_note()

    def leave_question(self) -> str:
        """The question asked before leaving a game in progress."""
        return _("Leave this game? {note}", note=self.leave_note())

    def leave_table(self) -> None:
        """Write the autosave (so what :meth:`leave_question` promised holds), stop the bots and go
        back to the lobby (from a shared table: to the Tables list); if the autosave fails, stay (the
        reason is on the status line)."""
        self.controls.leave()

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "bot")
        self.coach.cancel()
        self.controls.unmounted()


def repaint(widget: Static, content: VisualType) -> None:
    """Show ``content`` in ``widget``: nothing if it shows it already, a repaint if its size stays.

    A move changes a line's words, seldom a widget's size; laying the screen out for each one costs
    a frame over SSH in every room at a shared table.  Only a widget sized by its text (``auto``)
    whose new text needs another width or number of lines lays the screen out."""
    if widget.content == content:
        return
    widget.update(content, layout=False)
    if not widget.is_mounted:
        return
    width, height = widget.styles.width, widget.styles.height
    size = widget.content_size
    if (width is not None and width.is_auto) and widget.get_content_width(
        widget.content_region.size, widget.app.size
    ) != size.width:
        widget.refresh(layout=True)
    elif (height is not None and height.is_auto) and widget.get_content_height(
        widget.content_region.size, widget.app.size, size.width
    ) != size.height:
        widget.refresh(layout=True)


_ROOM_ACTIONS = frozenset(binding.action for binding in GameScreen.BINDINGS if isinstance(binding, Binding))
"""The actions of :class:`GameScreen`'s own keys (said in the room's words in every game); every other
key of a game screen is the game's."""
