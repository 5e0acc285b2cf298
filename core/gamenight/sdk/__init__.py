"""The gamenight SDK: everything a game plugin implements, in one module.

A game is a :class:`GameInfo` registered from a pluggy hook (see
:mod:`gamenight.hookspecs`).  It bundles:

* a :class:`Rules` object -- pure, deterministic, UI-free.  A state is an
  immutable value: :meth:`Rules.apply` returns a *new* state and raises
  :class:`IllegalAction` (changing nothing) for an action that is not legal.
* chance made explicit: when :meth:`Rules.to_move` returns :data:`CHANCE`, the
  runner asks :meth:`Rules.sample_chance` for an outcome drawn from its seeded
  RNG and applies it like any action.  A game is therefore fully determined by
  its options and its action log (chance outcomes included), which is what a
  save file holds.
* per-seat views: :meth:`Rules.view` returns only what one seat may see.  Bots
  get nothing else, so no bot can peek at hidden cards.
* bots (:class:`Bot`, registered as :class:`BotSpec`) of several strengths.
* options (variants) with defaults (:class:`Option`).
* a screen factory (imported lazily, so rules and arena never import Textual),
  and the rules as Markdown for the help screen.

Actions cross the SDK boundary as short strings (:data:`Action`): they are what
the log stores, what the arena passes around and what a bot returns.  A game
may use richer objects internally; it only has to speak strings here.

Minimal example (a complete, if dull, game)::

    from gamenight.sdk import GameInfo, Outcome, Rules, IllegalAction

    class NimRules(Rules):
        def new_game(self, seats, options):
            return (21, 0)               # (sticks left, seat to move)
        def to_move(self, state):
            return TERMINAL if state[0] == 0 else state[1]
        def legal_actions(self, state):
            return [str(n) for n in (1, 2, 3) if n <= state[0]]
        def apply(self, state, action):
            self.check_legal(state, action)
            return (state[0] - int(action), 1 - state[1])
        def view(self, state, seat):
            return state                 # perfect information
        def outcome(self, state):
            loser = 1 - state[1]         # took the last stick
            return Outcome.from_scores([0 if s == loser else 1 for s in (0, 1)])
"""

from __future__ import annotations

import importlib
import math
import random
import re
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover - typing only; the SDK never imports Textual
    from textual.screen import Screen

    from gamenight.dialogs import MessageDialog, ResultDialog, ResultTable, TextPrompt, YesNoDialog
    from gamenight.hookspecs import hookimpl
    from gamenight.i18n import translator
    from gamenight.linebreak import wrap
    from gamenight.match import Match, SeatConfig, play_headless
    from gamenight.text import fit_cells, pad_cells
    from gamenight.ui.game_screen import GameScreen, Room, StatusLine, repaint
    from gamenight.widgets.key_bar import KeyBar
    from gamenight.widgets.score_table import ScoreCell, ScoreRow, ScoreTable

__all__ = [
    "API_VERSION",
    "CHANCE",
    "OBSERVER",
    "TERMINAL",
    "Action",
    "Advice",
    "AdviceUnit",
    "Advisor",
    "AdvisorSpec",
    "Bot",
    "BotContext",
    "BotSpec",
    "GameInfo",
    "GameScreen",
    "GameTable",
    "IllegalAction",
    "Interlude",
    "KeyBar",
    "Match",
    "MessageDialog",
    "Option",
    "Outcome",
    "PublicEvent",
    "ResultDialog",
    "ResultTable",
    "Room",
    "Rules",
    "ScoreCell",
    "ScoreRow",
    "ScoreTable",
    "SeatConfig",
    "StatusLine",
    "StopLatch",
    "TextPrompt",
    "View",
    "YesNoDialog",
    "anchored_values",
    "api_mismatch",
    "event_problem",
    "fill_seat_names",
    "fit_cells",
    "hookimpl",
    "lazy_advisor",
    "lazy_bot",
    "lazy_screen",
    "observer_view",
    "pad_cells",
    "plain_factory",
    "play_headless",
    "read_help",
    "read_translations",
    "repaint",
    "seat_token",
    "theme_variables_problem",
    "translator",
    "wrap",
]

API_VERSION = "1.4"
"""The version of this SDK, ``MAJOR.MINOR`` (what each version added: CHANGELOG.md).

A plugin names the version it was written for in its plugin module::

    GAMENIGHT_API = "1.1"

A room loads it when the major versions are equal and the room's minor
version is at least the plugin's (1.4 runs plugins for 1.0 to 1.4, not
for 1.5 or 2.0); otherwise the plugin is listed as broken, with the reason,
like any plugin that fails to load -- even when the plugin's module could
not be imported at all because it uses a name this SDK does not have yet.
A plugin that names no version is loaded as before.  Minor versions only
add; a change that can break a plugin raises the major version.
"""


