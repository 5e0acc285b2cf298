"""Sessions per identity and per address counted across hosts in Redis (``--tables-url``).

Two "hosts" are two :class:`SharedLimits` (two clients, two host ids) on one real redis-server; a
host killed with SIGKILL is a subprocess.  Heartbeats use a short ttl where a test lets one lapse;
waits poll, no figure is a time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
from gamenight.ssh.auth import Connection, Hub
from gamenight.ssh.settings import Settings
from gamenight.ssh.shared_limits import SharedLimits, address_field, user_field
from gamenight.tables.redis_store import StoreUnavailable

from tests.core.ssh.conftest import FAKE_COMMAND, make_key, needs_ssh, ssh_argv
from tests.core.ssh.test_identity import run_ssh
from tests.core.tables import conftest as tables_fixtures

redis_server = tables_fixtures.redis_server  # a redis-server of the test's own

ANN = user_field("k-ann")
HOME = address_field("192.0.2.7")


@pytest.fixture
async def two_hosts(redis_server):
    one = SharedLimits.connect(redis_server.url, host_id="one", ttl=0.6)
    two = SharedLimits.connect(redis_server.url, host_id="two", ttl=0.6)
    yield one, two
    for host in (one, two):
        if host._beating is not None:
            host._beating.cancel()
        await host.client.aclose()


async def test_a_persons_sessions_on_every_host_count_together(two_hosts) -> None:
    one, two = two_hosts
    assert await one.admit({ANN: 3, HOME: 10}) is None
    assert await two.admit({ANN: 3, HOME: 10}) is None
    assert await one.admit({ANN: 3, HOME: 10}) is None
    assert await two.admit({ANN: 3, HOME: 10}) == (ANN, 3)  # the fourth, wherever it connects
    assert await one.admit({user_field("k-ben"): 3, HOME: 3}) == (HOME, 3)  # another person, the same address
    await one.release([ANN, HOME])
    assert await two.admit({ANN: 3, HOME: 10}) is None  # one ended: room for one more


async def test_two_hosts_admitting_at_once_never_pass_the_limit(redis_server) -> None:
    # A heartbeat during the admits writes the sessions being admitted too (by design: a count too
    # many until the next beat, never one too few), which would blur what this test counts: the
    # hosts here beat every 10 s, not every 0.2 s (a run at load 11 once met a beat mid-round).
    one = SharedLimits.connect(redis_server.url, host_id="one", ttl=30)
    two = SharedLimits.connect(redis_server.url, host_id="two", ttl=30)
    try:
        await admit_at_once(one, two)
    finally:
        for host in (one, two):
            await host.close()


async def admit_at_once(one: SharedLimits, two: SharedLimits) -> None:
    for round_ in range(5):
        field = user_field(f"k-race{round_}")
        answers = await asyncio.gather(*(host.admit({field: 4}) for host in (one, two) * 6))
        assert sum(answer is None for answer in answers) == 4, answers
        counts = [int(await host.client.hget(host.own_key, field) or 0) for host in (one, two)]
        assert sum(counts) == 4 and one.mine[field] + two.mine[field] == 4


async def test_a_silent_hosts_counts_lapse(two_hosts) -> None:
    one, two = two_hosts
    for _ in range(3):
        assert await two.admit({ANN: 3}) is None
    assert await one.admit({ANN: 3}) == (ANN, 3)
    two._beating.cancel()  # host two stops beating (paused, cut off): its sessions stop counting
    deadline = time.monotonic() + 30
    while await one.admit({ANN: 3}) is not None:
        assert time.monotonic() < deadline, "host two's counts never lapsed"
        await asyncio.sleep(0.05)
    assert await one.client.smembers(one.hosts_key) == {b"one"}  # and it was forgotten


async def test_a_heartbeat_writes_back_what_redis_lost(two_hosts, redis_server) -> None:
    one, _two = two_hosts
    for _ in range(2):
        assert await one.admit({ANN: 2}) is None
    redis_server.restart()  # no persistence: every count is gone
    await one.beat()
    assert await one.admit({ANN: 2}) == (ANN, 2)  # this host's own sessions are counted again


KILLED_HOST = """
import asyncio, sys
from gamenight.ssh.shared_limits import SharedLimits, user_field

