"""Yatzy over real SSH: two people play a whole game at one shared table by keys.

One ``python -m gamenight.ssh`` and real OpenSSH clients in pseudo-terminals
(pyte screens, 80x24), the harness of test_shared_tables.py.  Ann opens a
Yatzy table by keys (two seats -- the fewest people a shared table has, so
the shortest whole game: 13 rounds each; no joker rule), seat 2 open for a
person; Ben takes it from his Tables list.  They play all 26 turns by keys:
Space rolls; on each person's first turn they hold die 1 (key ``1``) and roll
again; then a box is scored -- the one the dice score most in, picked from the
legal moves of the table's save under the data dir (the service's own record,
read as the truth): on the first turns by its letter key, later by Return on
the box the screen's cursor starts on (it must be that one).

Before every turn both title bars and both turn lines name the person to
move; after every scored turn both screens show the same score sheet -- every
box, upper total and total of both columns -- and it is the save's.  At the
end both screens show the end dialog with the service's winner and totals.
"""

from __future__ import annotations

import re
from pathlib import Path

from gamenight.match import Match
from gamenight_yatzy.rules import BOXES, MAX_ROLLS, ROUNDS, preview, seat_total, upper_total
from gamenight_yatzy.screen import BOX_KEYS

from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import end_dialog_shown, title_bar, two_at_a_table
from tests.core.ssh.test_shared_tables_seven import saved

HOLD = "HOLD"
"""The mark under a held die."""
SHEET_WIDTH = 34
"""The score sheet's columns at 80x24 (the dice and the log are to its right)."""
BOX_ROW = re.compile(r"^ ([a-m]) (.+?)\s{2,}(\S+)\s+(\S+)\s*$")


def sheet_on_screen(terminal: Terminal) -> dict[str, tuple[str, str]]:
    """What the screen's score sheet shows: box letter (and "upper", "total") -> both columns' cells."""
    rows: dict[str, tuple[str, str]] = {}
    for line in terminal.text().splitlines():
        cell = line[:SHEET_WIDTH]
        if found := BOX_ROW.match(cell):
            rows[found.group(1)] = (found.group(3), found.group(4))
        elif cell.startswith("   Upper total") or cell.startswith("   Total"):
            values = cell.split()[-2:]
            rows["upper" if "Upper" in cell else "total"] = (values[0], values[1])
    return rows


def sheet_of(match: Match) -> dict[str, tuple[str, str]]:
    """The sheet a screen must show between turns (no dice on the table: no suggestions)."""
    state = match.state
    rows = {
        BOX_KEYS[box]: tuple("·" if sheet[box] is None else str(sheet[box]) for sheet in state.sheets)
        for box in range(len(BOXES))
    }
    rows["upper"] = tuple(f"{upper_total(sheet)}/63" for sheet in state.sheets)
    rows["total"] = tuple(
        str(seat_total(sheet, bonus)) for sheet, bonus in zip(state.sheets, state.bonuses, strict=True)
    )
    return rows  # type: ignore[return-value]


def turn_shown(terminal: Terminal, match: Match) -> bool:
    """The screen names the person to move on its title bar and its turn line (with the round)."""
    state = match.state
    name = match.seats[state.seat].name
    filled = sum(score is not None for score in state.sheets[state.seat])
    return f"{name} to move" in title_bar(terminal) and f"Round {filled + 1}/{ROUNDS} · {name}" in terminal.text()


def wait_for_save(data_dir: Path, turns: int, what: str) -> Match:
    """The save once its log holds more than ``turns`` moves and no chance draw is pending."""

    def ready() -> Match | None:
        match = saved(data_dir)
        return match if match is not None and len(match.log) > turns and match.to_move() != -1 else None

    return wait_until(ready, 20, what, interval=0.05)  # type: ignore[return-value]


@needs_ssh
def test_two_people_play_a_whole_yatzy_game_over_real_ssh_seeing_the_same_sheet(
    start_server, terminals, tmp_path: Path
) -> None:
    server, seats, match = two_at_a_table(tmp_path, terminals, start_server, "yatzy")
    assert [seat.name for seat in match.seats] == ["ann", "ben"] and not match.options.get("joker")
    turns = 0
    while not match.over:
        assert turns < 2 * ROUNDS, "more turns than a game has"
        state = match.state
        mover = seats[state.seat]
        wait_until(lambda m=match: all(turn_shown(t, m) for t in seats), 20, f"turn {turns + 1} on both screens")
        mover.send(" ")  # roll all five dice
        match = wait_for_save(server.data_dir, len(match.log), "the roll")
        assert match.log[-2].action == "roll:00000" and match.state.rolls == 1
        wait_until(lambda: all("Roll 1 of 3" in t.text() for t in seats), 20, "the first roll on both screens")
        # A new turn's dice are all rolled: no die is marked held (a person's holds end with their turn).
        assert not any(HOLD in t.text() for t in seats), "\n--- next screen ---\n".join(t.text() for t in seats)
        if turns < 2:  # each person's first turn: hold die 1, roll the others again
            mover.send("1")
            wait_until(lambda t=mover: t.text().count(HOLD) == 1, 20, "die 1 held on the mover's screen")
            mover.send(" ")
            match = wait_for_save(server.data_dir, len(match.log), "the second roll")
            assert match.log[-2].action == "roll:10000" and match.state.rolls == 2 < MAX_ROLLS
        state = match.state
        scores = preview(state.sheets[state.seat], state.dice, state.joker)
        box = max(scores, key=lambda b: (scores[b], -b))
        assert f"score:{BOXES[box]}" in match.legal_actions()
        # The first turns score by the box's letter; later ones by Return on the box the cursor starts on,
        # which is the one the dice score most in (whatever box the other person scored last).
        mover.send(BOX_KEYS[box] if turns < 2 else "\r")
        match = wait_for_save(server.data_dir, len(match.log), "the score")
        assert match.log[-1].action == f"score:{BOXES[box]}" and match.log[-1].seat == state.seat
        turns += 1
        expected = sheet_of(match)
        try:
            wait_until(lambda e=expected: all(sheet_on_screen(t) == e for t in seats), 20, "the same sheet")
        except AssertionError:
            screens = "\n--- next screen ---\n".join(t.text() for t in seats)
            raise AssertionError(f"turn {turns}: the sheets are not the save's {expected}:\n{screens}") from None

    assert turns == 2 * ROUNDS
    end_dialog_shown(seats, match)
    # Behind the dialog ("b": look at the board) each screen's sheet is the final one, and its ranking.
    expected = sheet_of(match)
    outcome = match.outcome()
    scores = outcome.scores
    ranking = [  # tied seats share a rank
        f"{1 + sum(other > scores[s] for other in scores)}. {match.seats[s].name} — {scores[s]:g}"
        for s in ranked(scores)
    ]
    for terminal in seats:
        terminal.send("b")
        wait_until(lambda t=terminal: "Game over" not in t.text(), 20, "the board behind the end dialog")
        wait_until(lambda t=terminal: sheet_on_screen(t) == expected, 20, f"the final sheet\n{terminal.text()}")
        assert "Final ranking" in terminal.text()
        # (The notice that the game reached one's saves may lie over the ranking for its few seconds.)
        wait_until(lambda t=terminal: all(line in t.text() for line in ranking), 20, f"{ranking}\n{terminal.text()}")


def ranked(scores: tuple[float, ...]) -> list[int]:
    return sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat))
