"""Guest names in the server-wide database (``--guest --records-url``): one book for every host.

The book (:class:`gamenight.ssh.guests.DatabaseGuestBook`) on both engines; two hosts (two pools on
one PostgreSQL database) binding look-alike names at once: exactly one wins, the other is told the
name is taken; a database that cannot be reached refuses the login with the reason, never lets it in
unchecked; and two real servers behind one database, with OpenSSH clients.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import asyncssh
import pytest
from gamenight.records.backends import open_records
from gamenight.records.postgres import PostgresRecordsStore
from gamenight.ssh import guests as g
from gamenight.ssh.auth import Connection, Hub
from gamenight.ssh.settings import Settings
from gamenight.tables.names import name_key

from tests.core.records import conftest as records_fixtures
from tests.core.ssh.conftest import FAKE_COMMAND, make_key, needs_ssh, ssh_argv
from tests.core.ssh.test_identity import run_ssh

postgres, database = records_fixtures.postgres, records_fixtures.database  # the records tests' fixtures
engine, records_target = records_fixtures.engine, records_fixtures.records_target

KEY = asyncssh.generate_private_key("ssh-ed25519")
OTHER = asyncssh.generate_private_key("ssh-ed25519")
LOOK_ALIKES = ("ben", "Ben", " ben ", "ｂｅｎ", "bеn")  # the last with a Cyrillic е


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict]] = []

    def __call__(self, event: str, **fields: object) -> None:
        self.lines.append((event, fields))


def a_book(target, tmp_path: Path, **options) -> tuple[g.DatabaseGuestBook, Log]:
    log = Log()
    return g.DatabaseGuestBook(open_records(target), tmp_path, log, **options), log


def test_a_name_bound_in_the_database_is_its_keys_under_every_look_alike(records_target, tmp_path: Path) -> None:
    book, _log = a_book(records_target, tmp_path)
    ben = book.bind_key("ben", KEY.public_data)
    assert ben is not None and ben.user_id.startswith("g-ben-")
    other_host, _ = a_book(records_target, tmp_path)  # another host: the same names
    for name in LOOK_ALIKES:
        found = other_host.find(name)
        assert found is not None and found.user_id == ben.user_id
        assert other_host.has_key(found, KEY.public_data) and not other_host.has_key(found, OTHER.public_data)
        with pytest.raises(g.NameTaken):
            other_host.bind_key(name, OTHER.public_data)
    bound = other_host.bind_code("cleo")
    assert bound is not None
    _cleo, code = bound
    found = book.find("CLEO")
    assert found is not None and book.has_code(found, code) and not book.has_code(found, "23456789")
    assert code not in str(book.store.query("SELECT * FROM guest_names"))  # only its salted hash is kept
    book.close()
    other_host.close()


def test_the_database_book_is_capped_expires_names_and_keeps_the_last_login(records_target, tmp_path: Path) -> None:
    clock = [1_000_000.0]
    book, _log = a_book(records_target, tmp_path, limit=2, clock=lambda: clock[0])
    ann = book.bind_key("ann", KEY.public_data)
    assert ann is not None and book.bind_code("bob") is not None
    assert book.full() and book.bind_key("cy", OTHER.public_data) is None  # full: refused, nothing bound
    assert book.find("cy") is None
    clock[0] += g.TOUCH_EVERY
    book.touch(ann)  # Ann logs in again: her name is kept another period
    found = book.find("ann")
    assert found is not None and found.used == clock[0]
    gone = book.expire(clock[0] - 1, active=[])
    assert [guest.name for guest in gone] == ["bob"] and book.find("bob") is None and not book.full()
    assert book.expire(clock[0] + 1, active=[ann.user_id]) == []  # in use on this host: kept
    book.close()


def test_a_row_that_is_not_a_guests_is_refused_not_used_as_a_folder(records_target, tmp_path: Path) -> None:
    book, log = a_book(records_target, tmp_path)
    book.store.guest_bind((name_key("eve"), "eve", "../../etc", "ab", "", "", 1.0), 10)
    with pytest.raises(g.GuestsUnavailable):
        book.find("eve")
    assert any(event == "error" and "not ours" in fields["detail"] for event, fields in log.lines)
    book.close()


def test_the_skeleton_is_unique_in_the_database_itself(database: str, tmp_path: Path) -> None:
    import psycopg

    book, _log = a_book(database, tmp_path)
    assert book.bind_key("ben", KEY.public_data) is not None
    with psycopg.connect(database) as connection, pytest.raises(psycopg.errors.UniqueViolation):
        connection.execute(
            "INSERT INTO guest_names VALUES (%s, 'bеn', 'g-ben-x', '', 'aa', 'bb', 1.0)", (name_key("bеn"),)
        )
    book.close()


def test_two_hosts_binding_look_alike_names_at_once_exactly_one_wins(database: str, tmp_path: Path) -> None:
    hosts = [g.DatabaseGuestBook(PostgresRecordsStore.open(database), tmp_path, Log()) for _ in range(2)]
    for round_ in range(12):
        names = (f"ben{round_}", f"bеn{round_}")  # the second with a Cyrillic е: the same name
        start = threading.Barrier(2)
        outcomes: list[object] = [None, None]

        def bind(index: int, names=names, start=start, outcomes=outcomes) -> None:
            start.wait()
            try:
                outcomes[index] = hosts[index].bind_key(names[index], (KEY, OTHER)[index].public_data)
            except g.NameTaken as taken:
                outcomes[index] = taken

        threads = [threading.Thread(target=bind, args=(index,)) for index in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        won = [outcome for outcome in outcomes if isinstance(outcome, g.Guest)]
        assert len(won) == 1 and sum(isinstance(outcome, g.NameTaken) for outcome in outcomes) == 1, outcomes
        assert hosts[0].find(names[0]).user_id == hosts[1].find(names[1]).user_id == won[0].user_id
    for host in hosts:
        host.close()


# -- the logins: two hubs (two hosts) on one database ---------------------------------------------


class FakeSSH:
    """What a :class:`Connection` asks of asyncssh's connection while a client logs in."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.banners: list[str] = []

    def disconnect(self, code: int, reason: str) -> None:
        self.reason = reason

    def send_auth_banner(self, text: str) -> None:
        self.banners.append(text)