async def main():
    host = SharedLimits.connect(sys.argv[1], host_id="doomed", ttl=0.6)
    for _ in range(3):
        assert await host.admit({user_field("k-ann"): 3}) is None
    print("counted", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


async def test_a_host_killed_with_sigkill_leaks_no_count(two_hosts, redis_server) -> None:
    one, _two = two_hosts
    doomed = subprocess.Popen(
        [sys.executable, "-c", KILLED_HOST, redis_server.url], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    try:
        assert doomed.stdout is not None and doomed.stdout.readline().strip() == "counted"
        assert await one.admit({ANN: 3}) == (ANN, 3)
    finally:
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(10)
    deadline = time.monotonic() + 30
    while await one.admit({ANN: 3}) is not None:
        assert time.monotonic() < deadline, "the killed host's counts never lapsed"
        await asyncio.sleep(0.05)


async def test_an_unreachable_redis_is_store_unavailable_and_counts_nothing(tmp_path: Path) -> None:
    host = SharedLimits.connect(f"unix://{tmp_path}/none.sock", timeout=0.5)
    with pytest.raises(StoreUnavailable, match="is not reachable"):
        await host.admit({ANN: 3})
    assert not host.mine
    await host.close()


# -- the logins: two hubs (two hosts) on one Redis --------------------------------------------------

KEY = asyncssh.generate_private_key("ssh-ed25519")


class FakeSSH:
    def __init__(self) -> None:
        self.reason: str | None = None

    def disconnect(self, code: int, reason: str) -> None:
        self.reason = reason

    def send_auth_banner(self, text: str) -> None:
        pass


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict]] = []

    def __call__(self, event: str, **fields: object) -> None:
        self.lines.append((event, fields))


def a_hub(tmp_path: Path, url: str, name: str, per_user: int = 2) -> Hub:
    keys = tmp_path / "authorized_keys"
    keys.write_text(KEY.export_public_key().decode())
    settings = Settings(
        "127.0.0.1", 0, tmp_path / name, keys, False, max_per_user=per_user, max_per_address=10, tables_url=url
    )
    return Hub(settings, Log())


async def login(hub: Hub, peer: str = "192.0.2.7") -> Connection:
    connection = Connection(hub)
    connection.conn = FakeSSH()  # type: ignore[assignment]
    connection.peer = peer
    hub.connections.add(connection)
    hub.pending.add(connection)
    await connection.begin_auth("ann")
    assert await connection.validate_public_key("ann", KEY.convert_to_public())
    await connection.auth_completed()
    return connection


async def test_a_key_users_sessions_are_capped_across_hosts_and_freed_when_they_end(
    redis_server, tmp_path: Path
) -> None:
    one, two = a_hub(tmp_path, redis_server.url, "one"), a_hub(tmp_path, redis_server.url, "two")
    first, second = await login(one), await login(two)
    assert first.user_id is not None and second.user_id == first.user_id
    third = await login(two)  # two on host two would be fine there alone; three in all are not
    assert third.user_id is None and third.conn.reason == (  # type: ignore[union-attr]
        "You are connected too many times already; close another session first."
    )
    assert [f for e, f in two.log.lines if e == "limit"][-1]["hosts"] == "all"
    first.connection_lost(None)  # one session ends on host one
    await asyncio.gather(*one.endings)
    assert (await login(two)).user_id is not None
    await one.aclose()
    await two.aclose()


async def test_redis_unreachable_is_said_once_and_the_hosts_own_limits_still_hold(tmp_path: Path) -> None:
    hub = a_hub(tmp_path, f"unix://{tmp_path}/none.sock", "one", per_user=1)
    assert hub.shared is not None
    first = await login(hub)
    assert first.user_id is not None  # admitted on this host's own counts
    second = await login(hub)
    assert second.user_id is None  # never unlimited: this host's --max-per-user holds
    said = [fields for event, fields in hub.log.lines if event == "error" and fields["what"] == "shared_limits"]
    assert len(said) == 1 and "counting this host's sessions only" in said[0]["detail"]
    await hub.aclose()


