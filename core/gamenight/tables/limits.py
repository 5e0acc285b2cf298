"""How many tables one identity, one client address and the whole server may keep: the service's caps.

The caps' values are the service's (:mod:`gamenight.tables.service` declares them); the checks are here."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")


class Limits(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: the caps on tables per identity, per address,
    per server."""

    def _table_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open another shared table now, as (code, reason), or ``None``.

        Solo tables count apart (:meth:`_solo_limit`): a person's kept games never stop them hosting."""
        open_tables = [table for table in self.tables.values() if not table.solo and table.status() != "over"]
        if sum(table.host == connection.identity for table in open_tables) >= self.tables_per_identity:
            return "host-limit", f"you host {self.tables_per_identity} open tables already"
        if connection.address and (
            sum(table.address == connection.address for table in open_tables) >= self.tables_per_address
        ):
            return "address-limit", f"your address hosts {self.tables_per_address} open tables"
        if self._count(solo=False) >= self.max_tables:
            self._prune()
        if self._count(solo=False) >= self.max_tables:
            return "full", "this server has no room for another table"
        return None

    def _solo_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open a solo table now, or ``None``.  Its own identity's are capped
        by closing the oldest (:meth:`_keep_room_for_solo`); one address's identities together (many guest
        names) and the server as a whole have caps of their own, so solo games never fill the server."""
        kept_here = [
            table
            for table in self.tables.values()
            if table.solo and not table.match.over and connection.address and table.address == connection.address
        ]
        if len([table for table in kept_here if table.host != connection.identity]) >= self.solo_tables_per_address:
            return "address-limit", f"your address keeps {self.solo_tables_per_address} games already"
        if self._count(solo=True) >= self.max_solo_tables:
            self._prune()
        if self._count(solo=True) >= self.max_solo_tables and len(self._kept(connection.identity)) < p.MAX_KEPT:
            return "full", "this server has no room for another table"
        return None

    def _count(self, solo: bool) -> int:
        return sum(table.solo == solo for table in self.tables.values())

    def _kept(self, identity: str) -> list[Table]:
        """``identity``'s unfinished solo tables, oldest first."""
        kept = [t for t in self.tables.values() if t.solo and t.host == identity and not t.match.over]
        return sorted(kept, key=lambda table: table.opened)

    def _keep_room_for_solo(self, connection: Connection) -> None:
        """Before a new solo table: close the person's oldest ones past the cap, and say so."""
        kept = self._kept(connection.identity)
        for table in kept[: max(0, len(kept) - p.MAX_KEPT + 1)]:
            self._forget(table, "its person's oldest kept game, for a new one")
            connection.send(p.Error("solo-closed", f"your oldest kept game ({table.game.id}) was closed"))

    def _prune(self) -> None:
        """Drop the tables nobody is at any more: finished ones (their game went to its players'
        saves) and waiting ones every person left.  Running tables stay: their players may return."""
        for table in list(self.tables.values()):
            if table.connections:
                continue
            if table.status() == "over" or (table.status() == "waiting" and not any(table.owners)):
                self._forget(table, "nobody there")