def api_mismatch(wanted: object, have: str | None = None) -> str | None:
    """Why a plugin that wants SDK ``wanted`` cannot run on SDK ``have`` (this one's); None when it can."""
    have = API_VERSION if have is None else have
    if not isinstance(wanted, str) or not re.fullmatch(r"\d{1,4}\.\d{1,4}", wanted):
        return f"GAMENIGHT_API must be a string like {have!r}, not {str(wanted)[:40]!r}"
    major, minor = (int(part) for part in wanted.split("."))
    have_major, have_minor = (int(part) for part in have.split("."))
    if major != have_major or minor > have_minor:
        return f"it needs gamenight SDK {wanted}; this room has SDK {have}"
    return None


Action = str
"""An action as it crosses the SDK boundary: a short, printable string."""

View = Any
"""Whatever a game's :meth:`Rules.view` returns for one seat (any value)."""

CHANCE = -1
"""Returned by :meth:`Rules.to_move` when the next action is a chance outcome."""

TERMINAL = -2
"""Returned by :meth:`Rules.to_move` when the game is over."""

OBSERVER = -3
"""The "seat" of a watcher at a shared table: ``view(state, OBSERVER)`` is the public view.

A game supports watchers by setting :attr:`Rules.watchable` and answering
``view(state, OBSERVER)`` with what every seat may see (no hand of anyone).
Games that do not are never watched: the table service refuses watchers for
them instead of risking a leak (``hands[OBSERVER]`` would quietly read a seat
from the end of a tuple).
"""


def observer_view(rules: Rules[Any, ViewT], state: Any) -> ViewT:
    """The public view of ``state`` for a watcher; :class:`IllegalAction` if the game has none.

    Callers use this, not ``rules.view(state, OBSERVER)``, so a game that
    never heard of watchers is refused rather than asked.
    """
    if not getattr(rules, "watchable", False):
        raise IllegalAction(f"{type(rules).__name__} cannot be watched")
    return rules.view(state, OBSERVER)


def seat_token(seat: int) -> str:
    """A stand-in for a seat's *name* inside texts the rules produce.

    Rules do not know who sits where, so :meth:`Rules.describe_action` writes
    ``_("{player} plays 7♠", player=seat_token(seat))``; the screen replaces
    the token with the seat's name (:func:`fill_seat_names`), and headless
    logs show "Seat 2".
    """
    return f"⟦seat{seat}⟧"


_SEAT_TOKEN = re.compile(r"⟦seat(\d+)⟧")


def fill_seat_names(text: str, names: Sequence[str] = ()) -> str:
    """Replace :func:`seat_token` tokens in ``text`` with ``names`` (or "Seat N")."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) else f"Seat {seat + 1}"

    return _SEAT_TOKEN.sub(name, text)


class IllegalAction(ValueError):
    """An action that is not legal in the given state -- why, as data.

    Raise it with a code, the English sentence as a message id and its
    values::

        raise IllegalAction.because("box-filled", "That box is already filled.")
        raise IllegalAction.because("not-held", "You do not hold {card}.", card="7♠")

    ``str(error)`` is the English sentence (headless logs, the arena); the
    screen says it in the player's language (``GameScreen.illegal_text``:
    the template through the game's catalogue), and a table service can send
    ``to_json()``.  ``params`` hold JSON values.  ``IllegalAction("why")``
    with a finished sentence (SDK 1.0's only form) still works: its
    ``code`` is ``"illegal"`` and the text is shown as it is.
    Raising it must leave the state unchanged -- states are immutable.
    """

    def __init__(
        self,
        message: str = "",
        *,
        code: str = "illegal",
        params: Mapping[str, Any] | None = None,
        template: str = "",
    ) -> None:
        self.code = code
        """A short stable name for the reason (``"box-filled"``)."""
        self.params: dict[str, Any] = dict(params or {})
        """The values the sentence names (JSON values)."""
        self.template = template
        """The English sentence with ``{placeholders}``: the message id the screen translates ("" if none)."""
        if not message and template:
            message = template.format(**self.params) if self.params else template
        super().__init__(message or code)

    @classmethod
    def because(cls, code: str, template: str, **params: Any) -> IllegalAction:
        """The error for reason ``code``, said by the English ``template`` filled with ``params``."""
        return cls(code=code, params=params, template=template)

    def say(self, translate: Callable[..., str]) -> str:
        """The reason in the reader's language: ``translate(template, **params)``, or the text as raised."""
        if not self.template:
            return str(self)
        return translate(self.template, **self.params)

    def to_json(self) -> dict[str, Any]:
        """``{"code", "params", "text"}``: the reason as data, with the English sentence."""
        return {"code": self.code, "params": dict(self.params), "text": str(self)}


JSON_SCALARS = (str, int, float, bool, type(None))


def _json_problem(value: object, where: str, depth: int = 0) -> str | None:
    if depth > 8:
        return f"{where}: nested too deeply"
    if isinstance(value, JSON_SCALARS):
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if (problem := _json_problem(item, f"{where}[{index}]", depth + 1)) is not None:
                return problem
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where}: key {key!r} is not a string"
            if (problem := _json_problem(item, f"{where}.{key}", depth + 1)) is not None:
                return problem
        return None
    return f"{where}: {type(value).__name__} is not JSON (use str, int, float, bool, None, lists and tables)"


