"""Helpers for testing a gamenight game -- built-in or third-party -- with pytest.

* :func:`settle` waits in a Pilot test until bots and chance have moved.
* :func:`random_playouts` plays seeded games with random legal moves and
  checks the SDK contract on every step.
* :func:`check_bot_legality` plays games with a bot and checks every move.
* :func:`check_view_hiding` checks that a seat's view does not depend on the
  other seats' hidden information.
* :func:`check_save_round_trip` saves a game in progress and replays it.
* :func:`check_advisor` checks a game's coach (``GameInfo.advisor``): one advice per
  legal action, best first, from the view only, within its budget.
* :func:`message_ids` / :func:`missing_translations` find ``_("...")`` texts
  in your package that your Japanese catalogue does not translate.
"""

from __future__ import annotations

import ast
import itertools
import random
import string
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.match import Match, SeatConfig
from gamenight.sdk import CHANCE, TERMINAL, GameInfo, IllegalAction

if TYPE_CHECKING:
    from gamenight.ui.game_screen import GameScreen

__all__ = [
    "check_bot_legality",
    "check_public_events",
    "check_save_round_trip",
    "check_view_hiding",
    "message_ids",
    "missing_translations",
    "random_playouts",
    "settle",
]

_TRANSLATORS = {"_", "t", "gettext", "N_"}
"""Names of the calls whose first argument is a message id (``N_``: marked now, translated when shown)."""


async def settle(pilot: Any, rounds: int = 400) -> None:
    """Wait until no bot is thinking on the current screen (workers finished).

    A worker cancelled as it finished (a screen left mid-thought) is harmless
    and waited through.
    """
    from textual.worker import WorkerCancelled

    from gamenight.ui.game_screen import GameScreen

    for _ in range(rounds):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass
        await pilot.pause()
        screen = pilot.app.screen
        if not (isinstance(screen, GameScreen) and screen.bot_thinking):
            return
    raise AssertionError("the bots never settled")


class _RandomBot:
    def choose(self, view: Any, legal: Any, ctx: Any) -> str:
        return ctx.rng.choice(list(legal))


def random_playouts(
    game: GameInfo,
    games: int,
    seed: int = 0,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    invariant: Callable[[Any], None] | None = None,
    max_actions: int = 100_000,
) -> list[Match]:
    """Play ``games`` games with uniformly random legal moves; return the matches.

    Checks on every step: the seat to move is valid, legal actions are
    non-empty strings, ``apply`` accepts each chosen one, an action outside
    the legal list is refused without changing the state, every game ends
    within ``max_actions``, and ``outcome`` has one score per seat.
    ``invariant(state)`` is called after every action.
    """
    count = seats or game.default_seats
    rules = game.rules
    finished = []
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        match = Match(game, [SeatConfig(f"p{i}") for i in range(count)], dict(options or {}), seed=seed + index)
        for _step in range(max_actions):
            seat = match.to_move()
            if seat == TERMINAL:
                break
            assert seat == CHANCE or 0 <= seat < count, f"to_move returned {seat}"
            if seat == CHANCE:
                match.apply_chance()
            else:
                legal = match.legal_actions()
                assert legal, f"{game.id}: seat {seat} has no legal action in a live state"
                assert all(isinstance(a, str) and a for a in legal), "actions must be non-empty strings"
                bogus = "\x00not-an-action"
                before = match.state
                try:
                    rules.apply(match.state, bogus)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{game.id}: apply accepted {bogus!r}")
                assert match.state is before
                match.apply(rng.choice(legal))
            if invariant is not None:
                invariant(match.state)
        else:
            raise AssertionError(f"{game.id}: game {index} did not end within {max_actions} actions")
        outcome = match.outcome()
        assert len(outcome.scores) == count and all(0 <= w < count for w in outcome.winners)
        finished.append(match)
    return finished


