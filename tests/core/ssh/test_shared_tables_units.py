"""What the real-SSH shared-table test found, pinned down in-process.

``RemoteTable.view()`` kept the view it had rebuilt keyed by ``id(snapshot)``.  A
freed snapshot's id is soon a new snapshot's, so a room drew a stale view: over
real SSH the host's Mille board stayed blank (the view of the waiting table)
after the guest sat down and the first hand was dealt.
"""

from __future__ import annotations

from types import SimpleNamespace

import msgspec
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.tables import protocol as p
from gamenight.tables.client import RemoteTable

REGISTRY = load_registry()


def snapshot(match: Match, seat: int) -> p.Snapshot:
    info = p.TableInfo("t1", "mille", {}, [], "playing", match.to_move(), 0, 0.0, True)
    view = msgspec.to_builtins(match.rules.view(match.state, seat))
    return p.Snapshot(info, seat, "", view, [], len(match.log), [], 0, None, [], None, None, [], 0.0)


def test_a_remote_table_draws_each_new_snapshot_never_a_stale_view_of_a_freed_one() -> None:
    match = Match(REGISTRY.game("mille"), [SeatConfig("ann"), SeatConfig("ben")], {}, seed=16)
    client = SimpleNamespace(snapshot=snapshot(match, 0))
    table = RemoteTable(client, REGISTRY.game("mille"))
    assert table.view(0) == match.view(0)  # the waiting table, before the deal
    for step in range(40):
        if match.to_move() < 0:
            match.run_chance()
        else:
            match.apply(match.legal_actions()[0])
        # A new snapshot replaces the old one (which is freed); the screen draws only some of them,
        # as a room does when several arrive between two frames.
        client.snapshot = snapshot(match, 0)
        if step % 2:
            assert table.view(0) == match.view(0), f"a stale view after move {len(match.log)}"


def test_a_remote_tables_events_are_the_moves_own_or_none() -> None:
    """Events are matched to a log entry by turn *and* sentence: a new game's turn 1 is not the old one's."""
    from gamenight.sdk import PublicEvent

    match = Match(REGISTRY.game("mille"), [SeatConfig("ann"), SeatConfig("ben")], {}, seed=16)
    play = PublicEvent("play", {"seat": 0, "card": 13})
    client = SimpleNamespace(snapshot=snapshot(match, 0), log=[(0, "ann played Go.")], public_events={})
    table = RemoteTable(client, REGISTRY.game("mille"))
    assert table.last_events() == []  # a move from before this room came: its sentence only
    client.public_events[1] = ("ann played Go.", [play])
    assert table.last_events() == [play] and table.events_of(1, "ann played Go.") == [play]
    assert table.events_of(1, "ben drew a card.") == []  # another game's first move
    assert table.events_of(2, "ann played Go.") == []


def test_away_timeout_is_a_server_option_and_cannot_be_negative(tmp_path) -> None:
    from gamenight.ssh.settings import parser, settings_from_args

    command = parser()
    args = command.parse_args(["--guest", "--data-dir", str(tmp_path), "--away-timeout", "3"])
    assert settings_from_args(command, args).away_timeout == 3.0
    assert settings_from_args(command, command.parse_args(["--guest"])).away_timeout == 300.0
    bad = command.parse_args(["--guest", "--away-timeout", "-1"])
    try:
        settings_from_args(command, bad)
    except SystemExit as stop:
        assert stop.code == 2
    else:
        raise AssertionError("a negative --away-timeout was taken")


def test_control_strings_a_client_types_are_dropped_whole_keys_are_kept() -> None:
    from gamenight.ssh.terminal_input import LONGEST, TerminalStrings

    strings = TerminalStrings()
    assert strings.feed("plain keys, é, ✓") == "plain keys, é, ✓"
    assert strings.feed("\x1b[A\x1b[1;5C\x1b") == "\x1b[A\x1b[1;5C\x1b"  # arrows, Ctrl+Right, Escape
    assert strings.feed("a\x1b]0;title\x07b") == "ab"  # OSC ended by BEL
    assert strings.feed("\x1bPq#0;2dcs\x1b\\c") == "c"  # DCS ended by ST
    assert strings.feed("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\d") == "d"  # APC, PM, SOS
    assert strings.feed("\x1b]52;c;cGFzdGU=") == ""  # a string over two packets ...
    assert strings.feed("more\x07e") == "e"  # ... is dropped whole
    assert strings.feed("\x9d0;c1\x9cf\x9b31m\x85") == "f31m"  # 8-bit forms; C1 controls dropped
    assert strings.feed("\x1b]cut\x1b[Bg") == "\x1b[Bg"  # an ESC that is no ST cuts the string off
    assert strings.feed("\x1b]one\x1b]two\x07k") == "k"  # ... and may start the next string
    assert strings.feed("\x1b]alt+]\rh") == "\rh"  # Alt+] then typing: Return still arrives
    assert strings.feed("\x1b]" + "x" * (LONGEST + 1) + "i") == "i"  # never held without end
    assert strings.feed("j") == "j"


def test_the_real_ssh_tests_load_a_tables_save_again_only_when_it_changed(tmp_path, monkeypatch) -> None:
    """``saved_match`` (polled ten times a second by the real-SSH table tests) replays the save only
    when the file was written again, and then shows the new position."""
    import os

    from gamenight.saves import save_match

    from tests.core.ssh import test_shared_tables as harness

    loads = []
    real_load = harness.load_match
    monkeypatch.setattr(harness, "load_match", lambda *args: loads.append(args) or real_load(*args))
    folder = tmp_path / "tables"
    folder.mkdir()
    match = Match(REGISTRY.game("mille"), [SeatConfig("ann"), SeatConfig("ben")], {}, seed=16)
    assert harness.saved_match(tmp_path) is None  # nothing saved yet
    match.run_chance()
    path = folder / "t1.save.toml"
    save_match(match, tmp_path / "new.toml")
    os.replace(tmp_path / "new.toml", path)  # as the service writes: a new file each time
    first = [harness.saved_match(tmp_path) for _ in range(5)]
    assert len(loads) == 1 and all(m is first[0] for m in first)
    match.apply(match.legal_actions()[0])
    save_match(match, tmp_path / "new.toml")
    os.replace(tmp_path / "new.toml", path)
    again = harness.saved_match(tmp_path)
    assert len(loads) == 2 and len(again.log) == len(first[0].log) + 1
