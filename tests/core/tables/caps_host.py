"""One host of a game room in a process of its own, for the real-process check of the caps across hosts
(test_caps_across_hosts.py): it starts a table service on the Redis given, says ``ready``, waits for
``go`` on its stdin, opens ``COUNT`` tables for one identity at once (each from a room of its own),
prints how many were opened and how many refused, then keeps them open until its stdin closes.

    python -m tests.core.tables.caps_host REDIS_URL HOST_ID DATA_DIR COUNT
"""

from __future__ import annotations

import asyncio
import json
import sys

from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from tests.core.tables.conftest import FAST, NIM_REGISTRY
from tests.core.tables.test_caps_across_hosts import connect_from, opened


async def main(url: str, host_id: str, data_dir: str, count: int) -> None:
    service = TableService(
        NIM_REGISTRY, data_dir, seed=5, message_rate=FAST, tables_url=url, host_id=host_id, sweep_interval=3600
    )
    await service.start()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    rooms = [await connect_from(service, "key:ann") for _ in range(count)]
    print("ready", flush=True)
    assert (await reader.readline()).strip() == b"go"
    answers = await asyncio.gather(*(opened(room) for room in rooms))
    opened_here = sum(isinstance(answer, p.Snapshot) for answer in answers)
    refused = sum(isinstance(answer, p.Error) and answer.code == "host-limit" for answer in answers)
    print(json.dumps({"opened": opened_here, "refused": refused, "tables": len(service.tables)}), flush=True)
    await reader.read()  # until the test closes stdin
    await asyncio.wait_for(service.close(), 10)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
