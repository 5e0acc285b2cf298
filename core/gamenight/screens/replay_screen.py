"""The replay viewer: a game's own screen, read-only, stepping through a :class:`~gamenight.replay.Replay`.

No game-specific code: :func:`replay_screen` makes the game's screen as the
room would (``GameInfo.screen``) on a :class:`~gamenight.replay.ReplayTable`
and gives it the replay's behaviour -- keys to step, jump, play and pause,
choose whose view to follow, and a move log beside the table.  The table it
draws from has no full state and answers only the followed viewpoint's view,
so the screen can show nothing that viewpoint could not see at that moment.
Every key of the game's own that would act is refused with a message, and so
is any move that reaches :meth:`GameScreen.submit` (a click, Enter on a card).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gamenight.i18n import _
from gamenight.replay import Replay, SaveGame
from gamenight.sdk import CHANCE, OBSERVER, Action
from gamenight.text import fit_cells, safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.choice_list import ChoiceList
from gamenight.ui.game_screen import GameScreen
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.match import Match

__all__ = ["ReplayBehaviour", "ReplayGameChooser", "replay_screen"]

PLAY_INTERVAL = 0.8
"""Seconds between steps while playing."""
FED_MOVES = 12
"""How many of the latest moves the game's screen is told of at each step (its own log shows them)."""
LOG_LINES = 200
"""How many of the latest moves the move log shows (a long game's first moves are counted, not listed)."""
WIDE = 100
"""From this many columns the move log is shown beside the table from the start (``l`` toggles it)."""

_BINDINGS: list[BindingType] = [
    Binding("left", "replay_step(-1)", _("Back"), priority=True),
    Binding("right", "replay_step(1)", _("Next"), priority=True, tooltip=_("Forward")),
    Binding("space", "replay_play", _("Auto"), priority=True, tooltip=_("Play/Pause")),
    Binding(
        "v",
        "replay_view",
        _("View"),
        priority=True,
        tooltip=_("Choose whose view to follow: a seat, or the public view"),
    ),
    Binding("l", "replay_log", _("Log"), priority=True, tooltip=_("Show or hide the move log")),
    Binding("escape,q", "leave", _("Leave"), priority=True),
    Binding("home", "replay_jump(0)", _("First"), priority=True, tooltip=_("First move")),
    Binding("end", "replay_jump(-1)", _("Last"), priority=True, tooltip=_("Last move")),
    Binding(
        "e",
        "replay_review",
        _("Review"),
        priority=True,  # last: at 80 columns the key bar keeps Home and End, the palette has it
        tooltip=_("The coach's review of this game: every person decision and what it cost"),
    ),
]

_CSS = """
#replay-body { height: 1fr; }
#replay-table { width: 1fr; height: 1fr; }
#replay-log {
    width: 30; height: 1fr; border: round $panel; border-title-color: $text; display: none;
}
#replay-log.shown { display: block; }
#replay-body.narrow #replay-log { width: 1fr; }
#replay-body.narrow.logging #replay-table { display: none; }
#replay-log-text { width: 1fr; }
"""


