"""Watch/leave churn: the Tables list is coalesced (counted, no clock) and a watcher's coming and going
sends no snapshot to the others at the table."""

from __future__ import annotations

from gamenight.tables import protocol as p

from .conftest import connect


def lists(client) -> list[p.TableList]:
    return [m for m in client.received if isinstance(m, p.TableList)]


def snapshots(client) -> list[p.Snapshot]:
    return [m for m in client.received if isinstance(m, p.Snapshot)]


async def settled(client) -> None:
    """Everything ``client`` sent before is handled: "play again" before any game ended is refused."""
    before = len(client.errors)
    await client.send(p.Again())
    await client.wait_for(lambda c: len(c.errors) > before)


async def a_table(service):
    ann = await connect(service, "key:ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person"), p.SeatSpec("person")]))
    return ann, (await ann.wait_for(lambda c: c.snapshot)).table.table


async def test_changes_meanwhile_go_out_in_one_list_the_latest_and_an_unchanged_one_not_again(service):
    scheduled = []
    service._later = lambda delay, callback: scheduled.append(callback)  # the test is the clock
    listers = [await connect(service, f"key:l{n}") for n in range(3)]
    for lister in listers:
        await lister.send(p.ListTables())
        await lister.wait_for(lambda c: lists(c))
    _ann, table_id = await a_table(service)
    churner = await connect(service, "key:churn")
    for _ in range(10):
        await churner.send(p.Watch(table_id))
        await churner.send(p.Leave())
    await settled(churner)
    assert len(scheduled) == 1  # twenty changes, one list to come
    assert [len(lists(lister)) for lister in listers] == [1, 1, 1]
    scheduled.pop()()
    for lister in listers:
        await lister.wait_for(lambda c: len(lists(c)) == 2)
        [info] = lists(lister)[-1].tables
        assert info.table == table_id and info.watchers == 0  # the final state
    await churner.send(p.Watch(table_id))
    await churner.wait_for(lambda c: c.snapshot)
    scheduled.pop()()
    for lister in listers:
        await lister.wait_for(lambda c: len(lists(c)) == 3)
        assert lists(lister)[-1].tables[0].watchers == 1
    service._list_changed()  # nothing changed since: nothing is sent again
    scheduled.pop()()
    await settled(listers[0])
    assert [len(lists(lister)) for lister in listers] == [3, 3, 3]


async def test_a_watchers_coming_and_going_sends_the_other_watchers_no_snapshot(service):
    ann, table_id = await a_table(service)
    sitters = [await connect(service, f"key:w{n}") for n in range(5)]
    for sitter in sitters:
        await sitter.send(p.Watch(table_id))
        await sitter.wait_for(lambda c: c.snapshot)
    await settled(ann)
    counts = [len(snapshots(c)) for c in sitters]
    seen_by_ann = len(snapshots(ann))
    churner = await connect(service, "key:churn")
    for _ in range(10):
        await churner.send(p.Watch(table_id))
        await churner.send(p.Leave())
    await settled(churner)
    for client in [ann, *sitters]:
        await settled(client)
    assert [len(snapshots(c)) for c in sitters] == counts  # was 20 more each: O(watchers²) in all
    assert len(snapshots(churner)) == 10  # each time it came, its own
    assert len(snapshots(ann)) == seen_by_ann + 20  # the player sees the count of watchers change
    assert ann.snapshot.table.watchers == 5


async def test_no_list_while_at_a_table_and_the_latest_one_after_leaving_it(service):
    scheduled = []
    service._later = lambda delay, callback: scheduled.append(callback)
    ben = await connect(service, "key:ben")
    await ben.send(p.ListTables())
    await ben.wait_for(lambda c: lists(c))
    _ann, table_id = await a_table(service)
    await ben.send(p.Watch(table_id))
    await ben.wait_for(lambda c: c.snapshot)
    scheduled.pop()()
    await settled(ben)
    assert len(lists(ben)) == 1  # it watches a table: its room's list is out of sight
    await ben.send(p.Leave())
    await settled(ben)
    scheduled.pop()()
    await ben.wait_for(lambda c: len(lists(c)) == 2)
    assert [t.table for t in lists(ben)[-1].tables] == [table_id]