def check_bot_legality(
    game: GameInfo, bot_ids: Iterable[str], games: int = 3, seed: int = 0, options: Mapping[str, Any] | None = None
) -> None:
    """Play ``games`` games with the given bots; every move they pick must be legal."""
    bots = list(bot_ids)
    for index in range(games):
        match = Match(game, [SeatConfig(b, b) for b in bots], dict(options or {}), seed=seed + index)
        while not match.over:
            if match.to_move() == CHANCE:
                match.apply_chance()
                continue
            legal = match.legal_actions()
            choice = match.bot_choice()
            assert choice in legal, f"{game.id}: bot chose {choice!r}, not among {legal[:10]}..."
            match.apply(choice)


def check_view_hiding(
    game: GameInfo,
    perturb: Callable[[Any, int, random.Random], Any],
    games: int = 5,
    seed: int = 0,
    seats: int | None = None,
) -> None:
    """A seat's view must not change when only others' hidden information changes.

    ``perturb(state, seat, rng)`` returns a state that differs from ``state``
    only in what ``seat`` may not see (e.g. the opponents' hands reshuffled).
    """
    for match in random_playouts(game, games, seed=seed, seats=seats):
        replay = Match(game, match.seats, match.options, seed=match.seed)
        rng = random.Random(seed)
        for entry in match.log:
            for seat in range(len(match.seats)):
                state = replay.state
                assert game.rules.view(state, seat) == game.rules.view(perturb(state, seat, rng), seat), (
                    f"{game.id}: seat {seat}'s view changed when only hidden information changed"
                )
            replay.apply(entry.action)


def check_observer_hiding(
    game: GameInfo,
    perturb: Callable[[Any, int, random.Random], Any] | None,
    games: int = 3,
    seed: int = 0,
    seats: int | None = None,
) -> None:
    """A watcher's view (``OBSERVER``) must not depend on any seat's hidden information.

    ``perturb`` is the one :func:`check_view_hiding` takes; applying it for
    every seat in turn changes every hand, and the public view must stay the
    same.  Without ``perturb`` (a game of perfect information) every state of
    the playouts must still give a watcher a view.  A game that is not
    :attr:`~gamenight.sdk.Rules.watchable` must refuse a watcher
    (:func:`~gamenight.sdk.observer_view` raises).
    """
    from gamenight.sdk import observer_view

    rules = game.rules
    if not getattr(rules, "watchable", False):
        try:
            observer_view(rules, Match(game, [SeatConfig(f"p{i}") for i in range(game.default_seats)], {}).state)
        except IllegalAction:
            return
        raise AssertionError(f"{game.id}: a game that is not watchable gave a watcher a view")
    for match in random_playouts(game, games, seed=seed, seats=seats):
        replay = Match(game, match.seats, match.options, seed=match.seed)
        rng = random.Random(seed)
        for entry in match.log:
            state = replay.state
            public = observer_view(rules, state)
            if perturb is not None:
                for seat in range(len(match.seats)):
                    assert observer_view(rules, perturb(state, seat, rng)) == public, (
                        f"{game.id}: the watchers' view changed when only seat {seat}'s hidden information changed"
                    )
            replay.apply(entry.action)