class ReplayBehaviour:
    """Mixed in before a game's screen class: the replay's keys, and nothing that acts."""

    replay: Replay
    match: Any

    def compose_table(self) -> ComposeResult:
        with Horizontal(id="replay-body"):
            with Vertical(id="replay-table"):
                yield from super().compose_table()  # type: ignore[misc]
            log = VerticalScroll(id="replay-log")
            log.border_title = _("Moves")
            with log:
                yield Static("", id="replay-log-text", markup=False)

    def on_mount(self) -> None:
        super().on_mount()  # type: ignore[misc]
        # it ticks all along; a tick steps only while playing (a paused Timer may still deliver a tick)
        self.set_interval(PLAY_INTERVAL, self._replay_tick)  # type: ignore[attr-defined]
        if self.app.size.width >= WIDE:  # type: ignore[attr-defined]
            self.query_one("#replay-log").add_class("shown")  # type: ignore[attr-defined]
        self._replay_fit()
        self.call_after_refresh(self.show_step, self.replay.position)  # type: ignore[attr-defined]

    @property
    def watching(self) -> bool:
        """True while the public view is followed: drawn as a shared table's watcher sees it (no
        seat's hand, no move rows, every seat's count), not as a seat holding nothing."""
        return self.replay.follow == OBSERVER

    def _replay_fit(self) -> None:
        """Narrower than :data:`WIDE`, the move log takes the table's place while it is shown
        (beside it, it squeezed Yatzy's sheet at 80 columns); wider, it stands beside the table."""
        body = self.query_one("#replay-body")  # type: ignore[attr-defined]
        body.set_class(self.app.size.width < WIDE, "narrow")  # type: ignore[attr-defined]
        body.set_class(self.query_one("#replay-log").has_class("shown"), "logging")  # type: ignore[attr-defined]

    def on_resize(self, event: Any) -> None:
        handler = getattr(super(), "on_resize", None)
        if handler is not None:
            handler(event)
        self._replay_fit()

    # -- showing a step ------------------------------------------------------------------

    _replay_playing = False
    """True while the replay plays by itself (Space)."""

    def show_step(self, n: int) -> None:
        """Show the table after ``n`` actions (clamped), told the latest moves' events."""
        replay = self.replay
        self.match = replay.step(n)
        n = self.match.position
        follow = replay.follow
        self._view_seat = follow if follow >= 0 else 0
        self.on_new_game()  # type: ignore[attr-defined]
        self.recent.clear()  # type: ignore[attr-defined]
        text = ""
        for number in range(max(1, n - FED_MOVES + 1), n + 1):
            entry = replay.entries[number - 1]
            events = replay.events(number)
            text = self.describe_events(events)  # type: ignore[attr-defined]
            self.recent.append(text)  # type: ignore[attr-defined]
            self.on_events(entry.seat, events)  # type: ignore[attr-defined]
            # a chance outcome (a shuffled deck) is never handed to the screen, as at a shared table
            self.on_action(entry.seat, "" if entry.seat == CHANCE else entry.action, text)  # type: ignore[attr-defined]
        self.redraw()  # type: ignore[attr-defined]
        where = _("Move {number} of {count}", number=n, count=replay.steps)
        self.message(f"{where}: {text}" if n and text else where)  # type: ignore[attr-defined]
        self._draw_log(n)

    def _draw_log(self, n: int) -> None:
        lines = self.__dict__.setdefault("_replay_lines", {})  # number -> its line: each move said once
        log = Text()
        first = max(1, n - LOG_LINES + 1)
        if first > 1:
            log.append(_("… {count} earlier moves", count=first - 1), style="dim")
        for number in range(first, n + 1):
            if number not in lines:
                seat = self.replay.entries[number - 1].seat
                who = self.seat_name(seat)  # type: ignore[attr-defined]
                said = self.describe_events(self.replay.events(number))  # type: ignore[attr-defined]
                # most games' sentences name who acted; the others get the name before them
                lines[number] = safe_text(said if who in said else f"{who}: {said}", limit=200)
            if log:
                log.append("\n")
            log.append(f"{number}. ", style="dim")
            log.append(lines[number])
        if not log:
            log.append(_("No move yet."), style="dim")
        self.query_one("#replay-log-text", Static).update(log)  # type: ignore[attr-defined]
        self.query_one("#replay-log", VerticalScroll).scroll_end(animate=False)  # type: ignore[attr-defined]

    def viewpoint_name(self, viewpoint: int) -> str:
        """A viewpoint's name: the seat's, or "the public view"."""
        if viewpoint == OBSERVER:
            return _("public view")
        return self.match.seats[viewpoint].name

    def title_text(self) -> str:
        base = super().title_text()  # type: ignore[misc]
        return _(
            "Replay · {title} · {view}",
            title=base,
            view=_("view: {name}", name=self.viewpoint_name(self.replay.follow)),
        )

    # -- keys ----------------------------------------------------------------------------

    _replay_acting: frozenset[str] = frozenset()
    """The actions of the game's own keys, refused here (:func:`replay_screen` sets them)."""

    @property
    def active_bindings(self) -> dict[str, Any]:
        """The keys the bar and the palette offer: the replay's own first, then the rest, without
        the game's keys that would play or Save (still refused with a message when pressed)."""
        ours: dict[str, Any] = {}
        rest: dict[str, Any] = {}
        for key, active in super().active_bindings.items():  # type: ignore[misc]
            name = active.binding.action.split("(", 1)[0]
            if name in self._replay_acting or name == "save":
                continue
            (ours if name.startswith("replay_") or name == "leave" else rest)[key] = active
        order = [binding.action for binding in _BINDINGS if isinstance(binding, Binding)]
        first = sorted(ours, key=lambda key: order.index(ours[key].binding.action))
        return {**{key: ours[key] for key in first}, **rest}

    def action_replay_step(self, delta: int) -> None:
        self._replay_stop()
        self.show_step(self.replay.position + delta)

    def action_replay_jump(self, where: int) -> None:
        self._replay_stop()
        self.show_step(self.replay.steps if where < 0 else where)

    def action_replay_play(self) -> None:
        """Play the replay a step at a time, or pause it (from the start again once at the end)."""
        if self._replay_playing:
            self._replay_stop()
            self.message(_("Paused."))  # type: ignore[attr-defined]
            return
        if self.replay.position >= self.replay.steps:
            self.show_step(0)
        self._replay_playing = True

    def _replay_tick(self) -> None:
        if not self._replay_playing:
            return
        if self.replay.position >= self.replay.steps:
            self._replay_stop()
            return
        self.show_step(self.replay.position + 1)

    def _replay_stop(self) -> None:
        self._replay_playing = False

    def action_replay_view(self) -> None:
        """Follow the next viewpoint: each seat in turn, then the public view (where the game has one)."""
        points = self.replay.viewpoints()
        current = points.index(self.replay.follow) if self.replay.follow in points else -1
        self.replay.set_follow(points[(current + 1) % len(points)])
        self.show_step(self.replay.position)
        self.message(_("Following: {name}", name=self.viewpoint_name(self.replay.follow)))  # type: ignore[attr-defined]

    def action_replay_review(self) -> None:
        """The coach's review of the game replayed (a game without a coach says so)."""
        from gamenight.ui.review_screen import ReviewScreen, no_coach_message

        self._replay_stop()
        message = no_coach_message(self.replay.game)
        if message is not None:
            self.message(message, error=True)  # type: ignore[attr-defined]
            return
        self.app.push_screen(ReviewScreen(self.replay, getattr(self.app, "registry", None)))  # type: ignore[attr-defined]

    def action_replay_log(self) -> None:
        self.query_one("#replay-log").toggle_class("shown")  # type: ignore[attr-defined]
        self._replay_fit()

    # -- nothing acts ----------------------------------------------------------------------

    def refuse(self, *_args: Any, **_kwargs: Any) -> None:
        """What a key that would act does in a replay."""
        self.message(_("This is a replay: nothing can be played here."), error=True)  # type: ignore[attr-defined]

    def submit(self, action: Action) -> bool:
        self.refuse()
        return False

    def advance(self) -> None:
        """A replay drives nothing: no chance, no bots, no pauses, no end dialog."""
        if self.is_attached:  # type: ignore[attr-defined]
            self.redraw()  # type: ignore[attr-defined]

    def action_save(self, then_leave: bool = False) -> None:
        self.message(_("A replay is not saved: it is already recorded."), error=True)  # type: ignore[attr-defined]

    def action_leave(self) -> None:
        self.leave_table()

    def leave_table(self) -> None:
        self._replay_stop()
        if _replay_command(self.app):  # type: ignore[attr-defined]
            self.app.exit()  # type: ignore[attr-defined]
            return
        self.app.pop_screen()  # type: ignore[attr-defined]

    def autosave(self) -> bool:
        return True

    def clear_autosave(self) -> None:
        pass

    def keep_record(self) -> None:
        pass

    def show_interlude(self, interlude: Any) -> None:
        pass

    def show_end(self) -> None:
        pass

    def play_again(self) -> None:
        pass

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("chat", "start_now"):
            return False
        return True


