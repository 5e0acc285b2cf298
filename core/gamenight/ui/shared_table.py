"""A shared table's part of a game screen: the service's messages, chat, waiting, leaving.

At a shared table (over SSH, or a solo game hosted on the server) a game's
screen is given a :class:`~gamenight.tables.client.RemoteTable`: the table
service moves the bots and chance, and keeps the game.  Everything the
screen then does differently from a game played in the room is here, in
:class:`SharedTableControls`, which :class:`~gamenight.ui.game_screen.GameScreen`
holds while it shows a shared table and hands these points to: the
snapshots, refusals and chat lines the service sends; the waiting table's
text, title notes and start key; a move sent rather than applied; the
"Waiting for …" indicator and the move timer; dimmed move keys while
another seat moves; the chat and its log; play again, saving and leaving.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import RichLog, Static

from gamenight.dialogs import TextPrompt
from gamenight.i18n import _
from gamenight.sdk import CHANCE, Action, IllegalAction
from gamenight.text import safe_text
from gamenight.ui.status_line import SPINNER, StatusLine
from gamenight.ui.table_controls import SHARED_TABLE_KEYS, TableControls

if TYPE_CHECKING:
    from gamenight.match import Match
    from gamenight.sdk import Outcome
    from gamenight.tables.client import RemoteTable
    from gamenight.ui.game_screen import GameScreen

__all__ = [
    "CHAT_LOG_LINES",
    "SHARED_TABLE_KEYS",
    "ChatLog",
    "SharedTableControls",
    "refused_move_text",
    "show_chat_line",
]

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

    def on_resize(self, event: events.Resize) -> None:
        """Wrap every line again for a new width (a log written before it was shown is wrapped then)."""
        width = self.scrollable_content_region.width
        if width != self._wrapped_at and self._size_known:
            self._wrapped_at = width
            self._rewrite()


def show_chat_line(screen: GameScreen, name: str, text: str) -> None:
    """A line of the table's chat (``GameScreen.chat_line``): on the status line (cut to its width) and
    in the chat log."""
    screen.chat_lines.append((name, text))
    screen.query_one(StatusLine).show(f"{name}: {text}", chat=True)
    with contextlib.suppress(NoMatches):
        screen.query_one(ChatLog).add(name, text)


def refused_move_text(screen: GameScreen, error: Any) -> str:
    """Why the service refused this seat's move (``GameScreen.refused_move_text``): an ``Error`` with
    the rules' reason as data, said in the room's language and the game's own words, as
    ``GameScreen.illegal_text`` says it in a local game."""
    from gamenight.tables.errors import refusal_text

    reason = error.reason
    if reason is None:
        return refusal_text(error.code, error.message)
    refused = IllegalAction(
        safe_text(error.message, limit=200), code=reason.code, params=reason.params, template=reason.template
    )
    try:
        return screen.illegal_text(refused)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):  # a template its values do not fill
        return refusal_text(error.code, error.message)


class SharedTableControls(TableControls):
    """What a game screen does at a shared table, for :class:`~gamenight.ui.game_screen.GameScreen`.

    The screen makes one when it is given a :class:`~gamenight.tables.client.RemoteTable` (its
    ``controls``; a game played here gets a :class:`~gamenight.ui.table_controls.LocalTableControls`)
    and hands it each point where the kinds of table differ; a game's own screen never sees it.
    ``table`` is the screen's ``match``, as the shared table it is.
    """

    def __init__(self, screen: GameScreen, table: RemoteTable) -> None:
        self.screen = screen
        self.table = table
        self.left = False
        """True once the screen left the table (or is on its way out): nothing more is drawn or sent."""
        self.deadline = 0.0
        """When the move timer runs out (monotonic), from the latest snapshot; 0: no timer running."""
        self._log_seen = 0
        self._interlude_shown = ""
        self._waiting_note = ""
        """The "Waiting for others" line a pause put on the status line (cleared after it)."""
        self._end_shown = False
        self._focus_before_log: Any = None

    # -- what the screen shows --------------------------------------------------------------

    @property
    def waiting(self) -> bool:
        """True while the table waits for people to sit down: no move yet."""
        snapshot = self.table.client.snapshot
        return snapshot is not None and snapshot.table.status == "waiting"

    @property
    def watching(self) -> bool:
        """True for a watcher: no seat, no hand, only what is public."""
        return self.table.watching

    def humans(self) -> list[int]:
        """The seats people play from this room: its own seat (none for a watcher)."""
        return [self.table.seat] if self.table.seat >= 0 else []

    def title_notes(self) -> str:
        """What the title bar adds at a shared table: who is away, whose seat the bot plays, watching
        or the table's code, how many people it still waits for, and a new guest's reconnect code."""
        table = self.table
        snapshot = table.client.snapshot
        if snapshot is None:
            return ""
        notes = ""
        away = [table.seats[s].name for s in table.away]
        if away:
            notes += " · " + _("away: {names}", names=", ".join(away))
        stand_ins = [info.name for info in snapshot.table.seats if info.taken and info.bot]
        if stand_ins:  # a person's seat the table's bot plays (they left, or stayed away too long)
            notes += " · " + _("bot plays for: {names}", names=", ".join(stand_ins))
        if table.watching:
            notes += " · " + _("watching")
        elif table.code:
            notes += " · " + _("code {code}", code=table.code)
        if snapshot.table.status == "waiting":
            free = sum(info.person and not info.taken for info in snapshot.table.seats)
            notes += " · " + _("waiting for {count} more", count=free)
        login = getattr(self.screen.app, "reconnect_as", "")
        if login:  # a new guest's reconnect code, where it hides no play (it was a toast over the log)
            notes += " · " + _("back as {login}", login=login)
        return notes

    def waiting_text(self) -> str:
        """What the table says while it waits for people (``GameScreen.waiting_text``)."""
        snapshot = self.table.client.snapshot
        if snapshot is None or snapshot.table.status != "waiting":
            return ""
        table = snapshot.table
        free = sum(info.person and not info.taken for info in table.seats)
        if free == 1:
            lines = [_("This table starts when one more person sits down."), ""]
        else:
            lines = [_("This table starts when {count} more people sit down.", count=free), ""]
        for index, info in enumerate(table.seats):
            if index == self.table.seat:
                state = _("you")
            elif info.person:
                state = _("seated") if info.taken else _("free, for a person")
            else:
                state = _("a bot")
            lines.append(f"  {index + 1}. {safe_text(info.name, limit=32)} — {state}")
        lines.append("")
        if self.table.code:
            lines.append(
                _("The others join from the lobby: t (Tables), then c and the code {code}.", code=self.table.code)
            )
        else:
            lines.append(_("The others join from the lobby: t (Tables), then this table and Return."))
        if self.table.can_start:
            lines.append(_("Ctrl+B starts now, with bots in the free seats."))
        lines.append(_("Esc leaves the table."))
        return "\n".join(lines)

    def bottom_widgets(self) -> Iterator[Widget]:
        """The chat log, above the status line (hidden until Ctrl+O)."""
        yield ChatLog(id="chat-log")

    def redraw(self) -> None:
        """The title bar and the table from the latest snapshot (nothing once the screen left)."""
        screen = self.screen
        if self.left:
            return  # on its way out (its widgets may be gone already): nothing more to draw
        screen._draw_title()
        try:
            screen.refresh_view()
            screen._show_waiting_table()
        except NoMatches:  # a snapshot while the table's widgets are not all there: the next one draws
            return
        except AttributeError as error:  # a screen that reads match.state: a shared table has none
            if "full state" not in str(error):
                raise
            screen.app.notify(
                _("{game} cannot be played at a shared table yet.", game=screen.t(self.table.game.title)),
                severity="error",
                timeout=12,
                markup=False,
            )
            screen.leave_table()

    def tick(self, status: StatusLine) -> None:
        """The screen's timer: "Waiting for …" and the move timer (no bot spins here, no coach)."""
        status.thinking(self.indicator())

    def indicator(self) -> str:
        """The thinking indicator: "Waiting for …" while another seat moves, and the move timer."""
        table = self.table
        seat = table.to_move()
        left = max(0, int(self.deadline - time.monotonic() + 0.999)) if self.deadline else None
        clock = "" if left is None else " " + _("{seconds} s left", seconds=left)
        if seat >= 0 and seat != table.seat and table.pending_interlude() is None:
            # One turn a second (with the clock): another person may think for minutes, and each
            # turn is a frame sent over SSH to everyone waiting -- a bot's spinner turns faster.
            spin = SPINNER[int(time.monotonic()) % len(SPINNER)]
            return f"{spin} {_('Waiting for {name}…', name=self.screen.seat_name(seat))}{clock}"
        return clock.strip()

    def offers(self, action: str) -> bool | None:
        """Whether a key of the room's own is offered here (``check_action``): the chat and its log,
        the host's start key while the table waits, and Save only at a solo table (help, the coach's
        key, which says why it has nothing here, and leave always)."""
        if action == "start_now":
            return self.table.can_start
        if action == "save":
            # the table service keeps a shared game; the room gets it at the end.  At a solo table
            # Ctrl+S stays, to say where the game is kept (no local file could foretell its dice).
            return self.table.solo and not self.table.over
        return True

    def offers_moves(self) -> bool | None:
        """Whether the game's move keys are offered: not to a watcher, nor before the start or after
        the end; dimmed (``None``: shown, doing nothing) while another seat moves."""
        screen = self.screen
        if screen.watching or screen.table_waiting or self.table.over:
            return False  # no move to make (watching, not started, or over): not in the bar
        if not self.table.human_to_move():
            return None  # another seat's turn at a shared table: the move keys are dimmed, and do nothing
        return True

    # -- what the service sends -------------------------------------------------------------

    def on_message(self, message: Any) -> None:
        """A message from the table service (``GameScreen.table_message``)."""
        screen = self.screen
        if not screen.is_attached or not screen.is_mounted or self.left:
            return  # not composed yet: on_mount draws the latest snapshot
        if screen not in screen.app.screen_stack:
            return  # popped, its widgets going (a crash on a missing #title-bar was seen under load)
        from gamenight.tables import protocol as p
        from gamenight.tables.errors import refusal_text

        match message:
            case p.Snapshot():
                self.deadline = time.monotonic() + message.deadline if message.deadline else 0.0
                log = self.table.client.log
                if message.log_start == 0 and self._log_seen > len(log):
                    self._log_seen = 0
                for turn, (seat, sentence) in enumerate(log[self._log_seen :], start=self._log_seen + 1):
                    # The move's public events, said in this room's language (the service's sentence
                    # is only the fallback: a move from before this room came, or a game without events).
                    events = self.table.events_of(turn, sentence)
                    text = (screen.describe_events(events) if events else "") or sentence
                    screen.recent.append(text)
                    screen.on_events(seat, events)
                    screen.on_action(seat, "", text)
                    if seat != CHANCE and text:
                        screen.message(text)
                self._log_seen = len(log)
                screen.refresh_bindings()  # the host's start key comes and goes with the table's status
                screen.advance()
            case p.ChatLine():
                name = safe_text(message.name, limit=32)
                if message.watching:
                    name = _("{name} (watching)", name=name)
                screen.chat_line(name, safe_text(message.text, limit=200))
            case p.Error() if message.code in ("table-closed", "table-moved"):  # everyone left, or now run elsewhere
                screen.app.notify(refusal_text(message.code, message.message), markup=False)
                screen.leave_table()
            case p.Error() if message.code == "store-up":  # not an error: the table goes on
                screen.message(refusal_text(message.code, message.message))
            case p.Error() if message.code == "illegal":
                screen.message(screen.refused_move_text(message), error=True)
            case p.Error():
                screen.message(refusal_text(message.code, message.message), error=True)

    def connection_changed(self) -> None:
        """The connection to the table service came or went (``GameScreen.tables_changed``)."""
        if self.table.client.closed.is_set():
            self.screen.message(_("The connection to the shared tables was lost."), error=True)

    # -- the game, driven by the service ----------------------------------------------------

    def submit(self, action: Action, past_coach: Action | None = None) -> bool:
        """Send a person's move (``GameScreen.submit``, once it is this seat's turn); True if listed legal.

        A move the snapshot's legal list lacks goes to the service all the same: only the rules,
        with the whole state, can say why it is refused ("opponent cannot go"), and the answer is
        said in this room's language (``GameScreen.refused_move_text``).  Nothing changes meanwhile.
        No coach holds it (``past_coach`` is not used): there is none at a shared table.
        """
        self.table.apply(action)  # the service's next snapshot shows it (or an error says why not)
        return action in self.table.legal_actions()

    def advance(self) -> None:
        """Show the latest snapshot: the table, a pause that waits for this seat, or the end."""
        screen = self.screen
        table = self.table
        screen.redraw()
        interlude = table.pending_interlude()
        snapshot = table.client.snapshot
        if interlude is not None:
            waiting = snapshot.interlude.waiting if snapshot is not None and snapshot.interlude else []
            if table.seat in waiting and self._interlude_shown != interlude.key:
                self._interlude_shown = interlude.key
                screen.show_interlude(interlude)
            elif table.seat not in waiting and waiting:
                names = ", ".join(table.seats[s].name for s in waiting)
                self._waiting_note = _("Waiting for others: {names}", names=names)
                screen.message(self._waiting_note)
            return
        self._interlude_shown = ""
        if self._waiting_note:  # the pause is over: its note goes (unless a newer line replaced it)
            with contextlib.suppress(NoMatches):
                if str(screen.query_one(StatusLine).query_one("#message", Static).render()) == self._waiting_note:
                    screen.message("")
            self._waiting_note = ""
        if table.over:
            if not self._end_shown:
                self._end_shown = True
                screen.show_end()
            elif snapshot is not None and snapshot.again and table.seat in snapshot.again:
                screen.message(_("Waiting for the others to play again…"))
            return
        if self._end_shown:  # a new game began ("play again" at the table)
            self._end_shown = False
            screen.message("")  # the last game's last move is no news in the next one
            dialog, screen._end_dialog = screen._end_dialog, None
            if dialog is not None and dialog.is_attached and dialog in screen.app.screen_stack:
                dialog.dismiss("watch")  # a watcher's end dialog: the next game is on the table now
            screen.recent.clear()
            screen.on_new_game()
            screen.redraw()

    def acknowledged(self) -> None:
        """This seat acknowledged a pause: the service goes on once every person has."""

    def finish(self) -> Outcome:
        """The game ended: the service keeps it (and its record); the result is in the snapshot."""
        return self.table.outcome()

    def review_source(self) -> tuple[Match | None, list[int] | None, str | None]:
        """The finished game as the service's save sent it (kept among the saves), this seat's
        decisions only; or why not."""
        from gamenight.saves import SaveError, load_match

        screen = self.screen
        snapshot = self.table.client.snapshot
        path = getattr(screen.app, "shared_saves", {}).get(snapshot.table.table) if snapshot is not None else None
        own_seats = [self.table.seat]
        if path is None:
            return None, own_seats, _("The game's save has not come from the server yet: try again in a moment.")
        try:
            return load_match(getattr(screen.app, "registry", None), path), own_seats, None
        except (SaveError, OSError) as error:
            reason = _("This game could not be reviewed: {reason}", reason=safe_text(error, limit=200))
            return None, own_seats, reason

    def play_again(self) -> None:
        """Ask for another game (the service starts it once every person at the table asked)."""
        if self.table.watching:
            return
        self.table.again()
        self.screen.message(_("Waiting for the others to play again…"))

    def start_now(self) -> None:
        """The host starts the waiting table: the table's bot plays the seats nobody took."""
        if self.table.can_start:
            self.table.start()

    # -- the chat ---------------------------------------------------------------------------

    def ask_chat(self) -> None:
        """Ask for one line to say to the table (plain text, at most 200 characters)."""

        def said(text: str | None) -> None:
            line = " ".join(safe_text(text or "", limit=200).split())
            if line:
                self.table.chat(line[:200])

        self.screen.app.push_screen(TextPrompt(_("Say to the table:"), "", _("Send")), said)

    def toggle_chat_log(self) -> None:
        """Show the table's chat log above the status line (focused, to scroll it), or hide it."""
        screen = self.screen
        log = screen.query_one(ChatLog)
        shown = not log.has_class("-shown")
        if shown:
            self._focus_before_log = screen.focused
        log.set_class(shown, "-shown")
        if shown:
            log.focus()
            log.scroll_end(animate=False)
        else:
            screen.set_focus(self._focus_before_log)

    # -- saving and leaving -----------------------------------------------------------------

    def autosave(self) -> bool:
        """Nothing to write: the service keeps a shared game."""
        return True

    def save(self, then_leave: bool) -> None:
        """Ctrl+S (or "Save and leave" at a pause): the service keeps the game; say where."""
        if self.table.solo:
            self.screen.message(_("This game is kept on the server: Resume (r) in the lobby brings you back to it."))
        else:
            self.screen.message(_("The server keeps a shared game; it reaches your saves when it ends."))
        if then_leave:
            self.screen.leave_table()

    def leave_note(self) -> str:
        """What becomes of the game if the person leaves now (``GameScreen.leave_note``)."""
        if self.table.watching:
            return _("You can watch again from Tables.")
        if self.table.solo:
            return _("The game waits for you on the server: Resume (r) in the lobby brings you back.")
        return _("The table's bot takes your seat; you can take it back from Tables while the game lasts.")

    def leave(self) -> None:
        """Leave the table and go back to the Tables list (a seat goes to the table's bot)."""
        self.left = True
        self.table.leave()
        self.screen.app.pop_screen()

    def close_finished(self) -> None:
        """Leave a finished game: its seat is freed (``GameScreen.leave_table``)."""
        self.screen.leave_table()

    def unmounted(self) -> None:
        """The screen closed some other way than :meth:`leave` (a game's own "quit"): leave the table."""
        if not self.left and self.screen.app._running:
            self.left = True
            self.table.leave()