def check_public_events(
    game: GameInfo,
    perturb: Callable[[Any, int, random.Random], Any] | None = None,
    games: int = 3,
    seed: int = 0,
    seats: int | None = None,
) -> None:
    """Every move's :meth:`~gamenight.sdk.Rules.public_events` are JSON data that reveal nothing hidden.

    Checks on every step of seeded random games: each event is a
    :class:`~gamenight.sdk.PublicEvent` of JSON values that survives a JSON
    round trip.  With ``perturb`` (as for :func:`check_view_hiding`): for each
    seat -- and for a watcher (``OBSERVER``) when the game is watchable -- the
    state is changed in what that seat may not see; when that seat's views
    before *and* after the move are the same as in the real game, the events
    must be the same too.  An event may say what the move showed (the card now
    face up), never what stays hidden (the card drawn).
    """
    import json

    from gamenight.sdk import OBSERVER, PublicEvent, event_problem

    rules = game.rules
    watchers = [OBSERVER] if getattr(rules, "watchable", False) else []
    for match in random_playouts(game, games, seed=seed, seats=seats):
        replay = Match(game, match.seats, match.options, seed=match.seed)
        rng = random.Random(seed)
        for entry in match.log:
            before = replay.state
            replay.apply(entry.action)
            events = replay.last_events()
            for event in events:
                problem = event_problem(event)
                assert problem is None, f"{game.id}: {entry.action!r}: {problem}"
                assert PublicEvent.from_json(json.loads(json.dumps(event.to_json()))) == event, (
                    f"{game.id}: {event!r} does not survive a JSON round trip"
                )
            if perturb is None:
                continue
            for seat in [*range(len(match.seats)), *watchers]:
                changed = before
                for other in range(len(match.seats)) if seat == OBSERVER else [seat]:
                    changed = perturb(changed, other, rng)
                try:
                    after = rules.apply(changed, entry.action)
                except IllegalAction:
                    continue  # the change made the move illegal: nothing to compare
                if rules.view(changed, seat) != rules.view(before, seat):
                    continue
                if rules.view(after, seat) != rules.view(replay.state, seat):
                    continue
                assert list(rules.public_events(changed, entry.action, entry.seat)) == events, (
                    f"{game.id}: the events of {entry.action!r} changed with what "
                    f"{'a watcher' if seat == OBSERVER else f'seat {seat}'} may not see: they reveal hidden information"
                )


