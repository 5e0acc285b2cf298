"""Open the records wherever they are: a SQLite file (the default) or a PostgreSQL database.

PostgreSQL's store (and psycopg) is imported only for a ``postgresql://`` URL.
"""

from __future__ import annotations

from pathlib import Path

from gamenight.records.store import RecordsStore

__all__ = ["is_database_url", "open_records"]

DATABASE_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database (``postgresql://USER@HOST:PORT/DB``), not a file."""
    return isinstance(target, str) and target.lower().startswith(DATABASE_SCHEMES)


def open_records(target: Path | str | None = None, spool: Path | None = None) -> RecordsStore:
    """The records at ``target``: a SQLite file (``None``: the default one), or a PostgreSQL URL.

    ``spool`` is the folder where finished games wait while the database cannot be reached
    (PostgreSQL only; a file is always at hand).  Raises
    :class:`~gamenight.records.store.RecordsUnavailable`.
    """
    if is_database_url(target):
        from gamenight.records.postgres import PostgresRecordsStore  # psycopg: only when asked for

        return PostgresRecordsStore.open(str(target), spool=spool)
    return RecordsStore.open(Path(target) if target is not None else None)