def _replay_command(app: Any) -> bool:
    """True in the room ``gamenight replay FILE`` opened: leaving the replay ends it (there is no
    lobby the person came from)."""
    return getattr(app, "start_replay", None) is not None


_CLASSES: dict[type, type] = {}


def _replay_class(game_class: type) -> type:
    """``game_class`` with the replay's behaviour before it (made once per class)."""
    if game_class not in _CLASSES:
        _CLASSES[game_class] = type(
            f"Replay{game_class.__name__}",
            (ReplayBehaviour, game_class),
            {"BINDINGS": _BINDINGS, "DEFAULT_CSS": _CSS, "__module__": __name__},
        )
    return _CLASSES[game_class]


def _acting_actions(screen: GameScreen) -> set[str]:
    """The actions of the game's own keys (those the base screen and the replay do not define)."""
    names = set()
    for bindings in type(screen)._merged_bindings.key_to_bindings.values():  # type: ignore[union-attr]
        for binding in bindings:
            name = binding.action.split("(", 1)[0]
            if "." in name or name.startswith("replay_"):
                continue
            if hasattr(GameScreen, f"action_{name}") or hasattr(ReplayBehaviour, f"action_{name}"):
                continue
            names.add(name)
    return names


def replay_screen(replay: Replay) -> GameScreen:
    """The game's own screen showing ``replay`` read-only (``ValueError`` if the game has no screen)."""
    factory = replay.game.screen
    if factory is None:
        raise ValueError(_("{game} has no screen to play on.", game=safe_text(replay.game.title)))
    table = cast("Match", replay.step(replay.position))  # a ReplayTable stands in for the match: read-only
    made = factory(table)
    if not isinstance(made, GameScreen):
        raise ValueError(_("{game} has no screen to play on.", game=safe_text(replay.game.title)))
    # The factory says which class the game's screen is; the replay's is that class with the
    # replay's behaviour before it, made on the same table as the factory makes it.
    screen = _replay_class(type(made))(table)
    screen.replay = replay
    acting = _acting_actions(screen)
    for name in acting:
        setattr(screen, f"action_{name}", screen.refuse)
    screen._replay_acting = frozenset(acting)
    screen._view_seat = replay.follow if replay.follow >= 0 else 0
    return screen


