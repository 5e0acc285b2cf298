"""The tables' files under the data dir: every change saved off the event loop (the ordinary save format of the
match, plus the table's own file with its seats), and the running tables restored from there by a new service."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from gamenight.atomic import write_atomic
from gamenight.match import Match, SeatConfig
from gamenight.saves import SaveError, load_match, match_to_document
from gamenight.sdk import fill_seat_names
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table
from gamenight.text import safe_text

log = logging.getLogger("gamenight.tables")


class Persistence(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: the tables' files."""

    def _paths(self, table_id: str) -> tuple[Path, Path]:
        assert self.data_dir is not None
        folder = self.data_dir / "tables"
        return folder / f"{table_id}.save.toml", folder / f"{table_id}.table.toml"

    def _documents(self, table: Table) -> tuple[dict[str, Any], dict[str, Any]]:
        """The save document of the match and the table's own, as plain data (cheap: no TOML yet)."""
        return match_to_document(table.match), self._table_document(table)

    def _table_document(self, table: Table) -> dict[str, Any]:
        """The table's own document: its seats and settings (what its match's save does not hold)."""
        return {
            "format": 1,
            "id": table.id,
            "game": table.game.id,
            "public": table.public,
            "code": table.code,
            "timer": table.timer,
            "host": table.host,
            "started": table.started,
            "takeover_bot": table.takeover_bot,
            "acknowledged": table.match.acknowledged,
            "solo": table.solo,
            "bot_delay": table.bot_delay,
            "opened": table.opened,
            "seats": [
                {
                    "person": table.persons[s],
                    "owner": table.owners[s] or "",
                    "name": table.names[s],
                    "bot": table.match.seats[s].bot or "",
                }
                for s in range(len(table.names))
            ],
        }

    def _save_now(self, table: Table) -> None:
        if self.data_dir is None or self.store is not None:  # with the tables in Redis, no table files
            return
        save_path, table_path = self._paths(table.id)
        _write_both(save_path, *self._documents(table), table_path, None)

    async def _save_loop(self, table: Table) -> None:
        """Save after every change, off the event loop; changes during a write are saved by the next one."""
        if self.data_dir is None:
            return
        save_path, table_path = self._paths(table.id)
        written: list[str | None] = [None]
        while True:
            await table.dirty.wait()
            table.dirty.clear()
            if table.forgotten:
                for path in (save_path, table_path):
                    with contextlib.suppress(OSError):
                        path.unlink()
                return
            match_doc, table_doc = self._documents(table)  # taken on the loop: one consistent moment
            table.writing = asyncio.ensure_future(
                asyncio.to_thread(_write_both, save_path, match_doc, table_doc, table_path, written)
            )
            await asyncio.shield(table.writing)

    def _restore_all(self) -> None:
        """Restore every running table saved under the data dir (one that cannot be read is skipped, and said)."""
        assert self.data_dir is not None
        folder = self.data_dir / "tables"
        for path in sorted(folder.glob("*.table.toml")) if folder.exists() else ():
            try:
                table = self._restore(path)
            except (SaveError, OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as error:
                log.warning("table %s not restored: %s", path.name, safe_text(error, limit=200))
                continue
            self.tables[table.id] = table
            for seat, owner in enumerate(table.owners):
                if owner is not None:
                    table.away[seat] = time.monotonic()
            self._launch(table)

    def _restore(self, table_path: Path) -> Table:
        document = tomllib.loads(table_path.read_text(encoding="utf-8"))
        table_id = str(document["id"])
        if not table_id.isalnum() or len(table_id) > 16:
            raise ValueError("bad table id")
        table = self._table_from(document, load_match(self.registry, self._paths(table_id)[0]))
        table.descriptions = describe(table.match)
        return table

    def _table_from(self, document: dict[str, Any], match: Match) -> Table:
        """The table of the table document ``document`` around its ``match`` (every field checked)."""
        table_id = str(document["id"])
        if not table_id.isascii() or not table_id.isalnum() or len(table_id) > 16:
            raise ValueError("bad table id")
        match.bot_time_budget = self.bot_time_budget
        match.acknowledged = str(document.get("acknowledged", ""))
        seats = document["seats"]
        if len(seats) != len(match.seats):
            raise ValueError("the table's seats do not match its save")
        for seat, entry in enumerate(seats):
            bot = str(entry["bot"]) or None
            if bot is not None:
                match.game.bot(bot)
            match.seats[seat] = SeatConfig(str(entry["name"]), bot)
        return Table(
            id=table_id,
            game=match.game,
            match=match,
            persons=[bool(entry["person"]) for entry in seats],
            owners=[str(entry["owner"]) or None for entry in seats],
            names=[str(entry["name"]) for entry in seats],
            takeover_bot=match.game.bot(str(document["takeover_bot"])).id,
            public=bool(document["public"]),
            code=str(document["code"]),
            timer=float(document["timer"]),
            host=str(document["host"]),
            started=bool(document["started"]),
            solo=bool(document.get("solo", False)),
            bot_delay=min(p.MAX_BOT_DELAY, max(0.0, float(document.get("bot_delay", 0.0)))),
            opened=float(document.get("opened", 0.0)),
        )


def _write_both(
    save_path: Path,
    match_doc: dict[str, Any],
    table_doc: dict[str, Any],
    table_path: Path,
    written: list[str | None] | None,
) -> None:
    """Write the match's save, then the table's file if it changed (seats change far less often than moves)."""
    write_atomic(save_path, tomli_w.dumps(match_doc))
    text = tomli_w.dumps(table_doc)
    if written is None or written[0] != text:
        write_atomic(table_path, text)
        if written is not None:
            written[0] = text


def describe(match: Match) -> list[tuple[int, str]]:
    """The public description of every move of the current game, replayed from its log."""
    names = [seat.name for seat in match.seats]
    replay = Match(
        match.game,
        list(match.seats),
        match.options,
        seed=match.seed,
        games_played=match.games_played - (1 if match.recorded else 0),
    )
    lines = []
    for entry in match.log:
        before = replay.state
        replay.apply(entry.action)
        lines.append(
            (entry.seat, fill_seat_names(match.rules.describe_action(before, entry.action, entry.seat), names))
        )
    return lines
