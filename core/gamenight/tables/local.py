"""A table service on a Unix socket, for development and tests (``gamenight --tables-socket PATH``).

In a hosted room the server gives each session its own connection and says
who it is.  Here, for trying shared tables on one machine, the first room
started with ``--tables-socket PATH`` runs the service inside its own process
and listens on ``PATH``; every further room with the same ``PATH`` connects to
it.  Each connection is a new identity (``local1``, ``local2``...) named after
the connecting process's user, so this is no substitute for the server's
identities: it is for a developer's terminals, not for strangers.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import itertools
import os
from pathlib import Path
from typing import Any

from gamenight.tables.service import TableService

__all__ = ["LocalTables"]


class LocalTables:
    """A :class:`TableService` listening on a Unix socket (mode 0600)."""

    def __init__(self, registry: Any, path: Path, data_dir: Path | None = None) -> None:
        self.path = Path(path)
        self.service = TableService(registry, data_dir)
        self._numbers = itertools.count(1)
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> LocalTables:
        await self.service.start()
        with contextlib.suppress(FileNotFoundError):
            if self.path.is_socket():
                self.path.unlink()  # a stale socket of a room that is gone (nothing answered on it)
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._serve, self.path, limit=1 << 20)
        finally:
            os.umask(old)
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number = next(self._numbers)
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "Player"
        await self.service.serve(reader, writer, f"local{number}", f"{user[:12]} {number}")

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        await self.service.close()
        with contextlib.suppress(OSError):
            self.path.unlink()
