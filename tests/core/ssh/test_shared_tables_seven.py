"""SEVEN over real SSH: three people and two bots at one table, a watcher who comes and goes.

One ``python -m gamenight.ssh`` and real OpenSSH clients in pseudo-terminals
(pyte screens, 80x24), the harness of test_shared_tables.py.  Ann opens a
SEVEN table by keys -- seats 2 and 3 open for a person, seats 4 and 5 the
Random bot (it answers at once, so a deal fits the time budget) -- and Ben and
Cat take the free seats from their Tables lists.  The people play by keys:
Return plays the card the hand menu offers (it starts on a playable one),
``s`` calls spades after a Queen, ``d`` draws.  The test knows every hand from
the service's own save of the table under the data dir.

At every screen -- polled all the time, and after every move once all screens
show the save's position -- each person's screen shows all of its own hand and
no card any other seat holds that has not been played face up (SEVEN has one
deck: each card is in one place).  Dan watches mid-deal: never a card of any
hand; he leaves, comes back, and sees the end of the deal: no hand, every
seat's final score.  One whole deal is played (a second would double the test's
time on this shared two-core machine; the next deal's start is checked).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from gamenight.match import Match
from gamenight.sdk import CHANCE
from gamenight_seven.cards import card_label

from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import TABLES, People, game_position, title_bar
from tests.core.ssh.test_shared_tables import saved_match as saved

HOME = "\x1b[H"
DOWN = "\x1b[B"
CARD = re.compile(r"(10|[A2-9JQK])([♠♥♣♦])")
CARD_OF_LABEL = {card_label(card): card for card in range(52)}
MAX_MOVES = 400
BOT = "Random"


def cards_on(terminal: Terminal) -> set[int]:
    """Every card whose label is on the screen."""
    return {CARD_OF_LABEL[rank + suit] for rank, suit in CARD.findall(terminal.text())}


def public_cards(match: Match) -> set[int]:
    """Cards that were face up on the table in this deal (played, turned up or buried)."""
    state = match.state
    shown = set(state.discards)
    shown |= {event.card for event in state.events if event.kind in ("play", "up", "bury") and event.card >= 0}
    return shown


def secrets_of(match: Match, seat: int | None) -> set[int]:
    """The cards ``seat`` must never see: the other seats' hands, less what was played face up."""
    hands = match.state.hands
    hidden = {card for other, hand in enumerate(hands) if other != seat for card in hand}
    return hidden - public_cards(match) - (set(hands[seat]) if seat is not None else set())