@dataclass(frozen=True)
class PublicEvent:
    """What a move did, as plain data anyone at the table may know (:meth:`Rules.public_events`).

    ``kind`` names what happened (``"play"``, ``"draw"``, ``"deal"``); ``params``
    holds its details as JSON values (``{"seat": 1, "card": 7}``): seats as
    numbers, cards and shapes in the game's own notation -- never a text, so
    the screen says it in the player's language (:meth:`GameScreen.describe_event`).
    An event may only carry what every seat and a watcher may know after the
    move: "seat 1 drew a card", never which card.
    """

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    ACTION: ClassVar[str] = "action"
    """The kind of the default event: ``params["text"]`` is :meth:`Rules.describe_action`'s sentence."""

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., "params": {...}}``: what a table service sends."""
        return {"kind": self.kind, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PublicEvent:
        """The event :meth:`to_json` wrote; ``ValueError`` for anything else."""
        kind, params = data.get("kind"), data.get("params", {})
        if not isinstance(kind, str) or not isinstance(params, Mapping):
            raise ValueError("an event is {'kind': str, 'params': {...}}")
        event = cls(kind, dict(params))
        if (problem := event_problem(event)) is not None:
            raise ValueError(problem)
        return event

    def __hash__(self) -> int:
        return hash((self.kind, repr(sorted(self.params.items()))))


def event_problem(event: object) -> str | None:
    """Why ``event`` is not a :class:`PublicEvent` of JSON values, or ``None``."""
    if not isinstance(event, PublicEvent):
        return f"{type(event).__name__} is not a PublicEvent"
    if not isinstance(event.kind, str) or not event.kind:
        return "an event's kind must be a non-empty string"
    if not isinstance(event.params, Mapping):
        return f"event {event.kind!r}: params must be a table"
    return _json_problem(event.params, f"event {event.kind!r} params")


@dataclass(frozen=True)
class Option:
    """A variant or setting of a game, chosen on the setup screen.

    ``kind`` is ``"bool"``, ``"int"`` or ``"choice"``.  For ``"choice"``,
    ``choices`` lists ``(value, label)`` pairs; for ``"int"``, ``minimum`` and
    ``maximum`` bound the value.  ``label`` and ``description`` are English
    message ids, translated through the plugin's catalogue.
    """

    key: str
    label: str
    default: bool | int | str
    kind: str = "bool"
    description: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, text: str | bool | int) -> bool | int | str:
        """Turn a value from the command line, a save or the UI into a valid value.

        Raises ``ValueError`` with a clear message when it is not valid.
        """
        if self.kind == "bool":
            if isinstance(text, bool):
                return text
            lowered = str(text).strip().lower()
            if lowered in {"1", "true", "yes", "on"}:
                return True
            if lowered in {"0", "false", "no", "off"}:
                return False
            raise ValueError(f"option {self.key!r} takes true or false, not {text!r}")
        if self.kind == "int":
            try:
                value = int(text)
            except (TypeError, ValueError):
                raise ValueError(f"option {self.key!r} takes a whole number, not {text!r}") from None
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"option {self.key!r} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"option {self.key!r} must be at most {self.maximum}")
            return value
        values = [value for value, _label in self.choices]
        if str(text) not in values:
            raise ValueError(f"option {self.key!r} takes one of {', '.join(values)}, not {text!r}")
        return str(text)


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``scores`` has one number per seat.  ``winners`` lists the winning seats
    (several on a tie; a tie counts as a shared win).  Games whose winner is
    not simply the top score (a tie-break, a match to 5000) build it directly.
    ``lines`` optionally itemises the scores for the end dialog:
    ``(label, (value per seat...))`` rows, labels as English message ids.
    A value is a number, or a short text (a message id too, e.g. ``"✓"`` or
    ``""``) for rows that are not amounts, such as who placed the last piece.
    """

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    lines: tuple[tuple[str, tuple[float | str, ...]], ...] = ()

    @classmethod
    def from_scores(
        cls,
        scores: Sequence[float],
        lines: Sequence[tuple[str, Sequence[float | str]]] = (),
    ) -> Outcome:
        """An outcome where the highest score wins (ties share the win)."""
        best = max(scores)
        return cls(
            scores=tuple(scores),
            winners=tuple(i for i, s in enumerate(scores) if s == best),
            lines=tuple((label, tuple(values)) for label, values in lines),
        )

    def win_share(self, seat: int) -> float:
        """1 for a sole winner, 1/k for one of k tied winners, else 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0


@dataclass(frozen=True)
class Interlude:
    """A pause inside a game: the end of a hand, a deal or a play.

    When :meth:`Rules.interlude` returns one, the runner stops driving bots and
    chance until the players confirm (the screen shows ``title`` and the
    itemised ``lines`` like an end dialog, with totals so far).  Continuing is
    not an action: it only releases the pause, so the log stays the same.
    """

    title: str
    scores: tuple[float, ...]
    lines: tuple[tuple[str, tuple[float | str, ...]], ...] = ()
    key: str = ""
    """Identifies this pause, so a resumed game does not show it twice."""


StateT = TypeVar("StateT")
"""A game's state type (``Rules[LitsState, LitsView]``): immutable values."""
ViewT = TypeVar("ViewT")
"""What one seat sees of a state."""