def check_save_round_trip(game: GameInfo, registry: Any, folder: Path, seed: int = 0) -> None:
    """Save a random game halfway and load it: the same state and log must come back."""
    from gamenight.saves import load_match, save_match

    played = random_playouts(game, 1, seed=seed)[0]
    half = Match(game, played.seats, played.options, seed=played.seed)
    half.replay(played.log[: len(played.log) // 2])
    path = save_match(half, folder / f"{game.id}-round-trip.toml")
    loaded = load_match(registry, path)
    assert loaded.log == half.log and loaded.state == half.state


def message_ids(root: Path) -> dict[str, str]:
    """Every literal ``_("...")`` / ``t("...")`` / ``self.t("...")`` text under ``root``,
    and the sentence of every ``IllegalAction.because(code, "...")``.

    Returns message id -> "file:line" of its first use.
    """
    found: dict[str, str] = {}
    for path in sorted(Path(root).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _TRANSLATORS and isinstance(node.args[0].value, str):
                found.setdefault(node.args[0].value, f"{path}:{node.lineno}")
            elif (
                name == "because"  # IllegalAction.because(code, "English sentence", ...): translated by the screen
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                found.setdefault(node.args[1].value, f"{path}:{node.lineno}")
    return found


def _fields(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def missing_translations(root: Path, catalogue: Mapping[str, str], also: Iterable[str] = ()) -> list[str]:
    """Problems with ``catalogue`` for the texts under ``root`` (and ``also``).

    Each problem is a line: an untranslated text, or a translation whose
    ``{placeholders}`` differ from the English.
    """
    problems = []
    wanted = dict(message_ids(root))
    for text in also:
        wanted.setdefault(text, "(declared)")
    for text, where in sorted(wanted.items()):
        if text not in catalogue:
            problems.append(f"untranslated at {where}: {text!r}")
        elif _fields(text) != _fields(catalogue[text]):
            problems.append(f"placeholders differ at {where}: {text!r}")
    return problems


# -- added for third-party plugins: the screen check and a one-call conformance run ----------------

__all__ += ["check_screen_mounts", "run_conformance", "screen_mounts"]


wait_for_bots = settle
"""The same as :func:`settle` (kept for plugins that use this name)."""


__all__ += ["wait_for_bots"]


def _game_registry(game: GameInfo, registry: Any = None) -> Any:
    """``registry`` if given, else a registry holding only ``game``."""
    if registry is not None:
        return registry
    from gamenight.plugins import Registry

    return Registry(games={game.id: game})


def _find_game_screen(app: Any, match: Match) -> GameScreen:
    from gamenight.ui.game_screen import GameScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, GameScreen) and screen.match is match:
            return screen
    raise AssertionError(f"{match.game.id}: its screen is not open (top screen: {type(app.screen).__name__})")


async def screen_mounts(
    game: GameInfo,
    size: tuple[int, int] = (80, 24),
    language: str = "en",
    theme: str | None = None,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    registry: Any = None,
    perturb: Callable[[Any, int, random.Random], Any] | None = None,
    human_seat: int | None = None,
) -> None:
    """Open ``game``'s screen in a real :class:`~gamenight.app.GameNightApp` of ``size`` and play one move.

    A person sits in ``human_seat`` (default: the last seat, so the bots
    before it have acted and hold hidden information) and the game's weakest
    bot in every other seat.  Checks: the screen opens and draws (an
    exception in ``compose_table`` or ``refresh_view`` fails here with its
    traceback), the bots move without an error on the status line; with
    ``perturb`` (as for :func:`check_view_hiding`), the drawn screen is the
    same when only what the person may not see changes -- so the screen draws
    from the view, not from the state; and the person's first legal action
    goes through :meth:`GameScreen.submit` and is applied.  Await it from an
    async test; :func:`check_screen_mounts` is the plain-function form.
    """
    import tempfile

    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.i18n import get_language, set_language

    if game.screen is None:
        raise AssertionError(f"{game.id}: GameInfo.screen is not set")
    bots = sorted(game.bots, key=lambda spec: spec.strength)
    if not bots and (seats or game.default_seats) > 1:
        raise AssertionError(f"{game.id}: a game for several seats needs at least one bot")
    count = seats or game.default_seats
    person = count - 1 if human_seat is None else human_seat
    lineup = [
        SeatConfig("Player") if seat == person else SeatConfig(f"{bots[0].label} {seat + 1}", bots[0].id)
        for seat in range(count)
    ]
    match = Match(game, lineup, dict(options or {}), seed=seed)
    previous = get_language()
    set_language(language)
    try:
        with tempfile.TemporaryDirectory() as folder:
            app = GameNightApp(
                registry=_game_registry(game, registry),
                config=Config.load(Path(folder) / "c.toml"),
                saves_dir=Path(folder) / "saves",
                theme_name=theme,
                bot_delay=0,
                start_match=match,
            )
            async with app.run_test(size=size) as pilot:
                await wait_for_bots(pilot)
                screen = _find_game_screen(app, match)
                assert tuple(app.size) == tuple(size), f"the app is {tuple(app.size)}, not {size}"
                message = screen.query_one("#message")
                assert not message.has_class("error"), f"{game.id}: error on the status line: {message.render()}"
                shown = app.export_screenshot()  # draws every widget of the screen
                if perturb is not None and match.human_to_move() and app.screen is screen:
                    real = match.state
                    match.state = perturb(real, screen.view_seat, random.Random(seed))
                    try:
                        screen.refresh_view()
                        await pilot.pause()
                        assert app.export_screenshot() == shown, (
                            f"{game.id}: the screen changed when only hidden information changed "
                            "(draw from self.view, not from self.match.state)"
                        )
                    finally:
                        match.state = real
                        screen.refresh_view()
                        await pilot.pause()
                if match.human_to_move() and app.screen is screen:
                    before = len(match.log)
                    action = match.legal_actions()[0]
                    assert screen.submit(action), f"{game.id}: the screen refused the legal action {action!r}"
                    await wait_for_bots(pilot)
                    assert len(match.log) > before, f"{game.id}: {action!r} was not applied"
                    assert not message.has_class("error"), f"{game.id}: error after a move: {message.render()}"
                    app.export_screenshot()
    finally:
        set_language(previous)


def check_screen_mounts(game: GameInfo, size: tuple[int, int] = (80, 24), **kwargs: Any) -> None:
    """:func:`screen_mounts` for a plain (not async) test, in English and in Japanese.

    Keyword arguments go to :func:`screen_mounts` (``theme``, ``seats``,
    ``options``, ``seed``, ``registry``, ``perturb``, ``human_seat``;
    ``language`` to test only one).
    """
    import asyncio

    languages = [kwargs.pop("language")] if "language" in kwargs else ["en", "ja"]
    for language in languages:
        asyncio.run(screen_mounts(game, size, language=language, **kwargs))


def declared_texts(game: GameInfo) -> list[str]:
    """The English message ids a game declares in its GameInfo (title, bots, options, seats)."""
    texts = [game.title, game.description, *game.seat_names]
    advisor = getattr(game, "advisor", None)
    if advisor is not None:
        texts.append(advisor.unit.label)
    for spec in game.bots:
        texts += [spec.label, spec.description]
    for option in game.options:
        texts += [option.label, option.description, *(label for _value, label in option.choices)]
    return [text for text in texts if text]


__all__ += ["declared_texts"]


def run_conformance(
    game: GameInfo,
    perturb: Callable[[Any, int, random.Random], Any] | None = None,
    package_root: Path | None = None,
    games: int = 20,
    seed: int = 0,
    registry: Any = None,
    screen: bool = True,
    size: tuple[int, int] = (80, 24),
) -> None:
    """The whole conformance kit in one call (plain pytest test); raises ``AssertionError``.

    * :func:`random_playouts` -- ``games`` games at every seat count the game allows;
    * :func:`check_bot_legality` -- two games for each bot, every seat that bot;
    * :func:`check_view_hiding` with ``perturb`` -- required unless the game
      declares ``perfect_information=True``;
    * :func:`check_observer_hiding` (with ``perturb`` when given): a watchable
      game's watcher view hides every seat's hand, any other game refuses watchers;
    * :func:`check_public_events` (with ``perturb`` when given);
    * :func:`check_save_round_trip`;
    * :func:`check_advisor` when the game has an advisor (``GameInfo.advisor``), with ``perturb``;
    * with ``package_root`` and a ``"ja"`` catalogue: :func:`missing_translations`
      (the ``_()`` texts under ``package_root`` plus :func:`declared_texts`), and
      a Japanese help page;
    * with ``screen``: :func:`check_screen_mounts` at ``size`` (with ``perturb``).
    """
    import tempfile

    for count in range(game.min_seats, game.max_seats + 1):
        random_playouts(game, games, seed=seed, seats=count)
    for spec in game.bots:
        check_bot_legality(game, [spec.id] * game.default_seats, games=2, seed=seed)
    if perturb is not None:
        check_view_hiding(game, perturb, games=max(1, games // 4), seed=seed)
    elif not game.perfect_information:
        raise AssertionError(
            f"{game.id}: has hidden information (perfect_information=False), so pass perturb= to check its views"
        )
    check_observer_hiding(game, perturb, games=max(1, games // 4), seed=seed)
    check_public_events(game, perturb, games=max(1, games // 4), seed=seed)
    with tempfile.TemporaryDirectory() as folder:
        check_save_round_trip(game, _game_registry(game, registry), Path(folder), seed=seed)
    if getattr(game, "advisor", None) is not None:
        check_advisor(game, perturb, games=max(1, games // 10), seed=seed)
    if package_root is not None and "ja" in game.translations:
        problems = missing_translations(package_root, game.translations["ja"], also=declared_texts(game))
        assert not problems, f"{game.id}: Japanese catalogue problems:\n" + "\n".join(problems)
        assert "ja" in game.help, f"{game.id}: there is a Japanese catalogue but no Japanese help"
    if screen:
        check_screen_mounts(game, size, registry=registry, perturb=perturb)


# -- the coach: an advisor's contract (SDK 1.2) ---------------------------------------------------

__all__ += ["check_advisor"]


class _CountingStop:
    """A ``should_stop`` that says stop from its ``after + 1``-th call on, and counts every call."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls > self.after

    @property
    def calls_after_stop(self) -> int:
        """Calls made once it had said stop (the first "stop" answer not counted)."""
        return max(0, self.calls - self.after - 1)


def _ask_advisor(
    advisor: Any, view: Any, legal: list[Any], seat: int, options: Any, rng_seed: str, after: int, time_budget: float
) -> tuple[Any, _CountingStop]:
    """``advisor``'s advice on ``view`` with a seeded RNG and a stop signal that says stop after
    ``after`` checks; and that signal (it counts the checks made after it said stop)."""
    from gamenight.sdk import BotContext

    stop = _CountingStop(after)
    context = BotContext(
        seat=seat, rng=random.Random(rng_seed), options=options, should_stop=stop, time_budget=time_budget
    )
    return advisor.advise(view, legal, context), stop


def _advice_key(advice: Any) -> tuple[Any, ...]:
    return (advice.action, advice.value, advice.label, advice.reason, dict(advice.params), advice.samples)


def _check_advice_list(game_id: str, where: str, advice: Any, legal: list[str]) -> None:
    """One advice per legal action, nothing else, finite values, best first."""
    import math

    from gamenight.sdk import Advice

    assert isinstance(advice, list), f"{game_id}: {where}: advise returned {type(advice).__name__}, not a list"
    assert all(isinstance(entry, Advice) for entry in advice), f"{game_id}: {where}: an entry is not an Advice"
    actions = [entry.action for entry in advice]
    duplicates = sorted({action for action in actions if actions.count(action) > 1})
    assert not duplicates, f"{game_id}: {where}: advice twice for {duplicates[:5]}"
    illegal = [action for action in actions if action not in legal]
    assert not illegal, f"{game_id}: {where}: advice for actions that are not legal: {illegal[:5]}"
    missing = [action for action in legal if action not in actions]
    assert not missing, f"{game_id}: {where}: no advice for the legal actions {missing[:5]}"
    for entry in advice:
        assert isinstance(entry.value, (int, float)) and math.isfinite(entry.value), (
            f"{game_id}: {where}: {entry.action!r} has the value {entry.value!r} (a finite number is needed)"
        )
        assert isinstance(entry.label, str) and isinstance(entry.reason, str), f"{game_id}: {where}: label/reason"
        assert isinstance(entry.samples, int) and entry.samples >= 0, f"{game_id}: {where}: samples {entry.samples!r}"
    values = [entry.value for entry in advice]
    assert all(a >= b for a, b in itertools.pairwise(values)), (
        f"{game_id}: {where}: advice is not sorted best first: {values[:8]}"
    )


def check_advisor(
    game: GameInfo,
    perturb: Callable[[Any, int, random.Random], Any] | None = None,
    games: int = 2,
    seed: int = 0,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    positions: int = 12,
    stop_after: int = 50,
    time_budget: float = 0.2,
) -> None:
    """A game's advisor (``GameInfo.advisor``) keeps its contract; raises ``AssertionError``.

    On up to ``positions`` decisions of each of ``games`` seeded random games (spread over
    the game), for the seat to move:

    * the advice is one :class:`~gamenight.sdk.Advice` per legal action -- no duplicate, no
      action that is not legal -- with finite values, sorted best first, and ``view`` is
      left as it was;
    * **budget**: ``ctx.should_stop()`` says stop from its ``stop_after + 1``-th call
      (``ctx.time_budget`` is ``time_budget``): the advice must still be complete, and once
      told to stop the advisor may check it at most once more per legal action before it
      returns.  The same again with ``should_stop()`` true from the first call.  An
      advisor that never calls it (an exact one) passes: the kit counts calls, it does not
      time them;
    * **view only** (with ``perturb``, as for :func:`check_view_hiding`): the state is
      changed in what the seat may not see; a second advisor of the same seat is shown
      that state's view (the same view) and the same legal actions, after the rules object
      was last asked about the changed state, with an RNG of the same seed and the same
      stop signal: its advice must be the same, value for value.  An advisor that reads
      the real state through the rules object, a global or a cache of its own gives
      itself away here.

    An advisor must therefore be deterministic given the view, ``ctx.rng`` and the
    ``should_stop`` answers (a search stops on ``should_stop``, not on its own clock, when
    the kit asks).  ``prepare`` (when the spec has one) is run first and must report
    progress from 0 to 1.
    """
    from gamenight.sdk import AdviceUnit, AdvisorSpec

    spec = getattr(game, "advisor", None)
    assert isinstance(spec, AdvisorSpec), f"{game.id}: GameInfo.advisor is not an AdvisorSpec"
    assert isinstance(spec.unit, AdviceUnit), f"{game.id}: AdvisorSpec.unit is not an AdviceUnit"
    rules = game.rules
    for match in random_playouts(game, games, seed=seed, seats=seats, options=options):
        if spec.prepare is not None:
            reported: list[float] = []
            spec.prepare(match.options, reported.append)
            assert all(0 <= fraction <= 1 for fraction in reported), f"{game.id}: prepare reported {reported[:5]}"
        count = len(match.seats)
        advisors = [spec.factory(rules, seat, match.options) for seat in range(count)]
        twins = [spec.factory(rules, seat, match.options) for seat in range(count)]
        replay = Match(game, match.seats, match.options, seed=match.seed)
        decisions = [number for number, entry in enumerate(match.log) if entry.seat >= 0]
        step = max(1, len(decisions) // max(1, positions))
        chosen = set(decisions[::step][:positions])
        rng = random.Random(f"{seed}:{match.seed}:perturb")
        for number, entry in enumerate(match.log):
            if number in chosen:
                state = replay.state
                seat = entry.seat
                where = f"game seed {match.seed}, action {number + 1}, seat {seat}"
                for after in (stop_after, 0):
                    view = rules.view(state, seat)
                    legal = list(rules.legal_actions(state))

                    advice, stop = _ask_advisor(
                        advisors[seat], view, legal, seat, match.options, f"{seed}:{number}:advice", after, time_budget
                    )
                    _check_advice_list(game.id, where, advice, legal)
                    assert view == rules.view(state, seat), f"{game.id}: {where}: the advisor changed the view"
                    assert stop.calls_after_stop <= len(legal), (
                        f"{game.id}: {where}: told to stop after {after} checks, the advisor went on "
                        f"and checked should_stop {stop.calls_after_stop} more times ({len(legal)} legal actions)"
                    )
                    if perturb is None:
                        continue
                    changed = perturb(state, seat, rng)
                    hidden_view = rules.view(changed, seat)
                    assert hidden_view == view, (
                        f"{game.id}: {where}: perturb changed what the seat sees (check it with check_view_hiding)"
                    )
                    rules.legal_actions(changed)  # the rules object was last asked about the changed state
                    twin_advice, _twin_stop = _ask_advisor(
                        twins[seat],
                        hidden_view,
                        legal,
                        seat,
                        match.options,
                        f"{seed}:{number}:advice",
                        after,
                        time_budget,
                    )
                    _check_advice_list(game.id, where, twin_advice, legal)
                    assert [_advice_key(a) for a in twin_advice] == [_advice_key(a) for a in advice], (
                        f"{game.id}: {where}: the advice changed when only what seat {seat} may not see changed: "
                        "the advisor reads more than its view"
                    )
            replay.apply(entry.action)
