"""A server restart in the middle of a shared game, over real SSH.

Ann and Ben (real OpenSSH clients, pyte screens, 80x24) play a Mille hand by
keys on ``python -m gamenight.ssh``.  The server process is stopped mid-hand
(SIGTERM, as systemd stops it; then, the second time, SIGKILL: no chance to
save anything more) and started again on the same data dir.  Each time the
table comes back with every move made before, both players connect again
with their keys, land at their seats with their own hands, and play on.
"""

from __future__ import annotations

import signal
from pathlib import Path

from tests.core.ssh.conftest import needs_ssh, wait_until
from tests.core.ssh.processes import process_group
from tests.core.ssh.test_shared_tables import People, Table, open_and_join, saved_match, title_bar


@needs_ssh
def test_a_server_restart_mid_game_loses_nothing_and_both_players_play_on(
    start_server, terminals, tmp_path: Path
) -> None:
    people = People(tmp_path, terminals, ("ann", "ben"))
    data_dir = tmp_path / "data"
    server = people.start(start_server, data_dir=data_dir)
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben)
    table = Table(data_dir, [ann, ben])
    for _ in range(6):
        table.move()

    for how in (signal.SIGTERM, signal.SIGKILL):
        before = saved_match(data_dir)
        assert before is not None
        moves = [entry.action for entry in before.log]
        hands = [list(seat.hand) for seat in before.state.seats]
        if how == signal.SIGTERM:
            assert server.stop() == 0
        else:
            server.process.kill()
            server.process.wait(15)
            # A killed server cannot hang up its rooms: they see their terminal go and end.
            for event in server.find(lambda e: e["event"] == "session_start"):
                wait_until(lambda pid=event["pid"]: not process_group(pid), 30, "a killed server's rooms to end")
        for terminal in (ann, ben):
            terminal.wait_exit(30)  # the connection went with the server

        server = people.start(start_server, data_dir=data_dir)
        server.wait_event(lambda e: e["event"] == "listening", 20)
        after = saved_match(data_dir)
        assert after is not None and [entry.action for entry in after.log] == moves, f"lost moves ({how.name})"
        assert [list(seat.hand) for seat in after.state.seats] == hands

        # Both connect again: straight back at their seats (no lobby step), their own hands shown.
        ann, ben = people.client("ann"), people.client("ben")
        table.seats = [ann, ben]
        table.check(f"both back at their seats after the restart ({how.name})", 40)
        wait_until(lambda: all("away" not in title_bar(t) for t in table.seats), 20, "nobody away")
        played = [table.move() for _ in range(4)]
        now = saved_match(data_dir)
        assert now is not None
        assert [entry.action for entry in now.log][: len(moves)] == moves
        assert len(now.log) > len(moves) or "end of hand" in played
