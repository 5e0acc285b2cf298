"""Game review, headless: every decision of every person seat against the game's coach.

:func:`review` replays one game (of a save file, a :class:`~gamenight.replay.Replay` or a
:class:`~gamenight.match.Match`) and asks the game's advisor (``GameInfo.advisor``, SDK 1.2) about
each decision a *person* took, from that seat's view at that moment, exactly as the live coach
would have: the action taken and its value, the best action and its value, and the **cost**
(best value minus the value of the action taken; 0 for a best move).  It works for any game
whose plugin registers an advisor, built-in or third-party, and uses nothing else of the game.

**Accuracy.**  One figure per seat from 0 to 100, over its *choices that mattered*: decisions
with two or more legal actions whose values differ (a forced move, or one where every action is
worth the same, says nothing of the player).  It depends on the advisor's unit:

* ``points`` (Yatzy's expected final score): ``100 × (1 − Σ cost / Σ swing)``, where a
  decision's *swing* is the best value minus the worst.  It is the share of what was at stake
  that the player kept: 100 for best play throughout, 0 for the worst action every time; a
  4-point slip weighs as much in a 4-point decision as a total blunder, and nothing in a
  decision where nothing was at stake.  Unlike an average cost it does not depend on the
  game's scale, so it reads the same for any game scored in points.
* ``chance`` (a chance of winning): the mean over decisions of Lichess's move accuracy,
  ``103.1668 × exp(−0.04354 × Δ) − 3.1669`` clamped to 0-100, where ``Δ`` is the chance lost in
  percentage points (``100 × cost``).  A best move scores 100, losing 10 points of winning
  chance about 62, losing 50 about 8: small slips cost little, blunders almost everything, as a
  player feels them.  (Lichess weights its mean by the position's volatility; this is the plain
  mean.)
* ``outcome`` (an ordering only, e.g. Mate's exact results): the percentage of decisions on
  which the player chose an action of the best value.  The values of an outcome unit are not
  amounts, so only "best or not" is meaningful.

Costs are in the advisor's unit (``points``: points; ``chance``: a probability; ``outcome``:
the difference of the advisor's values, which for Mate are the play's scores).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gamenight.i18n import _
from gamenight.match import Match
from gamenight.replay import Replay, ReplayError
from gamenight.sdk import Action, Advice, AdviceUnit, BotContext, fill_seat_names
from gamenight.text import safe_text

__all__ = ["Decision", "Review", "ReviewError", "SeatReview", "accuracy", "checked_advice", "game_shown", "review"]


class ReviewError(Exception):
    """A game that cannot be reviewed; the message says why (one line, translated)."""


@dataclass(frozen=True)
class Decision:
    """One decision of a person seat: what it did, what the coach thought best, and the cost."""

    number: int
    """Which action of the game's log this is, from 1 (the replay viewer's step; chance counts too)."""
    seat: int
    action: str
    value: float
    best_action: str
    best_value: float
    worst_value: float
    choices: int
    """How many legal actions there were."""
    label: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    best_label: str = ""
    best_params: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""
    """The action in words (the game's ``describe_action``), else the action itself."""
    best_text: str = ""
    """The coach's best choice in words (the game's ``describe_choice``), else the action itself."""

    def played(self) -> Advice:
        """The action taken, as the coach advised it (for the coach's words: value and cost texts)."""
        return Advice(self.action, self.value, self.label, params=self.params)

    def best(self) -> Advice:
        """The coach's best choice, as it advised it."""
        return Advice(self.best_action, self.best_value, self.best_label, params=self.best_params)

    @property
    def cost(self) -> float:
        """How much worse than the best the action taken was (0 for a best move)."""
        return max(0.0, self.best_value - self.value)

    @property
    def swing(self) -> float:
        """Best value minus worst: how much was at stake."""
        return self.best_value - self.worst_value

    @property
    def mattered(self) -> bool:
        """True when the choice could change the value (two or more actions of different worth)."""
        return self.choices > 1 and self.swing > 0

    def as_json(self) -> dict[str, Any]:
        """The decision as JSON values (the shape ``gamenight review --json`` prints)."""
        return {
            "step": self.number,
            "seat": self.seat,
            "action": self.action,
            "value": self.value,
            "label": self.label,
            "params": dict(self.params),
            "best": {
                "action": self.best_action,
                "value": self.best_value,
                "label": self.best_label,
                "params": dict(self.best_params),
            },
            "cost": self.cost,
            "swing": self.swing,
            "choices": self.choices,
        }


@dataclass(frozen=True)
class SeatReview:
    """One person seat's totals."""

    seat: int
    name: str
    decisions: int
    """All its decisions."""
    counted: int
    """Those that mattered (see :attr:`Decision.mattered`): what accuracy is measured over."""
    best: int
    """Counted decisions on which it chose an action of the best value."""
    cost: float
    """The total cost of its decisions."""
    accuracy: float | None
    """0-100 (see the module), ``None`` when no decision mattered."""

    def as_json(self) -> dict[str, Any]:
        """The seat's totals as JSON values."""
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "counted": self.counted,
            "best": self.best,
            "cost": self.cost,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class Review:
    """A reviewed game: every person decision and each person seat's totals."""

    game: str
    game_number: int
    """From 0."""
    unit: AdviceUnit
    exact: bool
    decisions: list[Decision]
    seats: list[SeatReview]

    def costliest(self, count: int = 10) -> list[Decision]:
        """The ``count`` decisions that cost most, costliest first (ties: the earlier first)."""
        costly = [decision for decision in self.decisions if decision.cost > 0]
        return sorted(costly, key=lambda decision: (-decision.cost, decision.number))[:count]

    def as_json(self) -> dict[str, Any]:
        """The review as JSON values: the shape ``gamenight review --json`` prints (docs/plugins.md)."""
        return {
            "game": self.game,
            "game_number": self.game_number + 1,
            "unit": {"kind": self.unit.kind, "label": self.unit.label, "digits": self.unit.digits},
            "exact": self.exact,
            "seats": [seat.as_json() for seat in self.seats],
            "decisions": [decision.as_json() for decision in self.decisions],
        }


def checked_advice(advice: object, legal: Sequence[Action]) -> list[Advice]:
    """What an advisor returned, kept to legal actions with finite values, best first.

    Each legal action once (the first entry for it); anything else -- not an
    :class:`Advice`, an action not legal now, a value that is not a finite number -- is dropped.
    """
    allowed = set(legal)
    kept: dict[Action, Advice] = {}
    if not isinstance(advice, list | tuple):
        return []
    for entry in advice[: 4 * len(allowed) + 16]:
        if not isinstance(entry, Advice) or not isinstance(entry.action, str) or entry.action not in allowed:
            continue
        value = entry.value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            continue
        kept.setdefault(entry.action, entry)
    return sorted(kept.values(), key=lambda entry: -entry.value)


def json_params(params: object) -> dict[str, Any]:
    """An advice's ``params`` as a review keeps them: text keys and JSON scalars only (a plugin's
    values; anything else would stop ``gamenight review --json``), at most 20, texts cut to 200."""
    if not isinstance(params, Mapping):
        return {}
    kept = {}
    for key, value in list(params.items())[:20]:
        if isinstance(key, str) and isinstance(value, str | int | float | bool | None):
            kept[safe_text(key, 40)] = safe_text(value, 200) if isinstance(value, str) else value
    return kept


def lichess_move_accuracy(lost: float) -> float:
    """Lichess's accuracy of one move that lost ``lost`` percentage points of winning chance (0-100)."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * max(0.0, lost)) - 3.1669))


def accuracy(kind: str, decisions: list[Decision]) -> float | None:
    """A seat's accuracy (0-100) over ``decisions`` for an advisor of unit ``kind`` (see the module)."""
    counted = [decision for decision in decisions if decision.mattered]
    if not counted:
        return None
    if kind == "points":
        return 100.0 * (1.0 - sum(d.cost for d in counted) / sum(d.swing for d in counted))
    if kind == "chance":
        return sum(lichess_move_accuracy(100.0 * d.cost) for d in counted) / len(counted)
    return 100.0 * sum(1 for d in counted if d.cost == 0) / len(counted)


def game_shown(match: Match) -> int:
    """The number (from 0) of the game ``match`` shows: a finished game counted in the records has
    moved ``games_played`` on to the next."""
    return max(0, match.games_played - 1) if match.recorded else match.games_played


def _replay_of(registry: Any, source: Any, game_index: int | None) -> Replay:
    if isinstance(source, Replay):
        return source
    if isinstance(source, Match):
        number = game_shown(source)
        return Replay(source.game, list(source.seats), dict(source.options), source.seed, number, list(source.log))
    try:
        return Replay.from_save(registry, Path(source), game_index)
    except ReplayError as error:
        raise ReviewError(str(error)) from None


def _describe(replay: Replay, state: Any, action: str, seat: int, choice: bool = False) -> str:
    """The action in words, seats by their names (the action itself when the game has no sentence):
    the log's sentence for what was played, or (``choice``) the game's words for a choice
    (``Rules.describe_choice``: "Play 25", not "Ann played 25.") for the coach's."""
    rules = replay.game.rules
    try:
        if choice and callable(getattr(rules, "describe_choice", None)):
            text = rules.describe_choice(state, action, seat)
        else:
            text = rules.describe_action(state, action, seat)
    except Exception:  # a plugin's sentence failing must not stop the review
        text = action
    return safe_text(fill_seat_names(str(text), [config.name for config in replay.seats]), 200)


def review(
    registry: Any,
    match_or_save: Any,
    game_index: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    time_budget: float = 1.0,
    seats: Sequence[int] | None = None,
) -> Review:
    """Review one game: every decision of every person seat against the game's coach.

    ``match_or_save`` is a save file's path (its game ``game_index``, from 0; default: the
    game in progress, else the last one, as ``gamenight replay`` chooses), a
    :class:`~gamenight.replay.Replay` or a :class:`~gamenight.match.Match` (its current game).
    ``progress(done, total)`` is told after each decision.  A searching advisor gets
    ``time_budget`` seconds a decision.  ``seats``: only these person seats (a shared table's
    player reviews their own decisions, never what the coach would have told another seat from
    that seat's hidden hand).  Raises :class:`ReviewError` (one translated line)
    for a file that cannot be replayed, a game without a coach, or a coach that fails.
    """
    replay = _replay_of(registry, match_or_save, game_index)
    game = replay.game
    spec = game.advisor
    if spec is None:
        raise ReviewError(
            _(
                "{game} has no coach (its plugin registers no advisor), so its games cannot be reviewed.",
                game=safe_text(game.id, 40),
            )
        )
    rules = game.rules
    options = dict(replay.options)
    people = [seat for seat, config in enumerate(replay.seats) if config.is_human and (seats is None or seat in seats)]
    asked = [(number, entry) for number, entry in enumerate(replay.entries) if entry.seat in people]
    try:
        if spec.prepare is not None:
            spec.prepare(options, lambda _fraction: None)
        advisors = {seat: spec.factory(rules, seat, options) for seat in people}
        decisions = []
        for done, (number, entry) in enumerate(asked, start=1):
            decisions.append(_decide(replay, advisors[entry.seat], number, entry.seat, entry.action, time_budget))
            if progress is not None:
                progress(done, len(asked))
    except ReviewError:
        raise
    except Exception as error:  # a plugin's advisor failing: one line, never a traceback
        raise ReviewError(
            _(
                "The coach of {game} failed: {reason}",
                game=safe_text(game.id, 40),
                reason=safe_text(f"{type(error).__name__}: {error}", 300),
            )
        ) from None
    per_seat = []
    for seat in people:
        own = [decision for decision in decisions if decision.seat == seat]
        counted = [decision for decision in own if decision.mattered]
        per_seat.append(
            SeatReview(
                seat=seat,
                name=replay.seats[seat].name,
                decisions=len(own),
                counted=len(counted),
                best=sum(1 for decision in counted if decision.cost == 0),
                cost=sum(decision.cost for decision in own),
                accuracy=accuracy(spec.unit.kind, own),
            )
        )
    return Review(game.id, replay.game_number, spec.unit, spec.exact, decisions, per_seat)


def _decide(replay: Replay, advisor: Any, number: int, seat: int, action: str, time_budget: float) -> Decision:
    rules = replay.game.rules
    state = replay.states[number]
    legal = list(rules.legal_actions(state))
    deadline = time.monotonic() + time_budget
    context = BotContext(
        seat=seat,
        rng=random.Random(f"{replay.seed}:{replay.game_number}:{seat}:{number}:review"),
        options=dict(replay.options),
        should_stop=lambda: time.monotonic() > deadline,
        time_budget=time_budget,
    )
    given = advisor.advise(rules.view(state, seat), legal, context)
    given = list(given[: 4 * len(legal) + 16]) if isinstance(given, list | tuple) else []  # a plugin's: bounded
    if any(
        isinstance(entry, Advice) and (not isinstance(entry.value, int | float) or not math.isfinite(entry.value))
        for entry in given
    ):
        raise ReviewError(
            _(
                "The coach of {game} gave a value that is not a number on move {number}.",
                game=safe_text(replay.game.id, 40),
                number=number + 1,
            )
        )
    advice = checked_advice(given, legal)  # legal actions only, each once, best first: as the panel shows it
    played = next((entry for entry in advice if entry.action == action), None)
    if played is None:
        raise ReviewError(
            _(
                "The coach of {game} gave no advice on move {number} ({action}).",
                game=safe_text(replay.game.id, 40),
                number=number + 1,
                action=safe_text(action, 60),
            )
        )
    best, worst = advice[0], advice[-1]
    return Decision(
        number=number + 1,
        seat=seat,
        action=action,
        value=float(played.value),
        best_action=best.action,
        best_value=float(best.value),
        worst_value=float(worst.value),
        choices=len(legal),
        label=safe_text(played.label, 200) if isinstance(played.label, str) else "",
        params=json_params(played.params),
        best_label=safe_text(best.label, 200) if isinstance(best.label, str) else "",
        best_params=json_params(best.params),
        text=_describe(replay, state, action, seat),
        best_text=_describe(replay, state, best.action, seat, choice=True),
    )
