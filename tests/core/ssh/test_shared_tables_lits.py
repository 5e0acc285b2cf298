"""Battle of LITS over real SSH: two people play a whole game at one shared table by keys.

One ``python -m gamenight.ssh`` and real OpenSSH clients in pseudo-terminals
(pyte screens, 80x24), the harness of test_shared_tables.py.  Ann opens a
LITS table by keys (the default layout: no option makes a game shorter, and a
game ends by itself when the seat to move cannot place -- at most 20 pieces);
Ben takes the free seat from his Tables list.  Each piece is placed by keys
as a person would: the shape's letter, ``r``/``f`` to turn or mirror the
ghost, the arrows, and Return once the screen says the ghost is legal there;
the pie rule is answered with ``o`` (keep).  The test picks, from the legal
moves of the table's save under the data dir (the service's own record, read
as the truth), the placement that takes the fewest keys from where that
person's ghost is: the whole game is 14 moves and about 70 keys.

After every move both screens show the save's board -- each cell's mark or
emptiness, which cells are covered and by pieces of which shape (the cells'
colours), the last piece underlined -- and both title bars and score lines
name the person to move.  At the end both end dialogs show the service's
winner and scores.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

from gamenight.match import Match
from gamenight_lits.rules import MIRROR, PLACEMENTS, ROTATE, SHAPES, SIZE, LitsState, Placement
from gamenight_lits.texts import cell_name

from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import end_dialog_shown, title_bar, two_at_a_table
from tests.core.ssh.test_shared_tables_seven import saved

MAX_MOVES = 21
"""20 pieces and the pie rule's answer."""
TOP, LEFT = 4, 6
"""Where the board's cell a1 is on an 80x24 screen (row, column); cells are two columns apart."""
ARROWS = {"down": "\x1b[B", "up": "\x1b[A", "right": "\x1b[C", "left": "\x1b[D"}


class Ghost:
    """What one person's screen has selected: the ghost piece's shape, orientation and cell."""

    def __init__(self) -> None:
        self.shape, self.orientation, self.cursor = "L", 0, (4, 4)

    def follow(self, state: LitsState) -> None:
        """The screen moves the selection off a shape that ran out (LitsScreen._keep_shape_available)."""
        index = SHAPES.index(self.shape)
        if state.remaining[index] == 0 and any(state.remaining):
            self.shape = next(SHAPES[(index + k) % 4] for k in range(1, 5) if state.remaining[(index + k) % 4])
            self.orientation = 0

    def keys(self, action: str) -> list[str]:
        """The keys that take this ghost to ``action``'s placement (not the Return that places it)."""
        target = Placement.parse(action)
        assert target is not None
        keys = []
        orientation = self.orientation
        if target.shape != self.shape:
            keys.append(target.shape.lower())
            orientation = 0
        keys += turns(target.shape, orientation, target.orientation)
        rows, cols = target.row - self.cursor[0], target.col - self.cursor[1]
        keys += [ARROWS["down" if rows > 0 else "up"]] * abs(rows)
        keys += [ARROWS["right" if cols > 0 else "left"]] * abs(cols)
        return keys

    def go(self, action: str) -> None:
        target = Placement.parse(action)
        assert target is not None
        self.shape, self.orientation, self.cursor = target.shape, target.orientation, (target.row, target.col)

    def cells(self) -> set[tuple[int, int]]:
        return set(Placement(self.shape, *self.cursor, self.orientation).cells)


def turns(shape: str, start: int, goal: int) -> list[str]:
    """The fewest ``r`` (rotate) and ``f`` (mirror) presses from one orientation to another."""
    paths = {start: []}
    queue = deque([start])
    while queue:
        orientation = queue.popleft()
        if orientation == goal:
            return paths[orientation]
        for key, table in (("r", ROTATE), ("f", MIRROR)):
            following = table[shape][orientation]
            if following not in paths:
                paths[following] = [*paths[orientation], key]
                queue.append(following)
    raise AssertionError(f"no way from orientation {start} to {goal} of {shape}")


def expected_board(state: LitsState) -> list[str]:
    """Each row's glyphs as the board draws them: × ○ for marks, · for an empty cell, blank if covered."""
    covered = {cell for pid, _seat in state.moves for cell in PLACEMENTS[pid].cells}
    rows = []
    for row in range(SIZE):
        glyphs = ""
        for col in range(SIZE):
            bit = 1 << (SIZE * row + col)
            glyphs += (
                "×" if state.x_marks & bit else "○" if state.o_marks & bit else " " if (row, col) in covered else "·"
            )
        rows.append(glyphs)
    return rows


