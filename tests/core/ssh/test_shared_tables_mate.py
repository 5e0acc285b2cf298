"""Mate over real SSH: two people play a whole four-play match at one shared table by keys.

One ``python -m gamenight.ssh`` and real OpenSSH clients in pseudo-terminals
(pyte screens, 80x24), the harness of test_shared_tables.py.  Ann opens a
Mate table by keys with foreplacing off (Tab to its checkbox, Space: no
set-aside decisions, the shortest match); Ben takes the free seat from his
Tables list.  They play by keys: the arrows move the card cursor along one's
own hand (the test waits to see it on the card), Return plays the card under
it, ``c`` goes on after a play's end.
The test knows every card from the table's save under the data dir (the
service's own record, read as the truth) and takes the shortest legal course:
before each play it searches both seats' legal moves for the quickest mate
(a match is then some 16-24 cards instead of up to 80).

Mate is a game of perfect information (docs/rules/mate.md 1.5): both hands lie
face up, nothing is hidden.  What each screen must get right is whose is
whose: after every card both screens show, at the bottom, their own seat's
hand and, on top, the other's -- each exactly the save's -- and both title bars
name the person to move.  After each of the first three plays both screens
show its end (title bar, the match sheet's totals) and the next play waits
for both to press ``c``; at the end both end dialogs show the service's winner
and totals.
"""

from __future__ import annotations

from pathlib import Path

from gamenight.match import Match
from gamenight.sdk import CHANCE, TERMINAL
from gamenight_mate.rules import PLAYS, MateRules, MateState, pretty

from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import end_dialog_shown, title_bar, two_at_a_table
from tests.core.ssh.test_shared_tables_seven import saved

RULES = MateRules()
TOP_HAND, BOTTOM_HAND = 4, 12
"""The screen rows of the hand on top (the other seat's) and at the bottom (one's own), at 80x24."""
FELT = 54
"""The felt's columns (the match sheet is to its right)."""
RIGHT, LEFT = "\x1b[C", "\x1b[D"
NO_FOREPLACING = "\t\t\t "
"""From seat 2's kind on the setup screen: Tab to Public, to the move timer, to Foreplacing; Space unticks it."""


def shortest_mate(state: MateState, limit: int = 10) -> list[str]:
    """The fewest cards (both seats') from ``state`` to a mate in its play; [] if none within ``limit``."""
    play = RULES.current(state).play

    def search(now: MateState, depth: int) -> list[str] | None:
        for action in RULES.legal_actions(now):
            after = RULES.apply(now, action)
            if after.phase == "ended":
                if after.play == play and after.results[-1].winner is not None:
                    return [action]
                continue
            if depth > 1 and (rest := search(after, depth - 1)) is not None:
                return [action, *rest]
        return None

    for depth in range(1, limit + 1):
        if (found := search(state, depth)) is not None:
            return found
    return []


def hand_row(terminal: Terminal, row: int) -> tuple[str, ...]:
    return tuple(terminal.text().splitlines()[row][:FELT].split())


def hands_shown(terminal: Terminal, seat: int, match: Match) -> bool:
    """This screen has its own seat's cards at the bottom and the other's on top, as the save holds them."""
    state = RULES.current(match.state)
    own, other = (tuple(pretty(card) for card in state.available(s)) for s in (seat, 1 - seat))
    return hand_row(terminal, BOTTOM_HAND) == own and hand_row(terminal, TOP_HAND) == other


def cursor_card(terminal: Terminal) -> str:
    """The card the cursor is on in one's own hand (drawn in reverse video)."""
    with terminal._lock:
        row = terminal.screen.buffer[BOTTOM_HAND]
        return "".join(row[x].data for x in range(FELT) if row[x].reverse).strip()


def totals_shown(terminal: Terminal, state: MateState) -> bool:
    row = next((line[FELT:] for line in terminal.text().splitlines() if line[FELT:].strip().startswith("Total")), "")
    return row.split()[1:] == [str(points) for points in state.totals]