class Rules(Generic[StateT, ViewT]):
    """The pure rules engine of one game.  Subclass it and fill in the methods.

    It is generic in the state and the view types, so a typed plugin writes
    ``class MyRules(Rules[MyState, MyView])`` and a type checker follows its
    states through; ``class MyRules(Rules)`` is the same with ``Any``.

    Contract:

    * deterministic: the same options and actions give the same states;
    * states are immutable values (tuples, frozen dataclasses, ...);
    * :meth:`apply` validates: an illegal action raises :class:`IllegalAction`;
    * no Textual (or any UI) import in the rules module;
    * fast: bots and the arena call these methods millions of times.
    """

    def new_game(self, seats: int, options: Mapping[str, Any]) -> StateT:
        """The initial state for ``seats`` seats with the given options."""
        raise NotImplementedError

    def new_game_in_match(self, seats: int, options: Mapping[str, Any], game_number: int) -> StateT:
        """The initial state of game ``game_number`` (0 for the first) of a match.

        The shell calls this one; by default it is :meth:`new_game`.  Override
        it when who starts should rotate over the games played at one table
        (SEVEN's leading seat, Mille Bornes's first drawer).  It must be as
        deterministic as :meth:`new_game`: a resumed save replays through it.
        """
        return self.new_game(seats, options)

    def to_move(self, state: StateT) -> int:
        """The seat whose turn it is, :data:`CHANCE` or :data:`TERMINAL`."""
        raise NotImplementedError

    def legal_actions(self, state: StateT) -> list[Action]:
        """The legal actions of the seat to move (empty at chance/terminal)."""
        raise NotImplementedError

    def apply(self, state: StateT, action: Action) -> StateT:
        """The state after ``action``; raises :class:`IllegalAction` if illegal.

        Chance outcomes are applied here too and must be validated (a die
        reading 7 or a deck with a card twice is illegal).
        """
        raise NotImplementedError

    watchable: bool = False
    """True when :meth:`view` answers :data:`OBSERVER` with a public view (see :func:`observer_view`)."""

    def view(self, state: StateT, seat: int) -> ViewT:
        """What ``seat`` may see: its own hidden cards, never anyone else's.

        ``seat`` may be :data:`OBSERVER` (a watcher) only when :attr:`watchable`
        is set; the view must then hold no seat's hidden information.
        """
        if seat == OBSERVER:
            raise IllegalAction(f"{type(self).__name__} has no public view for watchers")
        raise NotImplementedError

    def outcome(self, state: StateT) -> Outcome:
        """The result; only called when :meth:`to_move` is :data:`TERMINAL`."""
        raise NotImplementedError

    # -- chance ------------------------------------------------------------

    def sample_chance(self, state: StateT, rng: random.Random) -> Action:
        """Draw a chance outcome (a roll, a shuffle) with ``rng``.

        Only called when :meth:`to_move` is :data:`CHANCE`.  Games without
        chance never get here.  It must depend on nothing but ``state`` and
        ``rng`` (no global RNG, clock or set iteration order): loading a save
        draws each chance outcome again and refuses one that differs.
        """
        raise NotImplementedError(f"{type(self).__name__} has no chance actions")

    # -- optional hooks with sensible defaults ------------------------------

    def interlude(self, state: StateT) -> Interlude | None:
        """A pause to show before play goes on (end of a hand), or ``None``."""
        return None

    def describe_action(self, state: StateT, action: Action, seat: int) -> str:
        """A short human sentence for the log ("Urd plays 7♠"), translated.

        ``state`` is the state *before* the action; ``seat`` the seat that
        took it (or :data:`CHANCE`).  Refer to seats with :func:`seat_token`
        so the screen can show their names.  The default is the action itself.
        """
        return action

    def describe_choice(self, state: StateT, action: Action, seat: int) -> str:
        """A legal action of ``seat`` (the seat to move in ``state``) named as a choice, translated.

        What the coach lists for the player to choose from: an imperative label with no
        subject and no full stop ("Draw a card", "Play 25 km", 「カードを引く」), where the log
        says what happened (:meth:`describe_action`: "You drew a card.").  A seat it names
        (a target) is a :func:`seat_token`.  Optional; the default is :meth:`describe_action`'s
        sentence, which names the right action in the log's words.  Since SDK 1.4.
        """
        return self.describe_action(state, action, seat)

    def public_events(self, before: StateT, action: Action, seat: int) -> list[PublicEvent]:
        """What ``action``, taken by ``seat`` in ``before``, did -- as data every watcher may know.

        ``seat`` is the seat that acted (or :data:`CHANCE`); ``before`` the state
        *before* the action, which must be legal there.  A screen (and a table
        service, for every seat and watcher) learns from these what a move did
        without keeping any previous state.  Never put hidden information in an
        event: "seat 1 drew a card", not which card.  The default is one
        :attr:`PublicEvent.ACTION` event carrying :meth:`describe_action`'s
        sentence (``{"seat": seat, "text": ...}``), so games written before this
        hook keep working; override it to let screens and logs say it in data.
        """
        return [PublicEvent(PublicEvent.ACTION, {"seat": seat, "text": self.describe_action(before, action, seat)})]

    def current_scores(self, state: StateT) -> tuple[float, ...] | None:
        """Running scores of the game in progress, if it has them."""
        return None

    def check_legal(self, state: StateT, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is legal now.

        A convenience for :meth:`apply` implementations whose legal actions
        are cheap to list.
        """
        if action not in self.legal_actions(state):
            raise IllegalAction.because("not-legal-now", "{action!r} is not a legal action now", action=action)


@dataclass
class BotContext:
    """What a bot gets besides its view: its seat, an RNG and a stop signal.

    ``should_stop()`` turns true when the runner no longer wants an answer
    (the screen closed, the time budget ran out): long searches check it and
    return their best move so far.  ``rng`` is the bot's own seeded RNG, so
    bot games are reproducible.
    """

    seat: int
    rng: random.Random
    options: Mapping[str, Any] = field(default_factory=dict)
    should_stop: Callable[[], bool] = lambda: False
    time_budget: float = 2.0
    """Seconds the bot should aim to answer within."""


class Bot(Protocol):
    """A computer player.  It sees only its own seat's view."""

    def choose(self, view: View, legal: Sequence[Action], ctx: BotContext) -> Action:
        """Pick one of ``legal`` from what ``view`` shows."""
        ...


@dataclass(frozen=True)
class BotSpec:
    """A named bot for a game, as listed on the setup screen and in the arena.

    ``factory(rules, seat, options)`` builds a fresh bot for one game.
    ``strength`` orders bots from weakest (0) up; the setup screen offers the
    strongest by default.  ``label``/``description`` are English message ids.
    """

    id: str
    label: str
    factory: Callable[[Rules[Any, Any], int, Mapping[str, Any]], Bot]
    strength: int = 0
    description: str = ""
    prepare: Callable[[Mapping[str, Any], Callable[[float], None]], None] | None = None
    """Optional one-time preparation for these options (building a strategy table).

    ``prepare(options, progress)`` may take long; it reports how far it is
    with ``progress(fraction)`` (0 to 1).  The room runs it in a worker with a
    progress bar before the game starts, so the bot's first move is quick; the
    arena runs it before timing.  It must be safe to call again (a no-op once
    prepared).
    """
    translations: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """``{language: {message id: text}}`` for ``label``/``description``.

    Needed when a plugin adds a bot to *another* plugin's game: the texts are
    registered in that game's catalogue.
    """


# -- the coach: advice on every legal action, from the seat's view ---------------------


@dataclass(frozen=True)
class AdviceUnit:
    """What an advisor's values measure, so the room can print them and their costs.

    ``kind`` is ``"points"`` (a score, printed with ``digits`` decimals: Yatzy's
    expected final score), ``"chance"`` (a probability from 0 to 1, printed as a
    percentage: the chance of winning the game or the hand) or ``"outcome"`` (an
    ordering only: each :class:`Advice` says what it means in ``label``, e.g.
    "win in 3"; costs are then shown as that label, not as a number).
    ``label`` is an English message id naming the unit ("expected final score"),
    translated from the game's catalogue.
    """

    kind: str
    label: str
    digits: int = 1

    KINDS: ClassVar[tuple[str, ...]] = ("points", "chance", "outcome")

    def __post_init__(self) -> None:
        if self.kind not in self.KINDS:
            raise ValueError(f"AdviceUnit.kind must be one of {', '.join(self.KINDS)}, not {self.kind!r}")
        if not 0 <= self.digits <= 6:
            raise ValueError("AdviceUnit.digits must be from 0 to 6")


@dataclass(frozen=True)
class Advice:
    """One legal action's worth to the seat to move, as far as its view shows.

    ``value`` is in the advisor's :class:`AdviceUnit` (higher is better); the cost
    of an action is the best value minus its own.  ``label`` is what the value
    means in words when a number would not say it (an English message id with
    ``params``: ``"win in {moves}"``); ``reason`` likewise, a short why ("keeps the
    straight open").  ``samples`` is how many deals a search advisor averaged
    over (0 for an exact one), so the room can say how sure the figure is.
    """

    action: Action
    value: float
    label: str = ""
    reason: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    samples: int = 0


class Advisor(Protocol):
    """A coach for one seat: ranks the legal actions from that seat's view only.

    The same rule as for bots: ``view`` is all it gets (hidden information is
    sampled, never read).  ``advise`` returns one :class:`Advice` for every
    action of ``legal``, best first, within ``ctx.time_budget`` seconds; a long
    search checks ``ctx.should_stop()`` and returns what it has (still one entry
    per legal action).  It must not change ``view``.
    """

    def advise(self, view: View, legal: Sequence[Action], ctx: BotContext) -> list[Advice]: ...


@dataclass(frozen=True)
class AdvisorSpec:
    """A game's coach, as ``GameInfo.advisor``.

    ``factory(rules, seat, options)`` builds an advisor for one seat of one game
    (as :attr:`BotSpec.factory` does).  ``unit`` says what its values measure.
    ``prepare`` has :attr:`BotSpec.prepare`'s contract (a one-time build, with
    progress).  ``exact`` is true when the values are exact rather than estimated
    by sampling.
    """

    factory: Callable[[Rules[Any, Any], int, Mapping[str, Any]], Advisor]
    unit: AdviceUnit
    exact: bool = False
    prepare: Callable[[Mapping[str, Any], Callable[[float], None]], None] | None = None


def lazy_advisor(target: str) -> Callable[[Rules[Any, Any], int, Mapping[str, Any]], Advisor]:
    """An :attr:`AdvisorSpec.factory` from ``"package.module:factory"``, imported on first use."""

    module_name, _, name = target.partition(":")

    def factory(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> Advisor:
        return cast(Advisor, getattr(importlib.import_module(module_name), name)(rules, seat, options))

    factory.__qualname__ = f"lazy_advisor({target!r})"
    return factory


def anchored_values(
    runs: Sequence[Sequence[float]], anchor: int, *, lead_z: float = 2.0, lead_runs: int = 8
) -> list[float]:
    """Each action's mean result, except that none passes the ``anchor`` action on noise.

    For a search advisor that plays every action out on the same sampled deals (common
    random numbers): ``runs[i][k]`` is action ``i``'s result on deal ``k``, so differences
    are paired.  The anchor is the choice to keep unless the playouts show better (the
    game's expert bot's, say).  An action whose mean is above the anchor's keeps only the
    part of its lead beyond ``lead_z`` standard errors of the paired differences -- all of
    it when they share fewer than ``lead_runs`` deals; actions below the anchor are shown
    as measured.  Near ties then do not flip from one asking to the next.
    """
    base = runs[anchor]
    top = statistics.fmean(base)
    values = []
    for index, results in enumerate(runs):
        mean = statistics.fmean(results)
        common = min(len(results), len(base))
        if index == anchor or mean <= top:
            values.append(mean)
        elif common < lead_runs:
            values.append(top)
        else:
            spread = statistics.stdev([results[k] - base[k] for k in range(common)]) / math.sqrt(common)
            values.append(top + max(0.0, mean - top - lead_z * spread))
    return values


class StopLatch:
    """``BotContext.should_stop`` asked at each check until it says stop, then never again.

    ``stop = StopLatch(ctx.should_stop)``; a search calls ``stop()`` between playouts.
    Once it has said stop it stays stopped without asking again -- what the testing kit's
    ``check_advisor`` expects of an advisor (it counts the questions).
    """

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        self.should_stop = should_stop
        self.stopped = False

    def __call__(self) -> bool:
        if not self.stopped:
            self.stopped = bool(self.should_stop())
        return self.stopped


THEME_VARIABLE_NAME = re.compile(r"[a-z][a-z0-9-]{0,63}")
"""A theme variable's name (``[variables]`` of a theme, ``GameInfo.theme_variables``)."""
THEME_VARIABLE_VALUE = re.compile(r"[A-Za-z0-9_#%.,() -]{1,64}")
"""What a colour or a text style can be written with: nothing that could end a CSS rule."""
MAX_THEME_VARIABLES = 200


def theme_variables_problem(game_id: str, variables: object) -> str | None:
    """Why ``variables`` is not a usable ``GameInfo.theme_variables`` of ``game_id`` (its form), or ``None``.

    Headless: names and characters only.  The room also parses every value
    with Textual's CSS parser (:func:`gamenight.themes.check_game_variables`).
    """
    if not isinstance(variables, Mapping):
        return "theme_variables: must be a table of colour strings"
    if len(variables) > MAX_THEME_VARIABLES:
        return f"theme_variables: more than {MAX_THEME_VARIABLES} entries"
    for key, value in variables.items():
        if not isinstance(key, str) or not THEME_VARIABLE_NAME.fullmatch(key) or not key.startswith(f"{game_id}-"):
            return f"theme_variables: {str(key)[:40]!r} must be named {game_id}-… (a-z, 0-9 and '-')"
        if not isinstance(value, str) or not THEME_VARIABLE_VALUE.fullmatch(value):
            return f"theme_variables.{key}: must be a colour or a text style, as text"
    return None


@runtime_checkable
class GameTable(Protocol):
    """What a game's screen is given (``GameScreen.match``): the game at its table.  Since SDK 1.3.

    Three kinds satisfy it, and a screen draws the same way on each: a local
    :class:`~gamenight.match.Match` (every seat's game, played in this room),
    a shared table's stand-in for it (only this room's seat's view, moves sent
    to the table service) and a replay at one move (read-only, one viewpoint).
    None has a full state a screen may read: draw from :meth:`view` of your
    screen's ``view_seat`` (``GameScreen.view``), say what moves did from
    their public events, and make moves with ``GameScreen.submit``, which
    refuses what may not be played now and calls :meth:`apply`.

    ``isinstance(x, GameTable)`` only checks that the members are there.
    """

    @property
    def game(self) -> GameInfo:
        """The game being played."""
        ...

    @property
    def rules(self) -> Rules[Any, Any]:
        """The game's rules object (``game.rules``): for its pure helpers on a view, never on a state."""
        ...

    @property
    def seats(self) -> Sequence[SeatConfig]:
        """Who sits where, in seat order: each seat's ``name`` and whether a person plays it (``is_human``)."""
        ...

    @property
    def options(self) -> Mapping[str, Any]:
        """The game's options (every one at its value)."""
        ...

    @property
    def totals(self) -> Sequence[float]:
        """Each seat's running total over the games played at this table."""
        ...

    @property
    def wins(self) -> Sequence[float]:
        """Games won per seat over the games played at this table (a shared win counts its share)."""
        ...

    @property
    def display(self) -> dict[str, bool | int | str]:
        """How the table is shown (a hand's order…): the screen's to change; kept with a saved game."""
        ...

    @property
    def over(self) -> bool:
        """True when the game has ended."""
        ...

    def to_move(self) -> int:
        """The seat to move, :data:`CHANCE` or :data:`TERMINAL`."""
        ...

    def view(self, seat: int) -> Any:
        """What ``seat`` may see now.  A shared table and a replay hold one viewpoint's only (asking for
        another seat's raises ``PermissionError``): ask for your screen's ``view_seat``."""
        ...

    def legal_actions(self) -> Sequence[Action]:
        """The legal actions of the seat to move (at a shared table: only when it is this room's seat; in a
        replay: none)."""
        ...

    def human_to_move(self) -> bool:
        """True when a person at this screen must act now (not a bot, chance or the end)."""
        ...

    def bot_to_move(self) -> bool:
        """True when a bot must act now."""
        ...

    def pending_interlude(self) -> Interlude | None:
        """The end-of-hand pause the players have not confirmed yet, if any."""
        ...

    def acknowledge(self, interlude: Interlude) -> None:
        """This seat saw ``interlude`` (the pause ends when every person did)."""
        ...

    def last_events(self) -> list[PublicEvent]:
        """The public events of the latest move (``[]`` before any, or when not heard)."""
        ...

    def outcome(self) -> Outcome:
        """The finished game's result (ask only when :attr:`over`)."""
        ...

    def apply(self, action: Action) -> None:
        """Make ``action`` for the seat to move.  A screen calls ``GameScreen.submit`` instead, which
        checks the turn first; a refused move raises :class:`IllegalAction` (a shared table's refusal
        comes back from the service)."""
        ...


@dataclass(frozen=True)
class GameInfo:
    """Everything the room needs to list, set up, play and explain a game.

    ``screen`` is ``factory(match) -> textual Screen``, ``match`` a :class:`GameTable`
    (a local match, a shared table or a replay); import your Textual module inside
    it so that headless use never imports Textual (:func:`lazy_screen` does).
    ``help`` is ``{language: markdown}`` (at least ``"en"``).
    ``translations`` is ``{language: {english message id: text}}`` for the
    strings of this game; :func:`gamenight.i18n.translator` reads it.
    ``seat_names`` are the default names of the seats, in order, used when
    the config has none (``[<id>] player.N``).
    """

    id: str
    title: str
    description: str
    rules: Rules[Any, Any]
    min_seats: int
    max_seats: int
    default_seats: int
    bots: tuple[BotSpec, ...] = ()
    options: tuple[Option, ...] = ()
    screen: Callable[[GameTable], Screen[Any]] | None = None
    help: Mapping[str, str] = field(default_factory=dict)
    translations: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    seat_names: tuple[str, ...] = ()
    version: str = "0"
    perfect_information: bool = False
    """True when no seat has hidden information (hot-seat play needs no hand-over)."""
    commands: tuple[tuple[str, str, str], ...] = ()
    """Per-game command palette entries: ``(label, help, screen action)``."""
    advisor: AdvisorSpec | None = None
    """The game's coach (SDK 1.2): ranks a seat's legal actions for hints, warnings and
    game review; ``None`` for a game without one."""
    theme_variables: Mapping[str, str] = field(default_factory=dict)
    """The game's own CSS variables with their defaults, each named ``<id>-…``
    (``{"lits-shape-l": "#e8a33d"}``): its CSS uses ``$lits-shape-l`` and any
    theme may set it in ``[variables]``.  Values are colours (or text styles for
    names ending in ``-style``), checked as a theme's are: a badly formed name or
    value raises ``ValueError`` here (the plugin is reported as broken), a value
    Textual's CSS parser refuses is reported by the room, which leaves the game out."""

    def __post_init__(self) -> None:
        problem = theme_variables_problem(self.id, self.theme_variables)
        if problem is not None:
            raise ValueError(f"game {self.id!r}: {problem}")

    def default_options(self) -> dict[str, Any]:
        """Every option at its default value."""
        return {option.key: option.default for option in self.options}

    def parse_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown keys or bad values raise ``ValueError``."""
        known = {option.key: option for option in self.options}
        result = self.default_options()
        for key, value in given.items():
            if key not in known:
                raise ValueError(f"{self.id} has no option {key!r} (known: {', '.join(known) or 'none'})")
            result[key] = known[key].parse(value)
        return result

    def bot(self, bot_id: str) -> BotSpec:
        """The bot called ``bot_id``; ``KeyError`` with the known ids if none."""
        for spec in self.bots:
            if spec.id == bot_id:
                return spec
        raise KeyError(f"{self.id} has no bot {bot_id!r} (known: {', '.join(b.id for b in self.bots)})")


# -- what every plugin.py needs ------------------------------------------------------


def read_help(folder: Path) -> dict[str, str]:
    """The rules Markdown per language: ``folder/help/rules.<lang>.md`` -> ``{lang: text}``."""
    return {
        path.name.removeprefix("rules.").removesuffix(".md"): path.read_text(encoding="utf-8")
        for path in sorted((Path(folder) / "help").glob("rules.*.md"))
    }


class _LocaleFolder(Mapping[str, Mapping[str, str]]):
    """``{lang: {English: text}}`` backed by ``locale/<lang>.toml``, each file read on first use."""

    def __init__(self, folder: Path) -> None:
        self._paths = {path.stem: path for path in sorted(folder.glob("*.toml"))}
        self._loaded: dict[str, dict[str, str]] = {}

    def __getitem__(self, language: str) -> Mapping[str, str]:
        if language not in self._loaded:
            from gamenight.i18n import load_catalogue_file

            self._loaded[language] = load_catalogue_file(self._paths[language])  # KeyError if absent
        return self._loaded[language]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __repr__(self) -> str:
        return f"<translations {sorted(self._paths)}>"


def read_translations(folder: Path) -> Mapping[str, Mapping[str, str]]:
    """The catalogues per language: ``folder/locale/<lang>.toml`` -> ``{lang: {English: text}}``.

    A file is read the first time its language is wanted, so an English room
    never parses the Japanese catalogues at start-up.
    """
    return _LocaleFolder(Path(folder) / "locale")


def lazy_screen(target: str) -> Callable[[GameTable], Screen[Any]]:
    """A ``GameInfo.screen`` factory for ``"package.module:ScreenClass"``, imported on first use.

    The rules, the arena and ``gamenight plugins`` then never import Textual
    or the screen's module.
    """
    module_name, _, class_name = target.partition(":")

    def factory(match: GameTable) -> Screen[Any]:
        return cast("Screen[Any]", getattr(importlib.import_module(module_name), class_name)(match))

    factory.__qualname__ = f"lazy_screen({target!r})"
    return factory


def lazy_bot(target: str) -> Callable[[Rules[Any, Any], int, Mapping[str, Any]], Bot]:
    """A ``BotSpec.factory`` for ``"package.module:make_bot"``, imported when a bot is first wanted.

    ``make_bot(rules, seat, options)`` is then called as the factory itself
    would be.  Use it when the bot's module is heavy (a solver, numpy): the
    room lists your game without importing it.
    """
    module_name, _, name = target.partition(":")

    def factory(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> Bot:
        return cast(Bot, getattr(importlib.import_module(module_name), name)(rules, seat, options))

    factory.__qualname__ = f"lazy_bot({target!r})"
    return factory


def plain_factory(make: Callable[[], Bot]) -> Callable[[Rules[Any, Any], int, Mapping[str, Any]], Bot]:
    """A ``BotSpec.factory`` for a bot that needs neither the rules, its seat nor the options.

    ``BotSpec("random", "Random", plain_factory(RandomBot))``.
    """

    def factory(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> Bot:
        return make()

    return factory


# -- the rest of the public surface, imported on first use ---------------------------------
#
# A rules module that does ``from gamenight.sdk import Rules`` must not pay for Textual, so the
# screen kit, the match and the registration marker are looked up only when a plugin asks for
# them by name (``from gamenight.sdk import GameScreen`` works as any import does).

_LAZY: dict[str, str] = {
    # registering
    "hookimpl": "gamenight.hookspecs",
    # texts
    "translator": "gamenight.i18n",
    # a game in progress (what a screen is given)
    "Match": "gamenight.match",
    "SeatConfig": "gamenight.match",
    "play_headless": "gamenight.match",
    # the screen kit: a table's base class and the widgets and dialogs meant for games
    "GameScreen": "gamenight.ui.game_screen",
    "StatusLine": "gamenight.ui.game_screen",
    "wrap": "gamenight.linebreak",
    "Room": "gamenight.ui.game_screen",
    "pad_cells": "gamenight.text",
    "fit_cells": "gamenight.text",
    "repaint": "gamenight.ui.game_screen",
    "MessageDialog": "gamenight.dialogs",
    "ResultDialog": "gamenight.dialogs",
    "ResultTable": "gamenight.dialogs",
    "YesNoDialog": "gamenight.dialogs",
    "TextPrompt": "gamenight.dialogs",
    "KeyBar": "gamenight.widgets.key_bar",
    "ScoreCell": "gamenight.widgets.score_table",
    "ScoreRow": "gamenight.widgets.score_table",
    "ScoreTable": "gamenight.widgets.score_table",
}
"""Public names that live elsewhere in the room, by the module that defines them."""


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'gamenight.sdk' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
