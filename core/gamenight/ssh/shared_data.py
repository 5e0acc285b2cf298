"""Several hosts, one data dir: the check that every host of one game room uses the same shared folder.

Per-user saves and settings stay files in ``DATA_DIR/users/<id>/`` (the room reads and writes them
itself, and its sandbox shows it only that folder); with several hosts that folder is one shared file
system mounted at the same path on each (docs/hosting.md, "Several machines").  A host started on a
local folder by mistake would give its players other saves, so with ``--tables-url`` each host checks at
start that its data dir is the room's: the first host to start writes a random id into
``DATA_DIR/room-id`` and into Redis (``PREFIX:room:data-dir``); every later host must find the same id in
its data dir, or refuses to start and says why.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from gamenight.ssh.messages import _

__all__ = ["MARKER", "check_shared_data_dir", "data_dir_id"]

MARKER = "room-id"
_ID = re.compile(r"^[0-9a-f]{32}$")


def data_dir_id(data_dir: Path) -> str:
    """The data dir's id, made (atomically: two hosts starting at once agree) on first use."""
    path = data_dir / MARKER
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        text = path.read_text(encoding="ascii", errors="replace")[:100].strip()
        if not _ID.match(text):
            raise ValueError(
                _("{path} is not a gamenight data dir id; remove it to make a new one.", path=path)
            ) from None
        return text
    made = secrets.token_hex(16)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(made + "\n")
        file.flush()
        os.fsync(file.fileno())
    return made


async def check_shared_data_dir(url: str, data_dir: Path, prefix: str = "gamenight", timeout: float = 5.0) -> str:
    """The data dir's id, once Redis agrees it is the one every host of this game room uses; raises
    ``ValueError`` (one line: the server prints it and exits) when it is another, or Redis cannot say."""
    import redis.asyncio  # only with --tables-url
    from redis import exceptions

    from gamenight.tables.redis_store import _without_password

    mine = data_dir_id(data_dir)
    key = f"{prefix}:room:data-dir"
    client = redis.asyncio.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        await client.set(key, mine, nx=True)
        raw = await client.get(key)
    except (exceptions.RedisError, OSError) as error:
        raise ValueError(
            _(
                "The Redis at {url} cannot be reached to check the data dir: {error}",
                url=_without_password(url),
                error=" ".join(str(error).split())[:200],
            )
        ) from None
    finally:
        await client.aclose()
    theirs = raw.decode("ascii", "replace")[:64] if isinstance(raw, bytes) else str(raw)
    if theirs != mine:
        raise ValueError(
            _(
                "The data dir {path} (id {mine}) is not the one the other hosts of this game room use "
                "(id {theirs}): mount the same shared folder there on every host (see docs/hosting.md, "
                '"Several machines").',
                path=data_dir,
                mine=mine,
                theirs=theirs,
            )
        )
    return mine