def board_problem(terminal: Terminal, state: LitsState, ghost: set[tuple[int, int]]) -> str | None:
    """Why the screen's board is not the save's (None when it is): glyphs, the cells' colours by the
    shape covering them (one colour per shape, none for an uncovered cell), the last piece underlined.
    ``ghost``: the cells under this screen's ghost piece (its own colour)."""
    with terminal._lock:
        buffer = terminal.screen.buffer
        cells = {(r, c): buffer[TOP + r][LEFT + 2 * c] for r in range(SIZE) for c in range(SIZE)}
        background = buffer[TOP][LEFT - 1].bg  # the space before a1 is never a piece
    glyphs = ["".join(cells[r, c].data for c in range(SIZE)) for r in range(SIZE)]
    if glyphs != expected_board(state):
        return f"glyphs {glyphs} != {expected_board(state)}"
    shape_of = {cell: PLACEMENTS[pid].shape for pid, _seat in state.moves for cell in PLACEMENTS[pid].cells}
    colour_of: dict[str, str] = {}
    for cell, char in cells.items():
        if cell in ghost:
            continue
        shape = shape_of.get(cell)
        if shape is None:
            if char.bg != background:
                return f"{cell_name(*cell)} is coloured ({char.bg}) but uncovered"
        elif colour_of.setdefault(shape, char.bg) != char.bg or char.bg == background:
            return f"{cell_name(*cell)} is not in {shape}'s colour {colour_of[shape]} ({char.bg})"
    if len(set(colour_of.values())) != len(colour_of):
        return f"two shapes share a colour: {colour_of}"
    if state.moves:
        last = PLACEMENTS[state.moves[-1][0]].cells
        if not all(cells[cell].underscore for cell in last):
            return "the last piece is not underlined"
    return None


def turn_shown(terminal: Terminal, match: Match) -> bool:
    """The title bar and the score lines name the person to move."""
    name = match.seats[match.to_move()].name
    marked = any(re.search(rf"▶ {name}\s", line) for line in terminal.text().splitlines())
    return f"{name} to move" in title_bar(terminal) and marked


@needs_ssh
def test_two_people_play_a_whole_lits_game_over_real_ssh_seeing_the_same_board(
    start_server, terminals, tmp_path: Path
) -> None:
    server, seats, match = two_at_a_table(tmp_path, terminals, start_server, "lits", attributes=True)
    ghosts = [Ghost(), Ghost()]
    moves = 0
    while not match.over:
        state: LitsState = match.state
        to_move = match.to_move()
        problems: list[str | None] = [None, None]
        for ghost in ghosts:
            ghost.follow(state)

        def shown(match=match, state=state, to_move=to_move, problems=problems) -> bool:
            for seat, terminal in enumerate(seats):
                # The ghost shows on the screen of the person placing a piece now.
                ghost = ghosts[seat].cells() if seat == to_move and not state.pie_pending else set()
                problems[seat] = board_problem(terminal, state, ghost)
            return not any(problems) and all(turn_shown(t, match) for t in seats)

        wait_shown(shown, seats, problems, f"before move {moves + 1}")
        assert moves < MAX_MOVES, "more moves than a game has"
        terminal = seats[to_move]
        if state.pie_pending:
            terminal.wait_for("Keep ○ (o)", 20)
            terminal.send("o")
            action = "keep"
        else:
            ghost = ghosts[to_move]
            action = min(match.legal_actions(), key=lambda a: len(ghost.keys(a)))
            terminal.send("".join(ghost.keys(action)))
            ghost.go(action)
            terminal.wait_for(f"{ghost.shape} on {cell_name(*ghost.cursor)}: legal.", 20)
            terminal.send("\r")
        turn = len(match.log)
        match = wait_until(
            lambda t=turn: (m := saved(server.data_dir)) is not None and len(m.log) > t and m, 20, f"move {turn + 1}"
        )
        assert match.log[-1].seat == to_move and match.log[-1].action == action
        moves += 1

    end_dialog_shown(seats, match)
    # Behind the dialog ("b": look at the board) both screens show the final board, nobody to move.
    problems: list[str | None] = [None, None]

    def final(problems=problems) -> bool:
        for seat, terminal in enumerate(seats):
            problems[seat] = board_problem(terminal, match.state, set())
        return not any(problems) and not any("to move" in title_bar(t) for t in seats)

    for terminal in seats:
        terminal.send("b")
    wait_shown(final, seats, problems, "the final board")


def wait_shown(check, seats: list[Terminal], problems: list[str | None], what: str) -> None:
    """Wait (bounded) until ``check()``; the failure names each screen's problem and shows the screens."""
    try:
        wait_until(check, 20, what, interval=0.1)
    except AssertionError:
        screens = "\n--- next screen ---\n".join(t.text() for t in seats)
        raise AssertionError(f"{what}: {problems}\n{screens}") from None
