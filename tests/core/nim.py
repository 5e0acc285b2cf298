"""A tiny complete game used to test the shell on its own: Nim with a die.

Each turn a seat takes 1-3 sticks; the one who takes the last stick wins.
With option ``dice`` a die roll (a chance action) adds sticks at the start,
so the shell's chance path is covered too; seat 0 sees a "secret" number
that seat 1 must not see (for view and hand-over tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gamenight.sdk import (
    CHANCE,
    TERMINAL,
    BotContext,
    BotSpec,
    GameInfo,
    IllegalAction,
    Option,
    Outcome,
    Rules,
)
from gamenight.ui.game_screen import GameScreen
from textual.app import ComposeResult
from textual.widgets import Static


@dataclass(frozen=True)
class NimState:
    sticks: int
    to_move: int
    seats: int
    rolled: bool
    secret: int = 7
    last: int = -1


class NimRules(Rules):
    def new_game(self, seats, options):
        return NimState(
            sticks=int(options.get("sticks", 10)), to_move=0, seats=seats, rolled=not options.get("dice", False)
        )

    def to_move(self, state):
        if not state.rolled:
            return CHANCE
        return TERMINAL if state.sticks == 0 else state.to_move

    def legal_actions(self, state):
        if self.to_move(state) < 0:
            return []
        return [str(n) for n in (1, 2, 3) if n <= state.sticks]

    def sample_chance(self, state, rng):
        return f"die:{rng.randint(1, 6)}"

    def apply(self, state, action):
        if self.to_move(state) == CHANCE:
            if not action.startswith("die:") or action[4:] not in {"1", "2", "3", "4", "5", "6"}:
                raise IllegalAction(f"not a die roll: {action!r}")
            return replace(state, sticks=state.sticks + int(action[4:]), rolled=True)
        if action not in self.legal_actions(state):
            raise IllegalAction(f"You may take 1 to 3 sticks, at most {state.sticks}.")
        return replace(
            state, sticks=state.sticks - int(action), last=state.to_move, to_move=(state.to_move + 1) % state.seats
        )

    def view(self, state, seat):
        return {"sticks": state.sticks, "secret": state.secret if seat == 0 else None}

    def outcome(self, state):
        return Outcome.from_scores(
            [1 if seat == state.last else 0 for seat in range(state.seats)],
            lines=[("Last stick", [1 if s == state.last else 0 for s in range(state.seats)])],
        )

    def describe_action(self, state, action, seat):
        return f"die shows {action[4:]}" if seat == CHANCE else f"seat {seat + 1} takes {action}"


class FirstBot:
    def choose(self, view, legal: Sequence[str], ctx: BotContext) -> str:
        return legal[0]


class PerfectBot:
    """Leaves a multiple of four when it can."""

    def choose(self, view, legal, ctx):
        for action in legal:
            if (view["sticks"] - int(action)) % 4 == 0:
                return action
        return legal[0]


class NimScreen(GameScreen):
    BINDINGS = [("1", "take(1)", "Take 1"), ("2", "take(2)", "Take 2"), ("3", "take(3)", "Take 3")]

    def compose_table(self) -> ComposeResult:
        yield Static(id="sticks")

    def refresh_view(self) -> None:
        view = self.view
        self.query_one("#sticks", Static).update(f"Sticks: {'|' * view['sticks']} ({view['sticks']})")

    def action_take(self, n: int) -> None:
        self.submit(str(n))


NIM = GameInfo(
    id="nim",
    title="Nim",
    description="Take 1 to 3 sticks; the last stick wins.",
    rules=NimRules(),
    min_seats=2,
    max_seats=3,
    default_seats=2,
    bots=(
        BotSpec("first", "First", lambda rules, seat, options: FirstBot(), 0),
        BotSpec("perfect", "Perfect", lambda rules, seat, options: PerfectBot(), 1),
    ),
    options=(
        Option("sticks", "Sticks", 10, kind="int", minimum=1, maximum=40),
        Option("dice", "Roll a die for extra sticks", False),
    ),
    screen=NimScreen,
    help={"en": "# Nim\n\nTake one to three sticks. Whoever takes the last stick wins."},
    seat_names=("Ann", "Bob", "Cid"),
)


class NimPlugin:
    """A plugin object (hookimpls as methods), as tests register it."""

    from gamenight.hookspecs import hookimpl

    @hookimpl
    def register_games(self, register):
        register(NIM)
