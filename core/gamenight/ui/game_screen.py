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
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual._context import active_app
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.visual import VisualType
from textual.widgets import RichLog, Static
from textual.worker import get_current_worker

from gamenight.dialogs import MessageDialog, ResultDialog, ResultTable, TextPrompt, YesNoDialog
from gamenight.i18n import _, translator
from gamenight.match import Match
from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Interlude, PublicEvent, fill_seat_names
from gamenight.text import pad_cells, safe_text, shown_path  # (both SDK names, re-exported)
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.coach import Coach, CoachPanel
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.save_store import SaveStore
    from gamenight.sdk import GameInfo

__all__ = ["GameScreen", "Room", "StatusLine", "pad_cells"]


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


_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class StatusLine(Horizontal):
    """The bottom line: the last message (errors in red) and the thinking indicator."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; }
    StatusLine #message { width: 1fr; padding: 0 1; }
    StatusLine #message.error { color: $text-error; text-style: bold; }
    StatusLine #message.chat { text-wrap: nowrap; text-overflow: ellipsis; }
    StatusLine #thinking { width: auto; padding: 0 1; color: $text-accent; }
    """

    def __init__(self, *children: Any, **options: Any) -> None:
        super().__init__(*children, **options)
        self._indicator = ""
        """The thinking indicator's text as last shown."""

    def compose(self) -> ComposeResult:
        yield Static("", id="message", markup=False)
        yield Static("", id="thinking")

    def show(self, text: str, error: bool = False, chat: bool = False) -> None:
        """Show ``text`` (made safe: it may quote a plugin or a file); errors are highlighted.

        A ``chat`` line is not wrapped but cut with "…" at the line's end: wrapped, a line of one
        long word (or of wide characters) went below the one line shown, leaving only "name:".
        The whole line is in the table's chat log.
        """
        message = self.query_one("#message", Static)
        message.update(safe_text(text), layout=False)  # one line, as wide as the indicator leaves: no reflow
        message.set_class(error, "error")
        message.set_class(chat, "chat")

    def thinking(self, text: str) -> None:
        """Show (or with ``""`` hide) the thinking indicator.

        The same text again draws nothing, and a new text as wide as the old one
        repaints only the indicator: a spinner's turn must not lay out the whole
        screen (it did, 8 times a second, in every room waiting at a shared table).
        """
        if text == self._indicator:
            return
        width_changed = cell_len(text) != cell_len(self._indicator)
        self._indicator = text
        self.query_one("#thinking", Static).update(text, layout=width_changed)


CHAT_LOG_LINES = 50
"""Chat lines a shared table's chat log keeps (the oldest go)."""


class ChatLog(RichLog):
    """A shared table's chat, the last :data:`CHAT_LOG_LINES` lines, wrapped (long words and Japanese
    too: the room's line breaking), above the status line while shown.

    It takes its rows from the table's while shown rather than covering them on a layer of its
    own: over other widgets, Textual cut a wide character that straddled their edges into blanks.
    """

    DEFAULT_CSS = """
    ChatLog {
        height: 8; display: none;
        background: $panel; border-top: solid $primary; border-title-align: left; padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    ChatLog.-shown { display: block; }
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(min_width=1, wrap=True, markup=False, highlight=False, **options)
        self.border_title = _("Chat log · Ctrl+O hides it")
        self.entries: deque[tuple[str, str]] = deque(maxlen=CHAT_LOG_LINES)
        """The chat lines shown (a wrapped one takes several rows of the log)."""
        self._wrapped_at = 0

    def add(self, name: str, text: str) -> None:
        """One chat line: the speaker's name in bold, the text after it (both already made safe)."""
        full = len(self.entries) == self.entries.maxlen
        self.entries.append((name, text))
        if full:  # the oldest line goes, however many rows it took
            self._rewrite()
        else:
            self.write(Text.assemble((name, "bold"), ": ", text))

    def _rewrite(self) -> None:
        self.clear()
        for name, text in self.entries:
            self.write(Text.assemble((name, "bold"), ": ", text))

    def on_resize(self) -> None:
        """Wrap every line again for a new width (a log written before it was shown is wrapped then)."""
        width = self.scrollable_content_region.width
        if width != self._wrapped_at and self._size_known:
            self._wrapped_at = width
            self._rewrite()


