"""Fixtures of the records tests: a PostgreSQL cluster per test session (per xdist worker)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.records import pg_cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[pg_cluster.Cluster]:
    """A throwaway PostgreSQL cluster, started once per worker; skipped when PostgreSQL is not
    installed, unless ``GAMENIGHT_REQUIRE_POSTGRES`` is set (``.ci/run``), where that fails."""
    if not pg_cluster.available():
        if os.environ.get("GAMENIGHT_REQUIRE_POSTGRES"):
            pytest.fail("GAMENIGHT_REQUIRE_POSTGRES is set but PostgreSQL (initdb, pg_ctl) is not installed")
        pytest.skip(
            "PostgreSQL is not installed (Debian: apt-get install postgresql); "
            "with GAMENIGHT_REQUIRE_POSTGRES=1 this is a failure"
        )
    with pg_cluster.running_cluster() as cluster:
        yield cluster


@pytest.fixture
def database(postgres: pg_cluster.Cluster) -> str:
    """A fresh, empty PostgreSQL database of its own for one test: its URL."""
    return postgres.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request) -> str:
    return request.param


@pytest.fixture
def records_target(engine: str, tmp_path: Path, request) -> Path | str:
    """Where a test's records are, on each engine: a file in its temp dir, or a database of its own."""
    if engine == "sqlite":
        return tmp_path / "r.sqlite3"
    return request.getfixturevalue("database")
