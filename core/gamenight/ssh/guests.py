"""Guest names that belong to someone: trust on first use (``--guest``).

A guest name is bound to what it was first used with, for the guest's expiry period:

- a **public key** (OpenSSH offers its keys even where none is required): from then on only
  that key logs in under the name;
- **no key**: the guest gets a fresh identity and a short *reconnect code*, shown once; coming
  back is ``ssh NAME+CODE@host``.  Only a hash of the code is kept (compared in constant time).

Another key, no key, or a wrong code asking for a bound name does not get its identity (the
server refuses it with a clear message).  Names are compared as
:func:`gamenight.tables.names.name_key` does (``Ben``, ``ben `` and ``ｂｅｎ`` are one name).

The book is one JSON file, ``DATA_DIR/guests.json`` (no sandboxed room sees the data dir but
its own folder), written atomically after every change, at most :data:`MAX_GUESTS` names and
:data:`MAX_FILE_BYTES` bytes.  A file that cannot be read is set aside (``guests.json.bad``)
with an ``error`` log line, and the server starts with an empty book.

With ``--records-url`` the book is :class:`DatabaseGuestBook` instead: the same names, kept in the
server-wide database (:mod:`gamenight.records`, table ``guest_names``), so every host behind one
load balancer knows every guest.  Its skeleton column is unique: when two hosts bind look-alike
names at once, the database lets one in and the other is told the name is taken
(:class:`NameTaken`).  Its calls block (a database round trip): the server runs them in a thread
(:attr:`DatabaseGuestBook.blocking`), and a database that cannot be reached is
:class:`GuestsUnavailable` (the login is refused with the reason, never let in unchecked).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.atomic import write_atomic
from gamenight.ssh.identity import guest_user_id
from gamenight.tables.names import name_key

if TYPE_CHECKING:
    from gamenight.records.store import RecordsStore

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "MAX_GUESTS",
    "DatabaseGuestBook",
    "Guest",
    "GuestBook",
    "GuestsUnavailable",
    "NameTaken",
    "split_code",
]

BOOK_NAME = "guests.json"
MAX_GUESTS = 5000
"""Guest names held at once; a new name past this is refused until old ones expire."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A bigger book file is not read (5,000 names take about 1 MiB)."""
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
"""A reconnect code's letters: no 0/o, 1/l/i that could be misread."""
CODE_LENGTH = 8
"""31**8: about 40 bits, against at most 20 new connections a minute from one address."""
TOUCH_EVERY = 3600.0
"""A guest's last login is written again once it is this many seconds old."""
_CODE = re.compile(f"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
_HINT = re.compile(r"[^a-z0-9]+")
_ID = re.compile(r"^g-[a-z0-9-]{1,60}$")
_HEX = re.compile(r"^(?:[0-9a-f]{2}){0,64}$")


def split_code(user: str) -> tuple[str, str | None]:
    """``ben+k7q2mx9p`` -> ``("ben", "k7q2mx9p")``; a user name without a code -> ``(user, None)``."""
    name, plus, code = user.rpartition("+")
    if plus and name and _CODE.match(code.lower()):
        return name, code.lower()
    return user, None


def key_fingerprint(public_data: bytes) -> str:
    """What the book keeps of a key: SHA-256 of its public blob, in hex."""
    return hashlib.sha256(public_data).hexdigest()


def _code_hash(salt: str, code: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + code.encode()).hexdigest()


@dataclass
class Guest:
    """One bound guest name."""

    name: str
    """The name as first used (for the log and the operator)."""
    user_id: str
    """The guest's folder under ``DATA_DIR/users`` and identity at the tables."""
    key: str = ""
    """The key it is bound to (:func:`key_fingerprint`), or ``""``."""
    salt: str = ""
    code: str = ""
    """Salted SHA-256 of its reconnect code (hex), or ``""``."""
    used: float = 0.0
    """Last login (seconds since the epoch): the name expires with the guest's folder."""


class NameTaken(Exception):
    """The name (or one that looks the same) was bound by someone else first, maybe a moment ago on
    another host."""


class GuestsUnavailable(Exception):
    """The guest names cannot be read or written now (their database cannot be reached)."""


class _Book:
    """What both guest books do alike: binding a name to a key or a new reconnect code, checking one,
    and choosing a new guest's folder; each book stores a binding (``_bind``) its own way."""

    data_dir: Path

    def _bind(self, name: str, **secret: str) -> Guest | None:
        raise NotImplementedError

    def _legacy_free(self, legacy: str) -> bool:
        """True when no bound guest has the folder ``legacy`` yet."""
        raise NotImplementedError

    def bind_key(self, name: str, public_data: bytes) -> Guest | None:
        """Bind the free ``name`` to a key; ``None`` when the book is full (the database's book:
        :class:`NameTaken` when another connection, on any host, bound it or a look-alike first)."""
        return self._bind(name, key=key_fingerprint(public_data))

    def bind_code(self, name: str) -> tuple[Guest, str] | None:
        """Bind the free ``name`` to a new reconnect code: the guest and the code (shown once)."""
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        salt = secrets.token_hex(16)
        guest = self._bind(name, salt=salt, code=_code_hash(salt, code))
        return None if guest is None else (guest, code)

    def _new_id(self, name: str) -> str:
        """A fresh folder name; the folder this exact name had before names were bound (a hash of
        the name, anyone's who typed it) goes to the first to bind the name, so its saves stay."""
        legacy = guest_user_id(name)
        if (self.data_dir / "users" / legacy).is_dir() and self._legacy_free(legacy):
            return legacy
        hint = _HINT.sub("", name.lower())[:16] or "user"
        return f"g-{hint}-{secrets.token_hex(10)}"

    @staticmethod
    def has_key(guest: Guest, public_data: bytes) -> bool:
        return bool(guest.key) and hmac.compare_digest(guest.key, key_fingerprint(public_data))

    @staticmethod
    def has_code(guest: Guest, code: str) -> bool:
        if not guest.code or not guest.salt:
            return False
        return hmac.compare_digest(guest.code, _code_hash(guest.salt, code.lower()))


class GuestBook(_Book):
    """Every bound guest name of a server, kept in ``DATA_DIR/guests.json``."""

    blocking = False
    """Its calls are quick and local: the server makes them on its event loop."""

    def __init__(
        self,
        data_dir: Path,
        log: Callable[..., None],
        limit: int = MAX_GUESTS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.data_dir = data_dir
        self.path = data_dir / BOOK_NAME
        self.log = log
        self.limit = limit
        self.clock = clock
        self.guests: dict[str, Guest] = {}
        """name key -> its guest."""
        self._load()

    # -- the file ---------------------------------------------------------------------------
    def _load(self) -> None:
        try:
            with self.path.open("rb") as file:
                data = file.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return
        except OSError as error:
            self.log("error", what="guests", detail=f"cannot read {self.path}: {error}")
            return
        try:
            if len(data) > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
            document = json.loads(data)
            if not isinstance(document, dict) or document.get("format") != 1:
                raise ValueError("not a guest book of format 1")
            entries = document.get("guests")
            if not isinstance(entries, list):
                raise ValueError("no list of guests")
            for entry in entries[: self.limit]:
                guest = _guest(entry)
                self.guests[name_key(guest.name)] = guest
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            self.guests.clear()
            aside = self.path.with_name(BOOK_NAME + ".bad")
            try:
                os.replace(self.path, aside)
            except OSError:
                aside = self.path
            self.log(
                "error",
                what="guests",
                detail=f"{self.path} is not a readable guest book ({str(error)[:200]}); "
                f"kept as {aside.name}, starting with no guest names bound",
            )

    def save(self) -> None:
        """Write the book (atomically: a crash leaves the old one or the new one)."""
        document = {"format": 1, "guests": [vars(guest) for guest in self.guests.values()]}  # asdict: 5x slower
        try:
            write_atomic(self.path, json.dumps(document, ensure_ascii=False, separators=(",", ":")))
        except OSError as error:
            self.log("error", what="guests", detail=f"cannot write {self.path}: {error}")

    # -- names -------------------------------------------------------------------------------
    def find(self, name: str) -> Guest | None:
        """The guest ``name`` (or a name that looks the same) is bound to."""
        return self.guests.get(name_key(name))

    def full(self) -> bool:
        return len(self.guests) >= self.limit

    def _bind(self, name: str, **secret: str) -> Guest | None:
        key = name_key(name)
        assert key not in self.guests, "bind a free name only"
        if self.full():
            return None
        guest = Guest(name=name[:64], user_id=self._new_id(name), used=self.clock(), **secret)
        self.guests[key] = guest
        self.save()
        return guest

    def _legacy_free(self, legacy: str) -> bool:
        return all(guest.user_id != legacy for guest in self.guests.values())

    def touch(self, guest: Guest) -> None:
        """The guest logged in: its name is kept for another expiry period (written at most once
        per :data:`TOUCH_EVERY` seconds: expiry counts in days)."""
        now = self.clock()
        if now - guest.used >= TOUCH_EVERY:
            guest.used = now
            self.save()

    def expire(self, cutoff: float, active: Iterable[str]) -> list[Guest]:
        """Forget the names not used since ``cutoff`` (never one in use); returns them."""
        busy = set(active)
        gone = [key for key, guest in self.guests.items() if guest.used < cutoff and guest.user_id not in busy]
        expired = [self.guests.pop(key) for key in gone]
        if expired:
            self.save()
        return expired


_ROW = ("skeleton", "name", "user_id", "key", "salt", "code", "used")
"""A row of the database's ``guest_names`` (:attr:`RecordsStore.GUEST_COLUMNS`) as :func:`_guest` reads it."""


class DatabaseGuestBook(_Book):
    """Every bound guest name of every host sharing one database (``--records-url``): the API of
    :class:`GuestBook`, each call one query or one transaction of ``store``."""

    blocking = True
    """Each call is a database round trip: the server makes it in a thread, off its event loop."""

    def __init__(
        self,
        store: RecordsStore,
        data_dir: Path,
        log: Callable[..., None],
        limit: int = MAX_GUESTS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.data_dir = data_dir
        self.log = log
        self.limit = limit
        self.clock = clock

    def close(self) -> None:
        self.store.close()

    def _call(self, what: str, method: Callable[..., Any], *args: Any) -> Any:
        """``method(*args)`` of the store; any failure is :class:`GuestsUnavailable`, logged once here."""
        try:
            return method(*args)
        except Exception as error:  # unreachable, refused, or a row that is not ours: never let in unchecked
            detail = " ".join(str(error).split())[:300] or type(error).__name__
            self.log("error", what="guests", detail=f"guest names: cannot {what}: {detail}")
            raise GuestsUnavailable(detail) from None

    def find(self, name: str) -> Guest | None:
        """The guest ``name`` (or a name that looks the same) is bound to, on any host."""
        row = self._call("read", self.store.guest_find, name_key(name))
        if row is None:
            return None
        try:
            return _guest(dict(zip(_ROW, row, strict=True)))
        except (ValueError, TypeError, KeyError) as error:
            self.log("error", what="guests", detail=f"guest names: a row that is not ours: {str(error)[:200]}")
            raise GuestsUnavailable(str(error)) from None

    def full(self) -> bool:
        return bool(self._call("count", self.store.guest_count) >= self.limit)

    def _bind(self, name: str, **secret: str) -> Guest | None:
        guest = Guest(name=name[:64], user_id=self._new_id(name), used=self.clock(), **secret)
        row = (name_key(name), guest.name, guest.user_id, guest.key, guest.salt, guest.code, guest.used)
        outcome = self._call("bind", self.store.guest_bind, row, self.limit)
        if outcome == "full":
            return None
        if outcome == "taken":
            raise NameTaken(name)
        return guest

    def _legacy_free(self, legacy: str) -> bool:
        return not self._call("read", self.store.guest_user_known, legacy)

    def import_file(self) -> tuple[int, int] | None:
        """Carry the names of ``DATA_DIR/guests.json`` (this host's book before ``--records-url``) over
        to the database, then rename it ``guests.json.imported``: how many were carried over and how
        many were bound in the database already (kept as they are there); ``None`` when there is no file."""
        path = self.data_dir / BOOK_NAME
        if not path.is_file():
            return None
        book = GuestBook(self.data_dir, self.log)  # read and checked as at any start; a bad file is set aside
        added = taken = 0
        for key, guest in book.guests.items():
            row = (key, guest.name, guest.user_id, guest.key, guest.salt, guest.code, guest.used)
            if self._call("bind", self.store.guest_bind, row, self.limit) == "bound":
                added += 1
            else:
                taken += 1
        if path.is_file():
            os.replace(path, path.with_name(BOOK_NAME + ".imported"))
        return added, taken

    def touch(self, guest: Guest) -> None:
        """The guest logged in (written at most once per :data:`TOUCH_EVERY` seconds, as the file's)."""
        now = self.clock()
        if now - guest.used >= TOUCH_EVERY:
            guest.used = now
            self._call("write", self.store.guest_touch, name_key(guest.name), now)

    def expire(self, cutoff: float, active: Iterable[str]) -> list[Guest]:
        """Forget the names not used since ``cutoff`` (never one in use on this host); returns them."""
        rows = self._call("expire", self.store.guest_expire, cutoff, sorted(set(active)))
        expired = []
        for row in rows:
            try:
                expired.append(_guest(dict(zip(_ROW, row, strict=True))))
            except (ValueError, TypeError, KeyError):
                continue  # forgotten all the same; its folder (if any) was not a guest's
        return expired


def _guest(entry: Any) -> Guest:
    """One entry of the file, every field checked."""
    if not isinstance(entry, dict):
        raise ValueError("a guest that is not an object")
    guest = Guest(
        name=str(entry["name"])[:64],
        user_id=str(entry["user_id"]),
        key=str(entry.get("key", "")),
        salt=str(entry.get("salt", "")),
        code=str(entry.get("code", "")),
        used=float(entry["used"]),
    )
    if not _ID.match(guest.user_id) or not all(_HEX.match(value) for value in (guest.key, guest.salt, guest.code)):
        raise ValueError(f"a malformed guest entry for {guest.name!r}")
    if not guest.key and not guest.code:
        raise ValueError(f"the guest name {guest.name!r} is bound to nothing")
    return guest
