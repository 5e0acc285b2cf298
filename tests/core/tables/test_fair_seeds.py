"""Every game at a shared table draws from a fresh secret seed the service alone holds until the game
is over: one game's save -- all a room ever receives with a seed in it -- says nothing of the next."""

from __future__ import annotations

import asyncio
import tomllib

import tomli_w
from gamenight.saves import load_match
from gamenight.sdk import CHANCE
from gamenight.tables import protocol as p

from .conftest import REGISTRY, connect, play_randomly


async def finished_save(client, count: int) -> dict:
    """The ``count``-th Finished document the client received, parsed."""
    message = await client.wait_for(
        lambda c: ([m for m in c.received if isinstance(m, p.Finished)] + [None] * count)[count - 1], timeout=60
    )
    return tomllib.loads(message.save)


async def play_to_the_end(client) -> None:
    stop = asyncio.Event()
    await play_randomly(client, 1, stop)


async def test_after_play_again_the_next_deal_is_not_computable_from_the_finished_save(service, tmp_path):
    ann = await connect(service, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person"), p.SeatSpec("bot", "greedy")], public=False))
    await play_to_the_end(ann)
    first = await finished_save(ann, 1)
    (table,) = service.tables.values()
    assert first["seed"] == table.match.seed
    await ann.send(p.Again())
    snap = await ann.wait_for(lambda c: c.snapshot if c.snapshot.table.status == "playing" else None, timeout=30)
    await ann.send(p.Move(snap.legal[0], snap.turn))  # the first roll of game 2
    await ann.wait_for(lambda c: c.snapshot.turn >= 2, timeout=30)
    # What a room could compute from the save: game 2 from the save's seed (games_played + 1).
    path = tmp_path / "first.toml"
    path.write_text(tomli_w.dumps(first), encoding="utf-8")
    predicted = load_match(REGISTRY, path)
    predicted.start_game()
    predicted.apply(snap.legal[0])
    predicted.run_chance()
    actual = table.match
    assert actual.games_played == predicted.games_played == 1
    assert actual.log[1].seat == predicted.log[1].seat == CHANCE
    assert actual.log[1] != predicted.log[1]  # the dice the old save foretold are not the dice rolled
    assert actual.seed != first["seed"] and min(actual.seed, first["seed"]).bit_length() > 64  # 128-bit seeds


async def test_a_finished_save_holds_only_finished_games_seeds_and_still_verifies(service, tmp_path):
    ann = await connect(service, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person")], public=False))
    await play_to_the_end(ann)
    first = await finished_save(ann, 1)
    (table,) = service.tables.values()
    await ann.send(p.Again())
    await ann.wait_for(lambda c: c.snapshot.table.status == "playing", timeout=30)
    await play_to_the_end(ann)
    second = await finished_save(ann, 2)
    assert second["seeds"] == [first["seed"]]  # the earlier game's seed, beside its log
    assert second["seed"] == table.match.seed != first["seed"]
    await ann.send(p.Again())
    await ann.wait_for(lambda c: c.snapshot.table.status == "playing", timeout=30)
    third_seed = table.match.seed
    assert third_seed not in (first["seed"], second["seed"])
    assert str(third_seed) not in "".join(m.save for m in ann.received if isinstance(m, p.Finished))
    # The room checks it as any save: both games replay from their own seeds.
    path = tmp_path / "second.toml"
    path.write_text(tomli_w.dumps(second), encoding="utf-8")
    match = load_match(REGISTRY, path)
    assert match.seeds == [first["seed"]] and match.seed == second["seed"] and match.games_played == 2


async def test_nothing_a_room_receives_during_a_game_carries_the_seed(service):
    ann = await connect(service, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person"), p.SeatSpec("bot", "greedy")]))
    await ann.wait_for(lambda c: c.snapshot and c.snapshot.legal, timeout=30)
    (table,) = service.tables.values()
    seed = table.match.seed
    assert seed.bit_length() > 64
    sent = b"".join(p.encode(m) for m in ann.received)
    assert str(seed).encode() not in sent and seed.to_bytes(16, "big") not in sent
    assert not any(isinstance(m, p.Finished) for m in ann.received)


def test_a_fresh_match_seed_has_128_bits():
    from gamenight.match import SEED_BITS, new_seed

    seeds = {new_seed() for _ in range(8)}
    assert SEED_BITS >= 128 and len(seeds) == 8 and max(s.bit_length() for s in seeds) > 120