def a_hub(tmp_path: Path, database: str, name: str) -> Hub:
    settings = Settings("127.0.0.1", 0, tmp_path / name, None, True, records_url=database)
    hub = Hub(settings, Log())
    assert isinstance(hub.guests, g.DatabaseGuestBook)
    return hub


async def key_login(hub: Hub, user: str, key: asyncssh.SSHKey) -> Connection:
    """A guest logging in with ``key`` as ``user``, as asyncssh drives it (the signature is good)."""
    connection = Connection(hub)
    connection.conn = FakeSSH()  # type: ignore[assignment]
    connection.peer = "192.0.2.7"
    hub.connections.add(connection)
    hub.pending.add(connection)
    assert await connection.begin_auth(user) is True
    if await connection.validate_public_key(user, key):
        await connection.auth_completed()
    elif connection.conn.reason is None:  # type: ignore[union-attr]  # the key is not the name's: OpenSSH
        await connection.get_kbdint_challenge(user, "", "")  # tries keyboard-interactive next
    return connection


def test_two_hosts_logging_in_look_alike_guests_at_once_let_one_in(database: str, tmp_path: Path) -> None:
    async def main() -> None:
        one, two = a_hub(tmp_path, database, "one"), a_hub(tmp_path, database, "two")
        for round_ in range(6):
            first, second = await asyncio.gather(
                key_login(one, f"ann{round_}", KEY), key_login(two, f"ＡＮＮ{round_}", OTHER)
            )
            admitted = [c for c in (first, second) if c.user_id is not None]
            refused = [c for c in (first, second) if c.user_id is None]
            assert len(admitted) == 1 and len(refused) == 1
            reason = refused[0].conn.reason  # type: ignore[union-attr]
            assert reason is not None and "is taken on this server" in reason, reason
        one.close()
        two.close()

    asyncio.run(main())


def test_the_name_taken_between_a_look_and_a_bind_is_refused_with_the_reason(database: str, tmp_path: Path) -> None:
    async def main() -> None:
        one, two = a_hub(tmp_path, database, "one"), a_hub(tmp_path, database, "two")
        book = one.guests
        assert isinstance(book, g.DatabaseGuestBook)
        looked = book.find

        def find_then_lose_the_race(name: str) -> g.Guest | None:
            found = looked(name)
            if name == "dora" and found is None:  # host two binds it right after host one looked
                assert two.guests is not None and two.guests.bind_key("Dora", OTHER.public_data) is not None
            return found

        book.find = find_then_lose_the_race  # type: ignore[method-assign]
        connection = await key_login(one, "dora", KEY)
        assert connection.user_id is None and connection not in one.sessions
        assert connection.conn.reason is not None and "The name dora is taken" in connection.conn.reason  # type: ignore[union-attr]
        book.find = looked  # type: ignore[method-assign]
        back = await key_login(two, "DORA", OTHER)  # the winner, on either host
        assert back.user_id is not None
        again = await key_login(one, "dora", OTHER)
        assert again.user_id == back.user_id
        one.close()
        two.close()

    asyncio.run(main())


