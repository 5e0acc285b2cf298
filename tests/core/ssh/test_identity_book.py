"""The guest book (``DATA_DIR/guests.json``): names bound to a key or a code, expiry, bad files.

Unit tests of :mod:`gamenight.ssh.guests` with a fake clock; what a client sees is in
test_identity.py (real OpenSSH clients).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import asyncssh
import pytest
from gamenight.ssh import guests as g
from gamenight.ssh.auth import Hub
from gamenight.ssh.identity import guest_user_id
from gamenight.ssh.settings import Settings


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict]] = []

    def __call__(self, event: str, **fields: object) -> None:
        self.lines.append((event, fields))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


KEY = asyncssh.generate_private_key("ssh-ed25519")
OTHER = asyncssh.generate_private_key("ssh-ed25519")


def book(tmp_path: Path, **options) -> tuple[g.GuestBook, Log]:
    log = Log()
    return g.GuestBook(tmp_path, log, **options), log


def test_a_name_bound_to_a_key_is_that_keys_and_looks_alike_names_with_it(tmp_path: Path) -> None:
    guests, _log = book(tmp_path)
    ben = guests.bind_key("ben", KEY.public_data)
    assert ben is not None and ben.user_id.startswith("g-ben-")
    for name in ("ben", "Ben", " ben ", "ｂｅｎ", "bеn"):  # the last with a Cyrillic е
        assert guests.find(name) is ben
    assert guests.has_key(ben, KEY.public_data) and not guests.has_key(ben, OTHER.public_data)
    assert not guests.has_code(ben, "23456789")
    again, _ = book(tmp_path)  # from the file
    found = again.find("BEN")
    assert found is not None and found.user_id == ben.user_id and again.has_key(found, KEY.public_data)


def test_a_code_is_kept_only_as_a_salted_hash_and_checked_whole(tmp_path: Path) -> None:
    guests, _log = book(tmp_path)
    bound = guests.bind_code("cleo")
    assert bound is not None
    cleo, code = bound
    assert len(code) == g.CODE_LENGTH and set(code) <= set(g.CODE_ALPHABET)
    assert code not in (tmp_path / "guests.json").read_text()
    assert guests.has_code(cleo, code) and guests.has_code(cleo, code.upper())
    assert not guests.has_code(cleo, code[:-1]) and not guests.has_code(cleo, "")
    assert not guests.has_key(cleo, KEY.public_data)
    other = guests.bind_code("dora")
    assert other is not None and other[1] != code and other[0].user_id != cleo.user_id


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        ("ben+k7q2mx9p", ("ben", "k7q2mx9p")),
        ("ben+K7Q2MX9P", ("ben", "k7q2mx9p")),
        ("ben", ("ben", None)),
        ("ben+short", ("ben+short", None)),
        ("ben+k7q2mx9p0", ("ben+k7q2mx9p0", None)),  # 0 is not a code's letter, nor is a ninth one
        ("a+b+k7q2mx9p", ("a+b", "k7q2mx9p")),
        ("+k7q2mx9p", ("+k7q2mx9p", None)),
    ],
)
def test_a_user_name_may_carry_a_reconnect_code(user: str, expected: tuple[str, str | None]) -> None:
    assert g.split_code(user) == expected


def test_names_expire_unless_in_use_and_the_file_follows(tmp_path: Path) -> None:
    clock = Clock()
    guests, _log = book(tmp_path, clock=clock)
    old = guests.bind_key("old", KEY.public_data)
    busy = guests.bind_key("busy", OTHER.public_data)
    clock.now += 100
    fresh = guests.bind_code("fresh")
    assert old and busy and fresh
    expired = guests.expire(cutoff=clock.now - 50, active=[busy.user_id])
    assert expired == [old]
    assert guests.find("old") is None and guests.find("busy") is busy and guests.find("fresh") is not None
    assert {entry["name"] for entry in json.loads((tmp_path / "guests.json").read_text())["guests"]} == {
        "busy",
        "fresh",
    }
    assert guests.bind_code("old") is not None  # free again, for anyone


def test_logging_in_keeps_a_name(tmp_path: Path) -> None:
    clock = Clock()
    guests, _log = book(tmp_path, clock=clock)
    ben = guests.bind_key("ben", KEY.public_data)
    assert ben is not None
    written = (tmp_path / "guests.json").stat().st_mtime_ns
    clock.now += 60
    guests.touch(ben)  # a minute later: not worth a write
    assert (tmp_path / "guests.json").stat().st_mtime_ns == written and ben.used == clock.now - 60
    clock.now += g.TOUCH_EVERY
    guests.touch(ben)
    assert ben.used == clock.now
    assert g.GuestBook(tmp_path, Log()).find("ben").used == clock.now  # on file
    assert guests.expire(cutoff=clock.now - 10, active=[]) == []


def test_the_book_is_bounded(tmp_path: Path) -> None:
    guests, _log = book(tmp_path, limit=2)
    assert guests.bind_key("a", KEY.public_data) and guests.bind_code("b")
    assert guests.full() and guests.bind_code("c") is None and guests.bind_key("d", KEY.public_data) is None


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[]",
        b'{"format": 2, "guests": []}',
        b'{"format": 1, "guests": [{"name": "x", "user_id": "../../etc", "key": "ab", "used": 1}]}',
        b'{"format": 1, "guests": [{"name": "x", "user_id": "g-x-1", "used": 1}]}',  # bound to nothing
        b'{"format": 1, "guests": [{"name": "x", "user_id": "g-x-1", "key": "zz", "used": 1}]}',
        b'{"format": 1, "guests": [{"name": "x", "user_id": "g-x-1", "key": "ab", "used": "soon"}]}',
        b'{"format": 1, "guests": [{"name": "x", "user_id": "g-x-1", "salt": "abc", "code": "ab", "used": 1}]}',
        b"[" * 100_000,
        b'{"format": 1, "guests": [' + b" " * (g.MAX_FILE_BYTES + 10) + b"]}",
        b"\xff\xfe garbage",
    ],
)
def test_a_bad_or_huge_file_is_set_aside_with_a_clear_log_line(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "guests.json").write_bytes(content)
    guests, log = book(tmp_path)
    assert guests.guests == {}
    [(event, fields)] = log.lines
    assert event == "error" and fields["what"] == "guests" and "not a readable guest book" in fields["detail"]
    assert (tmp_path / "guests.json.bad").read_bytes() == content
    assert guests.bind_key("ben", KEY.public_data) is not None  # and the server goes on
    assert json.loads((tmp_path / "guests.json").read_text())["guests"][0]["name"] == "ben"


def test_writes_are_atomic_a_failed_write_leaves_the_old_book(tmp_path: Path, monkeypatch) -> None:
    guests, log = book(tmp_path)
    assert guests.bind_key("ben", KEY.public_data)
    before = (tmp_path / "guests.json").read_text()

    def crash(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    assert guests.bind_code("cleo") is not None  # kept in memory, the failure logged
    assert log.lines[-1][0] == "error" and "disk full" in log.lines[-1][1]["detail"]
    assert (tmp_path / "guests.json").read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["guests.json"]  # no half-written file left


def test_the_first_to_bind_a_name_keeps_its_folder_from_before_names_were_bound(tmp_path: Path) -> None:
    legacy = tmp_path / "users" / guest_user_id("ben")
    legacy.mkdir(parents=True)
    guests, _log = book(tmp_path)
    ben = guests.bind_key("ben", KEY.public_data)
    assert ben is not None and ben.user_id == legacy.name


def test_the_hub_expires_names_with_their_folders(tmp_path: Path) -> None:
    settings = Settings("127.0.0.1", 0, tmp_path, None, True)
    hub = Hub(settings, Log())
    assert hub.guests is not None
    ben = hub.guests.bind_key("ben", KEY.public_data)
    assert ben is not None
    folder = tmp_path / "users" / ben.user_id
    folder.mkdir(parents=True)
    ben.used -= (settings.guest_expiry_days + 1) * 86400
    hub.expire_guests()
    assert not folder.exists() and hub.guests.find("ben") is None
    assert ("guest_names_expired", {"names": 1, "days": settings.guest_expiry_days}) in hub.log.lines
