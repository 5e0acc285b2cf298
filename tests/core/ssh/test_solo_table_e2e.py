"""Over real SSH: a hosted room's Yatzy against a bot is a solo table at the server's table service.

One ``python -m gamenight.ssh`` and one real OpenSSH client (pyte screen, 80x24).  Ann picks Yatzy
in her lobby and starts it with Ctrl+R (seat 2 the strongest bot, as the setup offers): the table
appears under the data dir, held by her identity, with a 128-bit seed her room never sees; Space
rolls there (the save under the data dir is the truth).  Ctrl+S says the game is kept on the
server; she leaves (Esc, y) and the lobby's ``r`` lists it first; Return brings back the same dice.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from gamenight.i18n import translator
from gamenight.sdk import CHANCE

from tests.core.ssh.conftest import needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, REGISTRY, People, saved_match


def lobby_position(game_id: str) -> int:
    """The game's row in the lobby (installed games, by title)."""
    games = sorted(REGISTRY.games.values(), key=lambda game: translator(game.id)(game.title).lower())
    return [game.id for game in games].index(game_id)


def table_file(data_dir: Path) -> dict:
    (path,) = (data_dir / "tables").glob("*.table.toml")
    return tomllib.loads(path.read_text(encoding="utf-8"))


@needs_ssh
def test_yatzy_against_a_bot_runs_at_the_server_and_resume_returns_to_it(tmp_path, terminals, start_server):
    people = People(tmp_path, terminals, ("ann",))
    server = people.start(start_server)
    ann = people.connect("ann")
    yatzy = translator("yatzy")(REGISTRY.games["yatzy"].title)
    # The lobby is drawn before its list of games arrives (a worker thread): keys sent before it are
    # lost, and Return then opened the first game (Battle of LITS) under the full suite's load.
    ann.wait_for(yatzy, 30)
    ann.send("\x1b[B" * lobby_position("yatzy") + "\r")
    wait_until(lambda: "Seat 2" in ann.text() and f"New game: {yatzy}" in ann.text(), 30, "Yatzy's setup")
    ann.send("\x12")  # Ctrl+R: seat 1 Ann, seat 2 the strongest bot

    def opened():
        match = saved_match(server.data_dir)
        if not list((server.data_dir / "tables").glob("*.table.toml")):
            return None  # the table's two files are written one after the other: wait for both
        return match if match is not None and match.seats[1].bot is not None and match.to_move() == 0 else None

    match = wait_until(opened, 40, "the solo table at the service")
    document = table_file(server.data_dir)
    assert document["solo"] is True and document["public"] is False and document["seats"][0]["owner"]
    assert match.seed.bit_length() > 64
    try:
        wait_until(lambda: "Roll" in ann.text(), 30, "the table's keys")
    except AssertionError:
        print(ann.text())
        raise
    ann.send(" ")  # roll

    def rolled():
        match = saved_match(server.data_dir)
        return match if match is not None and any(entry.seat == CHANCE for entry in match.log) else None

    dice = next(entry.action for entry in wait_until(rolled, 30, "the server's roll").log if entry.seat == CHANCE)
    ann.send("\x13")  # Ctrl+S
    ann.wait_for("kept on the server", 20)
    ann.send("\x1b")
    ann.wait_for("Leave this game?", 20)
    ann.send("y")
    ann.wait_for(LOBBY, 30)
    ann.send("r")
    ann.wait_for("On the server: Yatzy", 30)
    ann.send("\r")
    wait_until(lambda: "Roll" in ann.text() and LOBBY not in ann.text(), 30, "back at the table")
    again = saved_match(server.data_dir)
    assert next(entry.action for entry in again.log if entry.seat == CHANCE) == dice
    assert again.seats[0].bot is None  # the seat waited for her