_ROOM_ACTIONS = frozenset({"help", "hint", "save", "leave", "chat", "chat_log", "start_now"})
"""The actions of :class:`GameScreen`'s own keys; every other key of a game screen makes a move."""


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
    """

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

    def __init__(self, match: Match) -> None:
        super().__init__()
        self.match = match
        self.remote = bool(getattr(match, "remote", False))
        """True at a shared table (``match`` is a :class:`~gamenight.tables.client.RemoteTable`):
        the table service moves the bots and chance; this screen shows its snapshots and sends moves."""
        self._log_seen = 0
        self._interlude_shown = ""
        self._waiting_note = ""
        """The "Waiting for others" line a shared table's pause put on the status line (cleared after it)."""
        self._end_shown = False
        self._end_dialog: ResultDialog | None = None
        """The end dialog while it is open (a watcher's goes when the players start the next game)."""
        self._left = False
        self._deadline = 0.0
        """When the move timer runs out (monotonic), from the latest snapshot; 0: no timer running."""
        self.t = translator(match.game.id)
        """The game's translation function, for the subclass's strings."""
        translate_bindings(self, self.t)
        self.recent: deque[str] = deque(maxlen=50)
        """Sentences describing the latest actions, newest last."""
        self.chat_lines: deque[tuple[str, str]] = deque(maxlen=CHAT_LOG_LINES)
        """A shared table's chat as ``(name, text)``, newest last (what its chat log shows)."""
        self._focus_before_log: Any = None
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
        if self.remote:
            away = [self.match.seats[s].name for s in self.match.away]
            if away:
                title += " · " + _("away: {names}", names=", ".join(away))
            stand_ins = [info.name for info in self.match.client.snapshot.table.seats if info.taken and info.bot]
            if stand_ins:  # a person's seat the table's bot plays (they left, or stayed away too long)
                title += " · " + _("bot plays for: {names}", names=", ".join(stand_ins))
            if self.match.watching:
                title += " · " + _("watching")
            elif self.match.code:
                title += " · " + _("code {code}", code=self.match.code)
            if self.match.client.snapshot.table.status == "waiting":
                free = sum(info.person and not info.taken for info in self.match.client.snapshot.table.seats)
                title += " · " + _("waiting for {count} more", count=free)
        return title

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

        The default is the rules' sentence (:meth:`Rules.describe_action` on the current
        position, seats by name).  Where two actions read the same but are worth different
        amounts (a card bid "face down"), the coach adds the action itself to tell them
        apart; override this for short words of your own ("Bid K").  Since SDK 1.2.
        """
        try:
            text = self.match.rules.describe_action(self.match.state, action, self.match.to_move())
        except Exception:  # a game's own sentence failing: the action itself is still a word
            return action
        return self.fill_names(text)

    def waiting_text(self) -> str:
        """What a shared table waiting for people says ("" when it is not waiting): the seats, who sits
        where, how the others join, and the keys that start or leave it.  A screen with nothing to
        draw before the first deal (Mille Bornes) shows it instead of a blank table."""
        if not self.table_waiting:
            return ""
        table = self.match.client.snapshot.table
        free = sum(info.person and not info.taken for info in table.seats)
        lines = [_("This table starts when {count} more person(s) sit down.", count=free), ""]
        for index, info in enumerate(table.seats):
            if index == self.match.seat:
                state = _("you")
            elif info.person:
                state = _("seated") if info.taken else _("free, for a person")
            else:
                state = _("a bot")
            lines.append(f"  {index + 1}. {safe_text(info.name, limit=32)} — {state}")
        lines.append("")
        if self.match.code:
            lines.append(
                _("The others join from the lobby: t (Tables), then c and the code {code}.", code=self.match.code)
            )
        else:
            lines.append(_("The others join from the lobby: t (Tables), then this table and Return."))
        if self.match.can_start:
            lines.append(_("Ctrl+B starts now, with bots in the free seats."))
        lines.append(_("Esc leaves the table."))
        return "\n".join(lines)

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
    def table_waiting(self) -> bool:
        """True while this shared table waits for people to sit down: no move yet."""
        if not getattr(self, "remote", False) or self.match.client.snapshot is None:
            return False
        return self.match.client.snapshot.table.status == "waiting"

    @property
    def in_replay(self) -> bool:
        """True when this screen shows a replay (``gamenight replay``, the records' past games): read-only,
        with the replay's own key bar and, at 100 columns and more, its move log beside the table (lay
        side panels out for the narrower space)."""
        return getattr(self.match, "replay", False) is True  # a ReplayTable says so; Match.replay is a method

    @property
    def watching(self) -> bool:
        """True for a watcher of a shared table: no seat, no hand, only what is public."""
        return getattr(self, "remote", False) and self.match.watching

    @property
    def humans(self) -> list[int]:
        """The seats played by people (at a shared table: this room's own seat)."""
        if getattr(self, "remote", False):
            return [self.match.seat] if self.match.seat >= 0 else []
        return [i for i, seat in enumerate(self.match.seats) if seat.is_human]

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
        with Vertical(id="bottom-bar"):
            if self.remote:
                yield ChatLog(id="chat-log")
            yield StatusLine()
            yield KeyBar()

    def on_mount(self) -> None:
        self.set_interval(0.12, self._tick)
        self.call_after_refresh(self.advance)

    def on_screen_resume(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        """Redraw the title bar and the table (after a change the rules did not make)."""
        if self.remote and self._left:
            return  # on its way out (its widgets may be gone already): nothing more to draw
        title_bar = self.query_one("#title-bar", Static)
        title = self.title_text()
        if title_bar.content != title:  # one line, docked: a new title needs no layout
            title_bar.update(title, layout=False)
        if not self.remote:
            self.refresh_view()
            self.coach.refresh()
            return
        try:
            self.refresh_view()
        except NoMatches:  # a snapshot while the table's widgets are not all there: the next one draws
            return
        except AttributeError as error:  # a screen that reads match.state: a shared table has none
            if "full state" not in str(error):
                raise
            self.app.notify(
                _("{game} cannot be played at a shared table yet.", game=self.t(self.match.game.title)),
                severity="error",
                timeout=12,
                markup=False,
            )
            self.leave_table()

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
        if not self.remote and past_coach != action and self.coach.holds(action):
            return False  # the coach asks first ("Are you sure?"), or waits for its advice to know
        if self.remote:
            # A move the snapshot's legal list lacks goes to the service all the same: only the rules,
            # with the whole state, can say why it is refused ("opponent cannot go"), and the answer
            # is said in this room's language (table_message).  Nothing changes meanwhile.
            self.match.apply(action)  # the service's next snapshot shows it (or an error says why not)
            return action in self.match.legal_actions()
        try:
            self._apply(action)
        except IllegalAction as error:
            self.message(self.illegal_text(error), error=True)
            return False
        self.advance()
        return True

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
        if not self.remote and hasattr(self.match, "coached"):
            self.match.coached = True

    def _apply(self, action: Action) -> None:
        seat = self.match.to_move()
        old_style = self._describes_from_state()
        text = self.describe(self.match.state, action, seat) if old_style else ""
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
        if self.remote:
            self._advance_remote()
            return
        drew_chance = False
        while self.match.to_move() == CHANCE and self.match.pending_interlude() is None:
            old_style = self._describes_from_state()
            before = self.match.state if old_style else None
            action = self.match.apply_chance()
            self._after_move(CHANCE, action, self.describe(before, action, CHANCE) if old_style else None)
            drew_chance = True
        if drew_chance:
            self.autosave()
        self.redraw()
        interlude = self.match.pending_interlude()
        if interlude is not None:
            self.show_interlude(interlude)
            return
        seat = self.match.to_move()
        if seat == TERMINAL:
            self.show_end()
            return
        if self.match.bot_to_move():
            self._start_bot()
        else:
            self._human_turn(seat)

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

    # -- a shared table ------------------------------------------------------

    def _advance_remote(self) -> None:
        """Show the latest snapshot: the table, a pause that waits for this seat, or the end."""
        self.redraw()
        interlude = self.match.pending_interlude()
        snapshot = self.match.client.snapshot
        if interlude is not None:
            waiting = snapshot.interlude.waiting if snapshot.interlude else []
            if self.match.seat in waiting and self._interlude_shown != interlude.key:
                self._interlude_shown = interlude.key
                self.show_interlude(interlude)
            elif self.match.seat not in waiting and waiting:
                names = ", ".join(self.match.seats[s].name for s in waiting)
                self._waiting_note = _("Waiting for others: {names}", names=names)
                self.message(self._waiting_note)
            return
        self._interlude_shown = ""
        if self._waiting_note:  # the pause is over: its note goes (unless a newer line replaced it)
            with contextlib.suppress(NoMatches):
                if str(self.query_one(StatusLine).query_one("#message", Static).render()) == self._waiting_note:
                    self.message("")
            self._waiting_note = ""
        if self.match.over:
            if not self._end_shown:
                self._end_shown = True
                self.show_end()
            elif snapshot.again and self.match.seat in snapshot.again:
                self.message(_("Waiting for the others to play again…"))
            return
        if self._end_shown:  # a new game began ("play again" at the table)
            self._end_shown = False
            self.message("")  # the last game's last move is no news in the next one
            dialog, self._end_dialog = self._end_dialog, None
            if dialog is not None and dialog.is_attached and dialog in self.app.screen_stack:
                dialog.dismiss("watch")  # a watcher's end dialog: the next game is on the table now
            self.recent.clear()
            self.on_new_game()
            self.redraw()

    def table_message(self, message: Any) -> None:
        """A message from the table service (the app hands every one to the screens)."""
        if not self.remote or not self.is_attached or not self.is_mounted or self._left:
            return  # not composed yet: on_mount draws the latest snapshot
        if self not in self.app.screen_stack:
            return  # popped, its widgets going (a crash on a missing #title-bar was seen under load)
        from gamenight.tables import protocol as p
        from gamenight.tables.errors import refusal_text

        match message:
            case p.Snapshot():
                self._deadline = time.monotonic() + message.deadline if message.deadline else 0.0
                log = self.match.client.log
                if message.log_start == 0 and self._log_seen > len(log):
                    self._log_seen = 0
                for turn, (seat, sentence) in enumerate(log[self._log_seen :], start=self._log_seen + 1):
                    # The move's public events, said in this room's language (the service's sentence
                    # is only the fallback: a move from before this room came, or a game without events).
                    events = self.match.events_of(turn, sentence)
                    text = (self.describe_events(events) if events else "") or sentence
                    self.recent.append(text)
                    self.on_events(seat, events)
                    self.on_action(seat, "", text)
                    if seat != CHANCE and text:
                        self.message(text)
                self._log_seen = len(log)
                self.refresh_bindings()  # the host's start key comes and goes with the table's status
                self.advance()
            case p.ChatLine():
                name = safe_text(message.name, limit=32)
                if message.watching:
                    name = _("{name} (watching)", name=name)
                self.chat_line(name, safe_text(message.text, limit=200))
            case p.Error() if message.code in ("table-closed", "table-moved"):  # closed, or now run elsewhere
                self.app.notify(refusal_text(message.code, message.message), markup=False)
                self.leave_table()
            case p.Error() if message.code == "illegal":
                self.message(self.refused_move_text(message), error=True)
            case p.Error():
                self.message(refusal_text(message.code, message.message), error=True)

    def refused_move_text(self, error: Any) -> str:
        """Why the service refused this seat's move (an ``Error`` with the rules' reason as data), in
        the room's language and the game's own words, as :meth:`illegal_text` says it in a local game."""
        from gamenight.tables.errors import refusal_text

        reason = error.reason
        if reason is None:
            return refusal_text(error.code, error.message)
        refused = IllegalAction(
            safe_text(error.message, limit=200), code=reason.code, params=reason.params, template=reason.template
        )
        try:
            return self.illegal_text(refused)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError):  # a template its values do not fill
            return refusal_text(error.code, error.message)

    def chat_line(self, name: str, text: str) -> None:
        """A line of the table's chat: on the status line (cut to its width) and in the chat log."""
        self.chat_lines.append((name, text))
        self.query_one(StatusLine).show(f"{name}: {text}", chat=True)
        with contextlib.suppress(NoMatches):
            self.query_one(ChatLog).add(name, text)

    def action_chat_log(self) -> None:
        """Show the table's chat log above the status line (focused, to scroll it), or hide it."""
        log = self.query_one(ChatLog)
        shown = not log.has_class("-shown")
        if shown:
            self._focus_before_log = self.focused
        log.set_class(shown, "-shown")
        if shown:
            log.focus()
            log.scroll_end(animate=False)
        else:
            self.set_focus(self._focus_before_log)

    def tables_changed(self) -> None:
        """The connection to the table service came or went (the app calls this)."""
        if self.remote and self.match.client.closed.is_set():
            self.message(_("The connection to the shared tables was lost."), error=True)

    def action_start_now(self) -> None:
        """The host starts the waiting table: the table's bot plays the seats nobody took."""
        if self.remote and self.match.can_start:
            self.match.start()

    def action_chat(self) -> None:
        """Say one line to the table (plain text, at most 200 characters)."""
        if not self.remote:
            return

        def said(text: str | None) -> None:
            line = " ".join(safe_text(text or "", limit=200).split())
            if line:
                self.match.chat(line[:200])

        self.app.push_screen(TextPrompt(_("Say to the table:"), ""), said)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("chat", "chat_log"):
            return getattr(self, "remote", False)
        if action == "start_now":
            return getattr(self, "remote", False) and self.match.can_start
        if action == "save" and getattr(self, "remote", False):
            # the table service keeps a shared game; the room gets it at the end.  At a solo table
            # Ctrl+S stays, to say where the game is kept (no local file could foretell its dice).
            return bool(getattr(self.match, "solo", False)) and not self.match.over
        if action not in _ROOM_ACTIONS and (self.watching or self.table_waiting or self.match.over):
            return False  # no move to make (watching, not started, or over): not in the bar
        if action not in _ROOM_ACTIONS and getattr(self, "remote", False) and not self.match.human_to_move():
            return None  # another seat's turn at a shared table: the move keys are dimmed, and do nothing
        return True

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
            action = self.match.bot_choice(should_stop=lambda: worker.is_cancelled)
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
        status = self.query_one(StatusLine)
        if self.remote:
            seat = self.match.to_move()
            left = max(0, int(self._deadline - time.monotonic() + 0.999)) if self._deadline else None
            clock = "" if left is None else " " + _("{seconds} s left", seconds=left)
            if seat >= 0 and seat != self.match.seat and self.match.pending_interlude() is None:
                # One turn a second (with the clock): another person may think for minutes, and each
                # turn is a frame sent over SSH to everyone waiting -- a bot's spinner turns faster.
                spin = _SPINNER[int(time.monotonic()) % len(_SPINNER)]
                status.thinking(f"{spin} {_('Waiting for {name}…', name=self.seat_name(seat))}{clock}")
            else:
                status.thinking(clock.strip())
        elif self._thinking_since and self.match.bot_to_move():
            self._spin = (self._spin + 1) % len(_SPINNER)
            name = self.seat_name(self.match.to_move())
            status.thinking(f"{_SPINNER[self._spin]} {_('{name} is thinking…', name=name)}")
        else:
            status.thinking("")
        if not self.remote and self.coach.active:  # (a shared table has no coach: nothing to look up)
            self.coach.tick()

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
            if self.remote:
                return  # the service goes on once every person has acknowledged
            self.advance()

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
        # a finished game resumed from a save was counted before
        first_time = not self.remote and not self.match.recorded
        outcome = self.match.record_result()
        if not self.remote:  # a shared table's game is the service's to keep
            if first_time:
                self.keep_record()
            self.clear_autosave()
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
            elif self.remote:
                self.leave_table()
            else:
                self.app.pop_screen()

        if self.watching:  # a watcher cannot ask for another game: only the players can
            choices = [("watch", _("Keep watching"), "k"), ("leave", _("Leave"), "l")]
        else:
            choices = [("again", _("Play again"), "a"), ("leave", _("Leave"), "l")]
        # review is after the game: a local match has its whole log (a key, not a fourth button)
        keys = [] if self.remote else [("review", _("Review"), "e")]

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
        if message is not None:
            self.notify(message, severity="warning", markup=False)
            if then is not None:
                then()
            return
        self.app.push_screen(
            ReviewScreen(self.match, getattr(self.app, "registry", None)),
            (lambda _result: then()) if then is not None else None,
        )

    def keep_record(self) -> None:
        """Hand the finished game to the room's records, if the room keeps any (it never raises)."""
        keep = getattr(self.room, "record_finished_game", None)
        if callable(keep):
            keep(self.match)

    def end_title(self) -> str:
        """The end dialog's title; a game whose games are deals or hands says so."""
        return _("Game over")

    def play_again(self) -> None:
        """Start a new game with the same seats; running totals carry over."""
        if self.remote:
            if self.match.watching:
                return
            self.match.again()  # the service starts it once every person at the table asked
            self.message(_("Waiting for the others to play again…"))
            return
        self.match.start_game()
        self.message("")  # the last game's last move is no news in the next one ("Ann played A♣" again)
        self.recent.clear()
        self.save_path = None
        self._view_seat = self._initial_view_seat()
        self.on_new_game()
        self.advance()

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
        saves = self._saves()
        if saves is not None and not self.match.over and not self.remote and not self.nothing_played:
            try:
                saves.autosave(self.match)
            except OSError as error:
                self.message(_("Autosave failed: {reason}", reason=error.strerror), error=True)
                return False
        return True

    def clear_autosave(self) -> None:
        """Drop the autosave of a finished game."""
        saves = self._saves()
        if saves is not None:
            saves.clear_autosave(self.match.game.id)

    def action_save(self, then_leave: bool = False) -> None:
        """Save to the file the game came from, or ask for a name."""
        saves = self._saves()
        if self.remote and getattr(self.match, "solo", False):
            self.message(_("This game is kept on the server: Resume (r) in the lobby brings you back to it."))
            if then_leave:
                self.leave_table()
            return
        if self.remote:
            self.message(_("The server keeps a shared game; it reaches your saves when it ends."))
            if then_leave:
                self.leave_table()
            return
        if saves is None:
            self.message(_("Saving is not available here."), error=True)
            return

        def write(name: str | None) -> None:
            if not name:
                self.message(_("Not saved."))
                return
            try:
                if self.save_path is not None:
                    path = saves.save_to(self.match, self.save_path)
                else:
                    path = saves.save(self.match, name)
            except OSError as error:
                self.message(_("Could not save: {reason}", reason=error.strerror or error), error=True)
                return
            self.save_path = path
            self.message(_("Saved to {path}", path=shown_path(path)))
            if then_leave:
                self.app.pop_screen()

        if self.save_path is not None:
            write(str(self.save_path))
        else:
            self.app.push_screen(TextPrompt(_("Save as:"), saves.suggest_name(self.match)), write)

    def action_help(self) -> None:
        """Show the game's rules (the room's help screen: the table does not import the room's screens)."""
        self.show_help()

    def show_help(self, extra: str = "") -> None:
        """The game's rules and keys, with ``extra`` Markdown after them (e.g. advice for this position)."""
        room = self.room
        if room is None:
            self.message(_("The rules are not available here."), error=True)
            return
        room.open_help(self.match.game, extra)

    def action_leave(self) -> None:
        """Leave the table (asks first while a game is in progress)."""
        if self.match.over:
            if self.remote:
                self.leave_table()
                return
            self.app.pop_screen()
            return

        def answer(leave: bool | None) -> None:
            if leave:
                self.leave_table()

        self.app.push_screen(YesNoDialog(self.leave_question()), answer)

    @property
    def can_autosave(self) -> bool:
        """True when this room keeps autosaves (a game left now can be resumed from the lobby)."""
        return self._saves() is not None and not self.match.over

    @property
    def nothing_played(self) -> bool:
        """True before the first move of the first game at this table: there is nothing to keep (the
        deal, or any other draw of the table's, is no one's move)."""
        return not self.match.history and all(entry.seat == CHANCE for entry in self.match.log)

    def leave_note(self) -> str:
        """What becomes of the game if the person leaves now -- the truth, for every leave prompt."""
        if self.remote:
            if self.match.watching:
                return _("You can watch again from Tables.")
            if getattr(self.match, "solo", False):
                return _("The game waits for you on the server: Resume (r) in the lobby brings you back.")
            return _("The table's bot takes your seat; you can take it back from Tables while the game lasts.")
        if self.nothing_played:
            return _("Nothing has been played yet, so nothing is kept.")
        if self.can_autosave:
            return _("It stays in the autosave and can be resumed from the lobby.")
        return _("It cannot be resumed later.")

    def leave_question(self) -> str:
        """The question asked before leaving a game in progress."""
        return _("Leave this game? {note}", note=self.leave_note())

    def leave_table(self) -> None:
        """Write the autosave (so what :meth:`leave_question` promised holds), stop the bots and go
        back to the lobby (from a shared table: to the Tables list); if the autosave fails, stay (the
        reason is on the status line)."""
        if self.remote:
            self._left = True
            self.match.leave()
            self.app.pop_screen()
            return
        if not self.nothing_played and not self.autosave():
            return  # the reason is on the status line; the game stays open
        self.workers.cancel_group(self, "bot")
        self.coach.cancel()
        self._bot_token += 1
        self.app.pop_screen()

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "bot")
        self.coach.cancel()
        if self.remote and not self._left and self.app._running:
            self._left = True  # closed some other way than leave_table (a game's own "quit"): leave the table
            self.match.leave()


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