class ReplayGameChooser(ModalScreen[int | None]):
    """Which game of a save holding several to replay (Return chooses, Escape goes back)."""

    BINDINGS = [Binding("escape", "cancel", _("Back"))]

    DEFAULT_CSS = """
    ReplayGameChooser { align: center middle; }
    ReplayGameChooser #replay-games {
        width: 60; height: auto; max-height: 18; border: round $primary; background: $surface;
    }
    """

    def __init__(self, games: list[SaveGame]) -> None:
        super().__init__()
        translate_bindings(self, _)
        self.games = games

    def compose(self) -> ComposeResult:
        options = []
        for number, scores, moves, names in self.games:
            if scores is None:
                if moves == 1:
                    text = _("Game {number}: unfinished, 1 move", number=number + 1)
                else:
                    text = _("Game {number}: unfinished, {moves} moves", number=number + 1, moves=moves)
            else:
                # each score beside its seat's name (cut short where names are long)
                room = max(4, 40 // max(1, len(scores)) - 4)
                pairs = zip(names, scores, strict=False)
                shown = " – ".join(f"{fit_cells(safe_text(name, 40), room)} {score:g}" for name, score in pairs)
                if moves == 1:
                    text = _("Game {number}: {scores} (1 move)", number=number + 1, scores=shown)
                else:
                    text = _("Game {number}: {scores} ({moves} moves)", number=number + 1, scores=shown, moves=moves)
            options.append(Option(Text(safe_text(text, 56)), id=str(number)))
        chooser = ChoiceList(*options, id="replay-games")
        chooser.border_title = _("This save holds {count} games: which one?", count=len(self.games))
        yield chooser
        yield KeyBar()  # the chooser's keys, not those of the screen under it

    def on_mount(self) -> None:
        chooser = self.query_one(OptionList)
        chooser.highlighted = len(self.games) - 1  # the latest, as without a choice
        chooser.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
        if _replay_command(self.app):
            self.app.exit()