def test_an_unreachable_guest_database_refuses_the_login_with_the_reason(
    postgres, database: str, tmp_path: Path
) -> None:
    async def main() -> None:
        hub = a_hub(tmp_path, database, "one")
        postgres.block(database)
        try:
            connection = await key_login(hub, "eli", KEY)
        finally:
            postgres.unblock(database)
        assert connection.user_id is None and connection not in hub.sessions
        reason = connection.conn.reason  # type: ignore[union-attr]
        assert reason == "The guest names cannot be checked right now; please try again in a minute."
        assert ("auth_failed", {"conn": connection.id, "peer": "192.0.2.7", "user": "eli",
                                "method": "guests_unavailable"}) in hub.log.lines  # fmt: skip
        # The database is back: the name is bound at a later try, as the reason says.  (Not always the
        # next one: the pool tries its lost connection again 1, 2, 4... s apart, and a try waits 3 s.)
        for _ in range(20):
            later = await key_login(hub, "eli", KEY)
            if later.user_id is not None:
                break
            assert later.conn.reason == reason  # type: ignore[union-attr]
            await asyncio.sleep(0.5)
        assert later.user_id is not None
        hub.close()

    asyncio.run(main())


@needs_ssh
def test_two_servers_on_one_database_share_their_guests(start_server, terminals, database: str, tmp_path: Path) -> None:
    args = ["--guest", "--max-new-per-minute", "1000", "--records-url", database, "--command", FAKE_COMMAND]
    one, two = start_server(*args), start_server(*args)
    ben_key, other_key = make_key(tmp_path, "ben"), make_key(tmp_path, "mallory")
    ben = terminals(ssh_argv(one.port, "ben", ben_key, "-tt"))
    ben.wait_for("saves:[]")
    bens = one.expect("guest_bound", user="ben")[0]["user_id"]
    for user, key in (("ben", other_key), ("Ben", None)):  # on the other host: taken all the same
        mark = two.mark()
        result = run_ssh(ssh_argv(two.port, user, key, "-tt"))
        assert result.returncode == 255 and "is taken on this server" in result.stderr, result.stderr
        assert not two.of_kind("auth_ok", since=mark)
    again = terminals(ssh_argv(two.port, "BEN", ben_key, "-tt"))  # Ben himself, through the other host
    again.wait_for("saves:[]")
    assert two.expect("auth_ok", user="BEN")[-1]["user_id"] == bens
    assert not two.of_kind("guest_bound")
    assert not (two.data_dir / "guests.json").exists() and not (one.data_dir / "guests.json").exists()


def test_the_names_of_the_guest_file_are_carried_over_to_the_database(database: str, tmp_path: Path) -> None:
    data = tmp_path / "one"
    data.mkdir()
    old = g.GuestBook(data, Log())
    ben = old.bind_key("ben", KEY.public_data)
    cleo, code = old.bind_code("cleo") or (None, "")
    assert ben is not None and cleo is not None
    other = g.DatabaseGuestBook(open_records(database), tmp_path, Log())
    dora = other.bind_key("dora", OTHER.public_data)  # another host bound a name of its own already
    assert dora is not None
    old.bind_key("Dora", KEY.public_data)  # ... that this host's file holds too
    hub = a_hub(tmp_path, database, "one")
    assert ("guest_names_imported", {"names": 2, "bound_already": 1}) in hub.log.lines
    assert not (data / "guests.json").exists() and (data / "guests.json.imported").exists()
    book = hub.guests
    assert isinstance(book, g.DatabaseGuestBook)
    found = book.find("BEN")
    assert found is not None and found.user_id == ben.user_id and book.has_key(found, KEY.public_data)
    found = book.find("cleo")
    assert found is not None and book.has_code(found, code)
    found = book.find("dora")
    assert found is not None and found.user_id == dora.user_id  # the database's binding stands
    hub.close()
    other.close()