class SevenTable:
    """The test's people at one SEVEN table and the service's truth about it."""

    def __init__(self, data_dir: Path, people: dict[int, Terminal]) -> None:
        self.data_dir = data_dir
        self.people = people
        """Seat -> terminal of each seated person."""
        self.watchers: list[Terminal] = []
        self.checked = 0

    def leaks(self) -> list[str]:
        """What any screen shows of a hand it must not see (rechecked against a newer save, since a
        screen may show a move a moment before the save is written)."""
        found: list[str] = []
        for _attempt in range(50):  # the save is written off the service's loop: up to 10 s behind at load ~15
            match = saved(self.data_dir)
            if match is None or match.over:  # (at the end of a deal every hand is laid open)
                return []
            found = []
            for seat, terminal in [*self.people.items(), *((None, w) for w in self.watchers)]:
                seen = cards_on(terminal) & secrets_of(match, seat)
                if seen:
                    who = "a watcher" if seat is None else f"seat {seat + 1}"
                    labels = sorted(card_label(c) for c in seen)
                    found.append(f"{who} sees {labels} of another hand:\n{terminal.text()}")
            if not found:
                return []
            time.sleep(0.2)
        return found

    def shows(self, match: Match) -> bool:
        """Every screen shows the save's position: whose turn, and each person's whole hand."""
        seat = match.to_move()
        mover = match.seats[seat].name if seat >= 0 else None
        for number, terminal in self.people.items():
            hand = match.state.hands[number]
            count = "1 card" if len(hand) == 1 else f"{len(hand)} cards"
            text = terminal.text()
            if f"{match.seats[number].name} · {count}" not in text:
                return False
            if not set(hand) <= cards_on(terminal):
                return False
            if mover is not None and f"{mover} to move" not in title_bar(terminal):
                return False
        for watcher in self.watchers:
            if mover is not None and f"{mover} to move" not in title_bar(watcher):
                return False
        return True

    def check(self, what: str, timeout: float = 20) -> Match:
        """Wait (bounded) for a position where a person moves (or the end) that every screen shows;
        no screen may show another's card at any time meanwhile."""
        self.checked += 1
        last: list[Match | None] = [None]

        def ready() -> Match | None:
            leaks = self.leaks()
            assert not leaks, "\n".join(leaks)
            match = saved(self.data_dir)
            last[0] = match
            if match is None:
                return None
            if match.over:
                return match
            seat = match.to_move()
            if seat == CHANCE or match.seats[seat].bot is not None:
                return None
            return match if self.shows(match) else None

        try:
            return wait_until(ready, timeout, what, interval=0.1)  # type: ignore[return-value]
        except AssertionError as error:
            if "timed out" not in str(error):
                raise
            match = last[0]
            hands = [[card_label(c) for c in h] for h in match.state.hands] if match else None
            screens = "\n--- next screen ---\n".join(t.text() for t in [*self.people.values(), *self.watchers])
            raise AssertionError(f"{what}: the screens never showed the save's hands {hands}:\n{screens}") from None

    def move(self) -> str | None:
        """The person to move plays by keys (a card if one is playable, else a draw); None at the end."""
        match = self.check("the screens before a move")
        if match.over:
            return None
        seat = match.to_move()
        terminal = self.people[seat]
        turn = len(match.log)
        legal = match.legal_actions()
        plays = [action for action in legal if action not in ("draw", "pass")]
        terminal.send("\r" if plays else "d")
        queen = any(":" in action for action in plays)

        def answered() -> bool:
            if queen and "call a suit" in terminal.text():
                terminal.send("s")
            now = saved(self.data_dir)
            return now is not None and len(now.log) > turn

        wait_until(answered, 20, f"seat {seat + 1}'s move to reach the service", interval=0.1)
        after = saved(self.data_dir)
        assert after is not None and after.log[turn].seat == seat
        action = after.log[turn].action
        assert action in legal
        return action


def open_seven(ann: Terminal) -> None:
    """Ann: Tables, n, SEVEN, seats 2-3 open for a person, seats 4-5 the Random bot, Ctrl+R."""
    ann.send("t")
    ann.wait_for("shared tables", 20)
    ann.send("n")
    ann.wait_for("which game?", 20)
    ann.send(DOWN * game_position("seven") + "\r")
    ann.wait_for("New shared table: SEVEN", 20)
    wait_until(lambda: "Seat 5" in ann.text(), 20, "the setup screen's seats")

    def seat_line(number: int) -> str:
        return next((line for line in ann.text().splitlines() if f"Seat {number}" in line), "")

    def menu_open() -> bool:
        return "Bot: Greedy" in ann.text()  # the middle bot: only an open menu shows it

    for seat, downs, shown in ((2, 0, None), (3, 0, None), (4, 1, BOT), (5, 1, BOT)):
        ann.send("\t\r")  # on to the next seat's kind; open its menu
        wait_until(menu_open, 20, f"seat {seat}'s menu\n{ann.text()}")
        ann.send(HOME + DOWN * downs + "\r")

        def chosen(seat: int = seat, shown: str | None = shown) -> bool:
            line = seat_line(seat)
            return not menu_open() and (shown in line if shown else "Bot:" not in line)

        wait_until(chosen, 20, f"seat {seat}'s kind\n{ann.text()}")
    ann.send("\x12")
    ann.wait_for("waiting for 2 more", 30)


def take_seat(terminal: Terminal) -> None:
    terminal.send("t")
    terminal.wait_for("free", 30)
    terminal.send("\r")