class Cursor:
    """Where a screen's card cursor is (MateScreen.cursor): an index into one's own hand."""

    def __init__(self) -> None:
        self.index = 0

    def keys(self, hand: tuple[str, ...], card: str) -> str:
        """The arrows from the cursor to ``card`` (the screen first keeps it inside the hand), shortest way round."""
        self.index = min(self.index, len(hand) - 1)
        goal = hand.index(card)
        right = (goal - self.index) % len(hand)
        self.index = goal
        return RIGHT * right if right <= len(hand) - right else LEFT * (len(hand) - right)


def wait_shown(check, seats: list[Terminal], what: str) -> None:
    try:
        wait_until(check, 20, what, interval=0.1)
    except AssertionError:
        screens = "\n--- next screen ---\n".join(t.text() for t in seats)
        raise AssertionError(f"{what}:\n{screens}") from None


@needs_ssh
def test_two_people_play_a_whole_mate_match_over_real_ssh_each_hand_in_its_place(
    start_server, terminals, tmp_path: Path
) -> None:
    server, seats, match = two_at_a_table(tmp_path, terminals, start_server, "mate", NO_FOREPLACING, attributes=True)
    cursors = [Cursor(), Cursor()]
    assert match.options["foreplacing"] is False
    plan: list[str] = []
    cards = 0
    while not match.over:
        assert cards < 4 * 20, "more cards than a match has"
        interlude = match.pending_interlude()
        if interlude is not None:  # the end of a play: both see it, both go on with c
            number = len(match.state.results)
            wait_shown(
                lambda m=match, n=number: all(
                    f"end of play {n}" in title_bar(t) and totals_shown(t, m.state) for t in seats
                ),
                seats,
                f"the end of play {number} on both screens",
            )
            for terminal in seats:
                terminal.send("c")
            # (The save holds the moves, not the pause's answers: a play without a deal changes it only
            # with its first card.  Both screens say the next play is on.)
            match.acknowledge(interlude)
            if match.to_move() == CHANCE:  # play 3 is dealt anew: the service deals once both went on
                before = len(match.log)
                match = wait_until(
                    lambda t=before: (
                        (m := saved(server.data_dir)) is not None and len(m.log) > t and m.to_move() >= 0 and m
                    ),
                    20,
                    f"the deal of play {number + 1}",
                )
            wait_shown(
                lambda: all("end of play" not in title_bar(t) and "to move" in title_bar(t) for t in seats),
                seats,
                f"play {number + 1} on both screens",
            )
            continue
        seat = match.to_move()
        assert seat >= 0
        wait_shown(
            lambda m=match, s=seat: all(
                f"{m.seats[s].name} to move" in title_bar(t) and hands_shown(t, n, m) for n, t in enumerate(seats)
            ),
            seats,
            f"card {cards + 1}: the mover and both hands on both screens",
        )
        state = RULES.current(match.state)
        if not plan:
            plan = shortest_mate(state) or [match.legal_actions()[0]]
        card = plan.pop(0)
        assert card in match.legal_actions()
        terminal = seats[seat]
        terminal.send(cursors[seat].keys(state.available(seat), card))
        wait_until(lambda t=terminal, c=card: cursor_card(t) == pretty(c), 20, f"the cursor on {card}")
        terminal.send("\r")
        turn = len(match.log)
        try:
            match = wait_until(
                lambda t=turn: (
                    (m := saved(server.data_dir)) is not None
                    and len(m.log) > t
                    and (m.to_move() != CHANCE or m.pending_interlude() is not None)  # (a deal waits for the pause)
                    and m
                ),
                20,
                f"card {cards + 1} ({card}) to reach the service",
            )
        except AssertionError as error:
            raise AssertionError(f"{error}\n{terminal.text()}") from None
        entry = next(e for e in match.log[turn:] if e.seat == seat)
        assert entry.action == card, f"seat {seat + 1} played {entry.action}, not {card}"
        cards += 1

    assert match.to_move() == TERMINAL and len(match.state.results) == PLAYS
    end_dialog_shown(seats, match)
    # Behind the dialog ("b": look at the board) both match sheets hold the final totals.
    for terminal in seats:
        terminal.send("b")
    wait_shown(lambda: all(totals_shown(t, match.state) for t in seats), seats, "the final match sheet")
