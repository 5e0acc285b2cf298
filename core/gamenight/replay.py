"""Replays: a recorded game or a save, rebuilt step by step from its seed and log (no Textual here).

A :class:`Replay` applies the logged actions in order through the game's
rules -- every chance outcome must be the one the seed draws at that point,
as when a save is loaded -- and keeps the state after each one, so stepping
to any action is a look-up.  :meth:`Replay.step` gives a
:class:`ReplayTable`: the members of :class:`~gamenight.match.Match` a game's
screen reads, at that action, seen from one viewpoint only (a seat, or the
public view :data:`~gamenight.sdk.OBSERVER` where the game has one).  It has
no full state and accepts no move: a screen drawing from it can show only
what the chosen view could see at that moment.

A game whose plugin is not installed, or whose recorded plugin version is
newer than the installed one (or cannot be read as a version), is refused
with :class:`ReplayError` saying why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from gamenight.i18n import _, gettext
from gamenight.match import LogEntry, Match, SeatConfig
from gamenight.sdk import OBSERVER, TERMINAL, Action, GameInfo, IllegalAction, Interlude, Outcome, PublicEvent
from gamenight.text import safe_text

__all__ = ["Replay", "ReplayError", "ReplayTable", "SaveGame", "version_problem"]

_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)*")


class SaveGame(NamedTuple):
    """One game of a save, as :meth:`Replay.save_games` lists it."""

    number: int
    """From 0."""
    scores: tuple[float, ...] | None
    """The final scores, or None for a game not finished."""
    moves: int
    names: tuple[str, ...]
    """The seats' names (a name the game chose in today's language)."""


class ReplayError(Exception):
    """A game that cannot be replayed; the message says why."""


def version_problem(game: GameInfo, recorded: str) -> str | None:
    """Why a game recorded with plugin version ``recorded`` cannot be replayed by ``game``, or ``None``.

    The same version, or an older one written ``1``, ``1.2``..., replays (the
    rules then check every move); a newer one, or one that is not a version
    number, is refused: its log may hold moves today's rules do not know.
    """
    installed = str(game.version)
    if recorded == installed:
        return None
    if not _VERSION.fullmatch(recorded) or not _VERSION.fullmatch(installed):
        return _(
            "it was recorded with {game} version '{recorded}', which cannot be compared with "
            "the installed version {installed}.",
            game=game.id,
            recorded=safe_text(recorded, limit=40),
            installed=safe_text(installed, limit=40),
        )
    older = tuple(int(part) for part in recorded.split("."))
    newer = tuple(int(part) for part in installed.split("."))
    if older > newer:
        return _(
            "it was recorded with {game} version {recorded}, newer than the installed {installed}; "
            "please upgrade the plugin.",
            game=game.id,
            recorded=recorded,
            installed=installed,
        )
    return None


@dataclass
class Replay:
    """One game, rebuilt from its seed and log; :meth:`step` gives the table at any action."""

    game: GameInfo
    seats: list[SeatConfig]
    options: dict[str, Any]
    seed: int
    game_number: int
    entries: list[LogEntry]
    display: dict[str, bool | int | str] = field(default_factory=dict)
    follow: int = 0
    """Whose view is shown: a seat, or :data:`OBSERVER` for the public view."""
    position: int = 0
    """How many actions have been applied in the table :meth:`step` gave last."""
    states: list[Any] = field(default_factory=list, repr=False)
    """The state before any action, then after each one (``states[n]``: after ``n`` actions)."""
    _events: dict[int, list[PublicEvent]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.states:
            self.states = _rebuild(self.game, self.seats, self.options, self.seed, self.game_number, self.entries)
        if self.follow != OBSERVER and not 0 <= self.follow < len(self.seats):
            self.follow = 0

    # -- where a replay comes from --------------------------------------------------------

    @classmethod
    def from_record(cls, registry: Any, record: Any) -> Replay:
        """The replay of a :class:`~gamenight.records.store.GameRecord` (with its log)."""
        game = registry.games.get(record.game)
        if game is None:
            raise ReplayError(
                _("This game cannot be replayed: the game '{game}' is not installed.", game=safe_text(record.game, 40))
            )
        problem = version_problem(game, str(record.plugin_version))
        if problem is not None:
            raise ReplayError(_("This game cannot be replayed: {reason}", reason=problem))
        # a name the game chose is recorded as its English id: shown in today's language
        seats = [
            SeatConfig(gettext(seat.name, game.id) if seat.name in game.seat_names else seat.name, seat.bot)
            for seat in record.seats
        ]
        entries = [LogEntry(int(seat), str(action)) for seat, action in record.log]
        return cls(game, seats, dict(record.options), int(record.seed), int(record.game_number), entries)

    @classmethod
    def from_save(cls, registry: Any, path: Path, game_number: int | None = None) -> Replay:
        """The replay of a save file's game in progress (or its ``game_number``-th game, from 0).

        The save is loaded and checked as when it is resumed
        (:func:`gamenight.saves.load_match`); a save whose current game has no
        move yet replays the last finished game instead.
        """
        from gamenight.saves import SaveError, load_match, read_document

        try:
            match = load_match(registry, path)
        except SaveError as error:
            raise ReplayError(str(error)) from None
        recorded = read_document(path).get("plugin_version")
        if isinstance(recorded, str):
            problem = version_problem(match.game, recorded)
            if problem is not None:
                raise ReplayError(_("This game cannot be replayed: {reason}", reason=problem))
        games = [list(log) for log in match.history]
        if match.log or not games:
            games.append(list(match.log))
        number = len(games) - 1 if game_number is None else game_number
        if not 0 <= number < len(games):
            raise ReplayError(
                _("The save holds {count} games; there is no game {number}.", count=len(games), number=number + 1)
            )
        follow = next((seat for seat, config in enumerate(match.seats) if config.is_human), 0)
        return cls(
            match.game,
            list(match.seats),
            dict(match.options),
            _game_seed(match, number),
            number,
            games[number],
            display=dict(match.display),
            follow=follow,
        )

    @staticmethod
    def save_games(registry: Any, path: Path) -> list[SaveGame]:
        """The games a save holds, oldest first: (number from 0, final scores or ``None`` unfinished,
        moves, the seats' names).

        Each game is replayed from the seed to know its scores (a save's totals are never trusted).
        """
        from gamenight.saves import SaveError, load_match

        try:
            match = load_match(registry, path)
        except SaveError as error:
            raise ReplayError(str(error)) from None
        games = [list(log) for log in match.history]
        if match.log or not games:
            games.append(list(match.log))
        listed = []
        for number, entries in enumerate(games):
            states = _rebuild(
                match.game, list(match.seats), dict(match.options), _game_seed(match, number), number, entries
            )
            rules = match.game.rules
            over = rules.to_move(states[-1]) == TERMINAL
            scores = tuple(rules.outcome(states[-1]).scores) if over else None
            listed.append(SaveGame(number, scores, len(entries), tuple(seat.name for seat in match.seats)))
        return listed

    # -- stepping -------------------------------------------------------------------------

    @property
    def steps(self) -> int:
        """How many actions the game holds (:meth:`step` takes 0 to this)."""
        return len(self.entries)

    def viewpoints(self) -> list[int]:
        """Whose view may be followed: each seat, then :data:`OBSERVER` where the game has a public view."""
        points = list(range(len(self.seats)))
        if getattr(self.game.rules, "watchable", False):
            points.append(OBSERVER)
        return points

    def set_follow(self, viewpoint: int) -> None:
        """Follow ``viewpoint`` (a seat, or :data:`OBSERVER`); ``ValueError`` for one the game has not."""
        if viewpoint not in self.viewpoints():
            raise ValueError(f"{self.game.id}: no view {viewpoint}")
        self.follow = viewpoint

    def step(self, n: int) -> ReplayTable:
        """The table after ``n`` actions (clamped to 0 … :attr:`steps`)."""
        self.position = max(0, min(int(n), self.steps))
        return ReplayTable(self, self.position)

    def state_at(self, n: int) -> Any:
        """The full state after ``n`` actions: for tests and tools, never for a screen."""
        return self.states[n]

    def view_at(self, n: int, viewpoint: int | None = None) -> Any:
        """What ``viewpoint`` (default: :attr:`follow`) could see after ``n`` actions."""
        seat = self.follow if viewpoint is None else viewpoint
        return self.game.rules.view(self.states[n], seat)

    def events(self, n: int) -> list[PublicEvent]:
        """The public events of action ``n`` (1 … :attr:`steps`); ``[]`` for 0."""
        if n <= 0:
            return []
        if n not in self._events:
            entry = self.entries[n - 1]
            rules = self.game.rules
            before = self.states[n - 1]
            if hasattr(rules, "public_events"):
                self._events[n] = list(rules.public_events(before, entry.action, entry.seat))
            else:  # a duck-typed rules object that does not subclass sdk.Rules
                text = rules.describe_action(before, entry.action, entry.seat)
                self._events[n] = [PublicEvent(PublicEvent.ACTION, {"seat": entry.seat, "text": text})]
        return list(self._events[n])

    def move_log(self, n: int) -> list[tuple[int, int, list[PublicEvent]]]:
        """Actions 1 … ``n``: ``(number, seat, public events)`` (seat is :data:`CHANCE` for the table)."""
        return [(number, self.entries[number - 1].seat, self.events(number)) for number in range(1, n + 1)]


def _game_seed(match: Match, number: int) -> int:
    """The seed game ``number`` (from 0) of ``match`` drew its chance from: a finished one's own, else the match's."""
    return match.seeds[number] if number < len(match.seeds) else match.seed


def _rebuild(
    game: GameInfo,
    seats: list[SeatConfig],
    options: dict[str, Any],
    seed: int,
    game_number: int,
    entries: Sequence[LogEntry],
) -> list[Any]:
    """Every state of the game, from the seed and log (chance checked against the seed)."""
    try:
        match = Match(game, list(seats), dict(options), seed=seed, games_played=game_number)
        states = [match.state]
        match.replay(entries, check_chance=True, after_each=lambda _number: states.append(match.state))
    except (ValueError, IllegalAction) as error:
        raise ReplayError(_("This game cannot be replayed: {reason}", reason=safe_text(error, limit=300))) from None
    except Exception as error:  # a plugin's rules failing on a strange log must not end the room
        raise ReplayError(
            _(
                "The game's rules failed on this replay: {reason}",
                reason=safe_text(f"{type(error).__name__}: {error}", limit=300),
            )
        ) from None
    return states


class ReplayTable:
    """A replay at one action, as a game's screen sees a match: read-only, one viewpoint.

    Like a shared table's :class:`~gamenight.tables.client.RemoteTable` it has
    no full ``state``; :meth:`view` answers with the followed viewpoint's view
    only (a screen asking for another seat's gets ``PermissionError``), and
    every member that would act refuses.
    """

    remote = False
    replay = True

    def __init__(self, replay: Replay, position: int) -> None:
        self._replay = replay
        self.position = position
        self.game = replay.game
        self.seats = list(replay.seats)
        self.options = dict(replay.options)
        self.display = replay.display
        self.seed = replay.seed
        self.games_played = replay.game_number
        self.totals = [0.0] * len(self.seats)
        self.wins = [0.0] * len(self.seats)
        self.history: list[tuple[LogEntry, ...]] = []
        self.acknowledged = ""
        self.bot_time_budget = 0.0
        self._state = replay.states[position]

    @property
    def log(self) -> list[LogEntry]:
        """The actions applied so far."""
        return list(self._replay.entries[: self.position])

    @property
    def follow(self) -> int:
        """The viewpoint shown (a seat, or :data:`OBSERVER`)."""
        return self._replay.follow

    @property
    def watching(self) -> bool:
        """True while the public view is followed (as a shared table's watcher: no seat)."""
        return self._replay.follow == OBSERVER

    @property
    def state(self) -> Any:
        raise AttributeError("a replay has no full state for a screen: draw from view(seat) and last_events()")

    @property
    def rules(self) -> Any:
        return self.game.rules

    def to_move(self) -> int:
        return self.rules.to_move(self._state)

    @property
    def over(self) -> bool:
        return self.to_move() == TERMINAL

    @property
    def recorded(self) -> bool:
        return self.over

    def outcome(self) -> Outcome:
        return self.rules.outcome(self._state)

    def legal_actions(self) -> list[Action]:
        return []  # nothing may be played in a replay

    def human_to_move(self) -> bool:
        return False

    def bot_to_move(self) -> bool:
        return False

    def view(self, seat: int | None = None) -> Any:
        """The followed viewpoint's view; another seat's is refused (a watcher's view is anyone's to ask)."""
        follow = self._replay.follow
        if seat is not None and follow != OBSERVER and seat != follow:
            raise PermissionError(f"this replay follows seat {follow}, not {seat}")
        return self.rules.view(self._state, follow)

    def pending_interlude(self) -> Interlude | None:
        return self.rules.interlude(self._state)

    def acknowledge(self, interlude: Interlude) -> None:
        """A replay's pauses need no answer."""

    def last_events(self) -> list[PublicEvent]:
        return self._replay.events(self.position)

    def record_result(self) -> Outcome:
        return self.outcome()

    def _refuse(self, *_args: Any, **_kwargs: Any) -> Any:
        raise IllegalAction.because("replay", "A replay accepts no moves.")

    apply = apply_chance = bot_choice = start_game = run_chance = _refuse