@needs_ssh
def test_three_people_and_two_bots_play_a_seven_deal_over_real_ssh_seeing_only_their_own_hands(
    start_server, terminals, tmp_path: Path
) -> None:
    people = People(tmp_path, terminals, ("ann", "ben", "cat", "dan"))
    server = people.start(start_server)
    ann, ben, cat = (people.connect(name) for name in ("ann", "ben", "cat"))
    open_seven(ann)
    take_seat(ben)
    ben.wait_for("waiting for 1 more", 30)
    take_seat(cat)
    table = SevenTable(server.data_dir, {0: ann, 1: ben, 2: cat})
    moves: list[str] = []
    for _ in range(4):
        action = table.move()
        assert action is not None
        moves.append(action)

    # Dan watches mid-deal: the table, never a card of anyone's hand.
    dan = people.connect("dan")
    dan.send("t")
    dan.wait_for("playing", 30)
    dan.send("w")
    dan.wait_for("watching", 30)
    table.watchers.append(dan)
    for _ in range(3):
        moves.append(table.move())  # type: ignore[arg-type]
    # He leaves (Escape, "yes"): the Tables list, from which he watches again.
    table.watchers.remove(dan)
    dan.send("\x1b")
    dan.wait_for("watch again", 20)
    dan.send("y")
    dan.wait_for(TABLES, 20)  # back on the Tables list, the table still on it
    dan.wait_for("playing", 30)
    dan.send("w")
    dan.wait_for("watching", 30)
    table.watchers.append(dan)

    while len(moves) < MAX_MOVES and (action := table.move()) is not None:
        moves.append(action)
    final = saved(server.data_dir)
    assert final is not None and final.over, f"no end of the deal in {MAX_MOVES} moves"
    outcome = final.outcome()
    assert any(action not in ("draw", "pass") for action in moves), "nobody played a card by keys"
    # Everyone sees the end of the deal, its scores and the running totals with it (the watcher too).
    for terminal in (ann, ben, cat, dan):
        terminal.wait_for("End of the deal", 30)
        wait_until(lambda t=terminal: all(f"{s:g}" in score_row(t) for s in outcome.scores), 10, "the scores")
        wait_until(lambda t=terminal: all(f"{s:g}" in total_row(t) for s in final.totals), 10, "the totals")
        assert f"Winner: {final.seats[outcome.winners[0]].name}" in terminal.text()
    for terminal in (ann, ben, cat):
        assert "Play again (a)" in terminal.text()
    # The watcher's end view: no "Play again" (only players can), no hand; behind the dialog every
    # seat's panel with the cards it was left holding (laid open at the end of the deal).
    assert "Play again" not in dan.text() and "Keep watching (k)" in dan.text()
    dan.send("k")
    wait_gone(dan, "End of the deal", 60)  # (a room starved of CPU took over 25 s for a key at load ~15)
    board = dan.text()
    for seat, hand in enumerate(final.state.hands):
        assert final.seats[seat].name in board, board
        assert set(hand) <= cards_on(dan), f"seat {seat + 1}'s last cards are not on the watcher's board:\n{board}"
    assert not re.search(r"\S+ · \d+ cards?", board), f"the watcher has a hand menu:\n{board}"
    # The three people play again; the watcher sees the next deal begin.
    for terminal in (ann, ben, cat):
        terminal.send("a")
    wait_until(
        lambda: (m := saved(server.data_dir)) is not None and not m.over and m.games_played == 1 and m.log,
        30,
        "the second deal",
    )
    table.check("the second deal on every screen", 30)
    wait_until(lambda: "to move" in title_bar(dan) and "End of the deal" not in dan.text(), 20, "deal 2 for Dan")
    for _ in range(3):
        assert table.move() is not None


def wait_gone(terminal: Terminal, text: str, timeout: float) -> None:
    """Wait (bounded) until ``text`` is off the screen; the failure shows the screen."""
    try:
        wait_until(lambda: text not in terminal.text(), timeout, f"{text!r} to go")
    except AssertionError as error:
        raise AssertionError(f"{error}\n--- screen ---\n{terminal.text()}") from None


def score_row(terminal: Terminal) -> str:
    return next((line for line in terminal.text().splitlines() if "Score" in line), "")


def total_row(terminal: Terminal) -> str:
    return next((line for line in terminal.text().splitlines() if "Running total" in line), "")