@needs_ssh
def test_two_servers_on_one_redis_hold_one_limit_per_person(start_server, terminals, redis_server, tmp_path) -> None:
    key = make_key(tmp_path, "ann")
    keys = tmp_path / "authorized_keys"
    keys.write_text(Path(f"{key}.pub").read_text())
    args = ["--authorized-keys", str(keys), "--max-per-user", "1", "--tables-url", redis_server.url]
    shared = tmp_path / "shared"  # one data dir for both hosts, as "Several machines" asks
    one = start_server(*args, "--command", FAKE_COMMAND, data_dir=shared)
    two = start_server(*args, "--command", FAKE_COMMAND, data_dir=shared)
    ann = terminals(ssh_argv(one.port, "ann", key, "-tt"))
    ann.wait_for("saves:[]")
    mark = two.mark()
    result = run_ssh(ssh_argv(two.port, "ann", key, "-tt"))  # the same person through the other host
    assert "You are connected too many times already" in result.stderr, result.stderr
    assert not two.of_kind("session_start", since=mark)
    assert two.expect("limit", since=mark, kind="user")[0]["hosts"] == "all"


async def test_new_connections_from_one_address_are_rated_on_every_host_together(two_hosts) -> None:
    one, two = two_hosts
    allowed = [await host.allow("connect", "192.0.2.7", 3, 60.0) for host in (one, two, one, two)]
    assert allowed == [True, True, True, False]  # the fourth in a minute, wherever it arrives
    assert await one.allow("connect", "192.0.2.8", 3, 60.0)  # another address: its own window
    assert await two.allow("new_guest", "192.0.2.7", 3, 60.0)  # another kind: its own window
    assert await one.allow("connect", "192.0.2.9", 1, 0.2)
    deadline = time.monotonic() + 30
    while not await two.allow("connect", "192.0.2.9", 1, 0.2):  # the window passes
        assert time.monotonic() < deadline, "the window never passed"
        await asyncio.sleep(0.05)


async def test_a_login_over_every_hosts_rate_is_refused_with_the_reason(redis_server, tmp_path: Path) -> None:
    hubs = [a_hub(tmp_path, redis_server.url, name, per_user=10) for name in ("one", "two")]
    for hub in hubs:
        hub.settings.max_new_per_minute = 2
    first, second = await login(hubs[0]), await login(hubs[1])
    assert first.user_id is not None and second.user_id is not None
    third = await login(hubs[0])  # this host has seen one: its own rate would let it in
    assert third.user_id is None
    assert third.conn.reason == "Too many new connections from your address; please wait a minute."  # type: ignore[union-attr]
    assert [f for e, f in hubs[0].log.lines if e == "limit"][-1] == {
        "kind": "rate", "conn": third.id, "peer": "192.0.2.7", "limit": 2, "hosts": "all"
    }  # fmt: skip
    for connection in (first, second, third):
        connection.connection_lost(None)
    assert not hubs[0].connections and not hubs[1].connections
    for hub in hubs:
        await asyncio.gather(*hub.endings)
        await hub.aclose()


async def test_new_guest_names_from_one_address_are_rated_on_every_host_together(redis_server, tmp_path) -> None:
    hubs = []
    for name in ("one", "two"):
        settings = Settings("127.0.0.1", 0, tmp_path / name, None, True, tables_url=redis_server.url)
        settings.max_new_guests_per_hour = 1
        hubs.append(Hub(settings, Log()))
    names = iter(("ann", "ben"))

    async def guest(hub: Hub) -> Connection:
        connection = Connection(hub)
        connection.conn = FakeSSH()  # type: ignore[assignment]
        connection.peer = "192.0.2.7"
        hub.connections.add(connection)
        hub.pending.add(connection)
        name = next(names)
        await connection.begin_auth(name)
        assert await connection.validate_public_key(name, KEY.convert_to_public())
        await connection.auth_completed()
        return connection

    first = await guest(hubs[0])
    assert first.user_id is not None
    second = await guest(hubs[1])  # the first new name on host two, the second from this address
    assert second.user_id is None
    assert second.conn.reason == (  # type: ignore[union-attr]
        "Too many new guest names from your address; come back with a name you have used, or later."
    )
    for hub in hubs:
        await hub.aclose()
