"""A throwaway PostgreSQL cluster for the tests and the bench: a temp dir, a unix socket, no TCP.

``initdb`` and ``pg_ctl`` start it (trust auth, user ``gamenight``, fsync off: nothing here must
survive); PostgreSQL refuses to run as root, so as root it runs as ``nobody`` (``runuser``) in a
temp dir that user owns.  Each test gets a fresh database in it (``CREATE DATABASE`` copies a
template in milliseconds).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
"""Debian's PostgreSQL binaries (the newest version first); else ``initdb`` on the PATH."""
USER = "gamenight"
PORT = 5432  # only names the socket file: the socket is in the cluster's own dir


def binary(name: str) -> str | None:
    for folder in BIN_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which(name)


def available() -> bool:
    return all(binary(name) for name in ("initdb", "pg_ctl", "postgres"))


class Cluster:
    """A running cluster; :meth:`url` for a database in it, :meth:`admin` for SQL as its owner."""

    def __init__(self, folder: Path, durable: bool = False) -> None:
        self.folder = folder
        self.durable = durable
        """PostgreSQL's own defaults (fsync, synchronous commit) instead of the tests' fast, throwaway ones."""
        self.data = folder / "data"
        self._names = itertools.count()

    def _as_owner(self) -> list[str]:
        if os.geteuid() != 0:
            return []
        return [shutil.which("runuser") or "/sbin/runuser", "-u", "nobody", "--"]

    def start(self) -> None:
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
        initdb = [*self._as_owner(), str(binary("initdb"))]
        subprocess.run(
            [*initdb, "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"],
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = f"-k {self.folder} -c listen_addresses='' -p {PORT}"
        if not self.durable:  # one cluster per test worker: small, and nothing in it must survive
            options += " -c fsync=off -c synchronous_commit=off -c shared_buffers=16MB -c max_connections=40"
        log = str(self.folder / "log")
        subprocess.run(
            [*self._as_owner(), str(binary("pg_ctl")), "-D", str(self.data), "-o", options, "-l", log, "-w", "start"],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def stop(self) -> None:
        subprocess.run(
            [*self._as_owner(), binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@/{database}?host={self.folder}&port={PORT}"

    def admin(self, sql: str) -> list[tuple]:
        """Run ``sql`` on the ``postgres`` database (autocommit: CREATE DATABASE may not be in a transaction)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            cursor = connection.execute(sql)
            return cursor.fetchall() if cursor.description else []

    def new_database(self) -> str:
        """A fresh, empty database's URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def block(self, url: str) -> None:
        """Make the database of ``url`` unreachable: no new connection, every open one ended."""
        name = database_name(url)
        self.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        self.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")

    def unblock(self, url: str) -> None:
        self.admin(f"ALTER DATABASE {database_name(url)} ALLOW_CONNECTIONS true")


def database_name(url: str) -> str:
    return urllib.parse.urlsplit(url).path.lstrip("/")


PREFIX = "gamenight-pg-"
OWNER_FILE = "owner.pid"


def sweep_orphans() -> list[Path]:
    """Stop and delete the clusters whose test process died without stopping them (a worker ended
    by a timeout never runs its fixtures' teardown); the folders swept."""
    swept = []
    for folder in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            owner = int((folder / OWNER_FILE).read_text())
        except (OSError, ValueError):
            continue  # not started yet, or not ours: left alone
        try:
            os.kill(owner, 0)
            continue  # its owner runs
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        Cluster(folder).stop()
        shutil.rmtree(folder, ignore_errors=True)
        swept.append(folder)
    return swept


@contextlib.contextmanager
def running_cluster(durable: bool = False) -> Iterator[Cluster]:
    """A cluster for the length of the ``with`` (its folder outside pytest's root-only temp dirs,
    which ``nobody`` could not enter)."""
    sweep_orphans()
    folder = Path(tempfile.mkdtemp(prefix=PREFIX))
    (folder / OWNER_FILE).write_text(str(os.getpid()))
    cluster = Cluster(folder, durable)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
