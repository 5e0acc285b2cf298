"""The match runner's engine: one game in progress, without any UI.

A :class:`Match` holds the game, its seats, options, the current state, the
action log and the seeded RNG for chance.  The Textual screens and the
headless arena both drive games through it, so a game played in the room and
one played by ``gamenight arena`` follow exactly the same path.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gamenight.i18n import _, translator
from gamenight.sdk import (
    CHANCE,
    TERMINAL,
    Action,
    Bot,
    BotContext,
    GameInfo,
    IllegalAction,
    Interlude,
    Outcome,
    PublicEvent,
)
from gamenight.text import seat_count

__all__ = ["SEED_BITS", "LogEntry", "Match", "SeatConfig", "new_seed"]

SEED_BITS = 128
"""Bits of a fresh seed: too many to search for the one a few seen dice or cards pin down."""


def new_seed() -> int:
    """A fresh secret seed from the operating system (:data:`SEED_BITS` bits)."""
    return secrets.randbits(SEED_BITS)


@dataclass(frozen=True)
class SeatConfig:
    """Who sits in a seat: a name, and a bot id (``None`` for a human)."""

    name: str
    bot: str | None = None

    @property
    def is_human(self) -> bool:
        """True when a person plays this seat."""
        return self.bot is None


@dataclass(frozen=True)
class LogEntry:
    """One applied action: who took it (a seat or ``CHANCE``) and what."""

    seat: int
    action: Action


@dataclass
class Match:
    """A game in progress, plus running totals over the games of a session.

    ``seed`` seeds chance (and the bots' RNGs) of the current game, so a match
    is reproducible; each finished game's own seed is kept in :attr:`seeds`
    beside its log in :attr:`history` (a shared table gives every game a fresh
    secret seed, so one game's save says nothing of the next).
    Use :meth:`apply` for every action, human, bot or chance alike.
    """

    game: GameInfo
    seats: list[SeatConfig]
    options: dict[str, Any]
    seed: int = 0
    state: Any = None
    log: list[LogEntry] = field(default_factory=list)
    totals: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    """Games won per seat over the session (a shared win counts its share)."""
    games_played: int = 0
    history: list[tuple[LogEntry, ...]] = field(default_factory=list)
    """The logs of the finished games counted in ``totals`` and ``wins``, oldest first.

    With their seeds they let a save's running totals be re-derived, not trusted.
    """
    seeds: list[int] = field(default_factory=list)
    """The seed of each finished game in :attr:`history` (same order): the one its chance was drawn from."""
    acknowledged: str = ""
    table: str = ""
    """The shared table this match was played at (its id; ``""``: a local game).  Its save is a
    record of games played there: it opens as a replay, never as a local game from its position."""
    display: dict[str, bool | int | str] = field(default_factory=dict)
    """How the table is shown (e.g. Mille's hand order): saved and restored, never part of the game."""
    coached: bool = False
    """True when the coach showed advice in the current game (a hint or a warning): it is kept in the
    save and the record, and such a game counts for no rating nor high score."""
    bot_time_budget: float = 2.0
    """Seconds each bot should aim to answer within (``BotContext.time_budget``)."""
    started_at: float = field(default_factory=time.time, repr=False, compare=False)
    """When the current game began (seconds since the epoch; a resumed game: when it was resumed)."""
    _bots: dict[int, Bot] = field(default_factory=dict, repr=False)
    _recorded: bool = field(default=False, repr=False)
    _last: tuple[int, Any, Action] | None = field(default=None, repr=False)
    """The latest applied move: (seat, the state before it, action), for :meth:`last_events`."""
    _last_events: list[PublicEvent] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        count = len(self.seats)
        if not self.game.min_seats <= count <= self.game.max_seats:
            raise ValueError(
                _(
                    "{game} takes {seats}, not {count}",
                    game=self.game.id,
                    seats=seat_count(self.game.min_seats, self.game.max_seats),
                    count=count,
                )
            )
        self.options = self.game.parse_options(self.options)
        if not self.totals:
            self.totals = [0.0] * count
        if not self.wins:
            self.wins = [0.0] * count
        if self.state is None:
            self.start_game()

    # -- lifecycle -----------------------------------------------------------

    def start_game(self, seed: int | None = None) -> None:
        """Begin a (new) game with the same seats and options, drawing chance from ``seed``.

        Chance is seeded from the game's seed, the game number and the log
        length, so "play again" and a resumed save are reproducible too.
        A finished game that was recorded moves to :attr:`history` first, its
        seed to :attr:`seeds`.  Without ``seed`` the new game keeps the match's
        (a local game); a shared table passes a fresh secret one.
        """
        if self._recorded:
            self.history.append(tuple(self.log))
            self.seeds.append(self.seed)
        if seed is not None:
            self.seed = seed
        self._restart_game()

    def _restart_game(self) -> None:
        rules = self.game.rules
        if hasattr(rules, "new_game_in_match"):
            self.state = rules.new_game_in_match(len(self.seats), self.options, self.games_played)
        else:  # a duck-typed rules object that does not subclass sdk.Rules
            self.state = rules.new_game(len(self.seats), self.options)
        self.log = []
        self._last = None
        self._last_events = None
        self.acknowledged = ""
        self._bots = {}
        self._recorded = False
        self.coached = False
        self.started_at = time.time()

    def record_result(self) -> Outcome:
        """Add the finished game's scores to the running totals and return them.

        A game counts once: recording it again (a finished game resumed from
        a save) returns the outcome without adding it twice.
        """
        outcome = self.outcome()
        if self._recorded:
            return outcome
        for seat, score in enumerate(outcome.scores):
            self.totals[seat] += score
            self.wins[seat] += outcome.win_share(seat)
        self.games_played += 1
        self._recorded = True
        return outcome

    @property
    def recorded(self) -> bool:
        """True when the current game is finished and counted in the totals."""
        return self._recorded

    # -- queries -------------------------------------------------------------

    @property
    def rules(self):
        """The game's rules object."""
        return self.game.rules

    def to_move(self) -> int:
        """The seat to move, :data:`CHANCE` or :data:`TERMINAL`."""
        return self.rules.to_move(self.state)

    @property
    def over(self) -> bool:
        """True when the game has ended."""
        return self.to_move() == TERMINAL

    def outcome(self) -> Outcome:
        """The finished game's result."""
        return self.rules.outcome(self.state)

    def legal_actions(self) -> list[Action]:
        """Legal actions of the seat to move."""
        return self.rules.legal_actions(self.state)

    def view(self, seat: int) -> Any:
        """What ``seat`` may see now."""
        return self.rules.view(self.state, seat)

    def pending_interlude(self) -> Interlude | None:
        """An end-of-hand pause that the players have not confirmed yet."""
        interlude = self.rules.interlude(self.state)
        if interlude is None or interlude.key == self.acknowledged:
            return None
        return interlude

    def acknowledge(self, interlude: Interlude) -> None:
        """The players saw ``interlude``: play may go on."""
        self.acknowledged = interlude.key

    def human_to_move(self) -> bool:
        """True when a person must act now (not a bot, chance or the end)."""
        seat = self.to_move()
        return seat >= 0 and self.seats[seat].is_human

    def bot_to_move(self) -> bool:
        """True when a bot must act now."""
        seat = self.to_move()
        return seat >= 0 and not self.seats[seat].is_human

    # -- acting --------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` for whoever is to move; raises :class:`IllegalAction`."""
        seat = self.to_move()
        if seat == TERMINAL:
            raise IllegalAction.because("game-over", "The game is over.")
        before = self.state
        self.state = self.rules.apply(before, action)
        self.log.append(LogEntry(seat, action))
        self._last = (seat, before, action)
        self._last_events = None

    def last_events(self) -> list[PublicEvent]:
        """The public events of the latest applied move (:meth:`Rules.public_events`); ``[]`` before any.

        What a screen learns a move did from, the same for a local match and a
        shared table (whose service sends them): no screen keeps a previous state.
        Worked out on first ask, so headless play pays nothing for it.
        """
        if self._last is None:
            return []
        if self._last_events is None:
            seat, before, action = self._last
            rules = self.rules
            if hasattr(rules, "public_events"):
                self._last_events = list(rules.public_events(before, action, seat))
            else:  # a duck-typed rules object that does not subclass sdk.Rules
                text = rules.describe_action(before, action, seat) if hasattr(rules, "describe_action") else action
                self._last_events = [PublicEvent(PublicEvent.ACTION, {"seat": seat, "text": text})]
        return list(self._last_events)

    def apply_chance(self) -> Action:
        """Draw and apply the pending chance outcome; return it."""
        if self.to_move() != CHANCE:
            raise IllegalAction.because("no-chance-pending", "No chance outcome is pending.")
        action = self.rules.sample_chance(self.state, self._chance_rng())
        self.apply(action)
        return action

    def _chance_rng(self) -> random.Random:
        """The RNG of the chance outcome due now: it follows the seed, the game number and the log length."""
        return random.Random(f"{self.seed}:{self.games_played}:{len(self.log)}:chance")

    def run_chance(self) -> None:
        """Apply chance outcomes until a seat must act, a pause or the end."""
        while self.to_move() == CHANCE and self.pending_interlude() is None:
            self.apply_chance()

    def bot(self, seat: int) -> Bot:
        """The bot playing ``seat`` (built on first use, kept for the game)."""
        if seat not in self._bots:
            bot_id = self.seats[seat].bot
            if bot_id is None:
                raise ValueError(f"seat {seat} is played by a person")
            spec = self.game.bot(bot_id)
            self._bots[seat] = spec.factory(self.rules, seat, self.options)
        return self._bots[seat]

    def bot_context(self, seat: int, should_stop=lambda: False) -> BotContext:
        """A fresh context for the bot in ``seat`` (its RNG follows the log length)."""
        rng = random.Random(f"{self.seed}:{self.games_played}:{seat}:{len(self.log)}")
        return BotContext(
            seat=seat, rng=rng, options=self.options, should_stop=should_stop, time_budget=self.bot_time_budget
        )

    def bot_choice(self, should_stop=lambda: False) -> Action:
        """Ask the bot to move for its seat -- from that seat's view only.

        Thread-safe for reading: it works on the current state value, which is
        immutable, and does not apply the action.
        """
        seat = self.to_move()
        view = self.rules.view(self.state, seat)
        legal = self.rules.legal_actions(self.state)
        return self.bot(seat).choose(view, legal, self.bot_context(seat, should_stop))

    def replay(
        self,
        entries: Sequence[LogEntry | tuple[int, str]],
        check_chance: bool = False,
        after_each: Callable[[int], None] | None = None,
    ) -> None:
        """Restart the current game and apply a logged one; stops at the first bad entry.

        With ``check_chance`` every chance outcome must be the one the seed
        draws at that point (as :meth:`apply_chance` would): a save cannot
        stack a deck or force the dice.  Without it a test may script chance.
        Raises :class:`IllegalAction` naming the move number and the reason;
        the match is then left at the state before that entry.  ``after_each(number)``
        runs after each entry is applied (a replay keeping every state, a time budget).
        """
        self._restart_game()
        for number, entry in enumerate(entries, start=1):
            seat, action = (entry.seat, entry.action) if isinstance(entry, LogEntry) else entry
            if self.to_move() != seat:
                raise IllegalAction(
                    _(
                        "move {number}: the log says seat {seat} acts, but it is {turn}'s turn",
                        number=number,
                        seat=seat,
                        turn=self.to_move(),
                    )
                )
            if check_chance and seat == CHANCE and action != self.rules.sample_chance(self.state, self._chance_rng()):
                raise IllegalAction(
                    _("move {number}: this chance outcome is not the one the seed draws", number=number)
                )
            try:
                self.apply(action)
            except IllegalAction as error:
                reason = error.say(translator(self.game.id))
                raise IllegalAction(
                    _("move {number} ({action!r}): {error}", number=number, action=action, error=reason)
                ) from None
            if after_each is not None:
                after_each(number)


def play_headless(
    game: GameInfo,
    seats: Sequence[SeatConfig],
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    max_actions: int = 1_000_000,
    bot_time_budget: float = 2.0,
    game_number: int = 0,
) -> Match:
    """Play one whole game with bots in every seat; return the finished match.

    ``game_number`` says which game of a series this is (see
    :meth:`gamenight.sdk.Rules.new_game_in_match`), so who starts rotates.
    """
    match = Match(
        game,
        list(seats),
        dict(options or {}),
        seed=seed,
        bot_time_budget=bot_time_budget,
        games_played=game_number,
    )
    for _action_number in range(max_actions):
        seat = match.to_move()
        if seat == TERMINAL:
            return match
        if seat == CHANCE:
            match.apply_chance()
        else:
            match.apply(match.bot_choice())
    raise RuntimeError(f"{game.id}: the game did not end within {max_actions} actions")
