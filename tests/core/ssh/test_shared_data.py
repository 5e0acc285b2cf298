"""Several hosts, one data dir: a host whose data dir is not the game room's refuses to start (``--tables-url``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from gamenight.ssh.shared_data import MARKER, check_shared_data_dir

from tests.core.tables import conftest as tables_fixtures

redis_server = tables_fixtures.redis_server  # a redis-server of the test's own


async def test_hosts_on_one_shared_folder_agree_and_another_folder_is_refused(redis_server, tmp_path: Path) -> None:
    shared, local = tmp_path / "shared", tmp_path / "local"
    shared.mkdir()
    local.mkdir()
    first = await check_shared_data_dir(redis_server.url, shared)  # the first host makes the id
    assert (shared / MARKER).read_text().strip() == first
    assert await check_shared_data_dir(redis_server.url, shared) == first  # the second host, same folder
    with pytest.raises(ValueError, match=r"is not the one the other hosts of this game room use") as refused:
        await check_shared_data_dir(redis_server.url, local)
    assert first in str(refused.value) and str(local) in str(refused.value)


async def test_hosts_starting_at_once_on_a_new_folder_make_one_id(redis_server, tmp_path: Path) -> None:
    ids = await asyncio.gather(*(check_shared_data_dir(redis_server.url, tmp_path) for _ in range(6)))
    assert len(set(ids)) == 1


async def test_a_marker_that_is_not_an_id_or_no_redis_is_one_clear_error(redis_server, tmp_path: Path) -> None:
    (tmp_path / MARKER).write_text("../../etc/passwd\n")
    with pytest.raises(ValueError, match="is not a gamenight data dir id"):
        await check_shared_data_dir(redis_server.url, tmp_path)
    (tmp_path / MARKER).unlink()
    with pytest.raises(ValueError, match="cannot be reached to check the data dir"):
        await check_shared_data_dir(f"unix://{tmp_path}/none.sock", tmp_path, timeout=0.5)


def test_serve_ssh_on_another_data_dir_stops_at_start_with_one_line(redis_server, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    asyncio.run(check_shared_data_dir(redis_server.url, shared))
    result = subprocess.run(
        [sys.executable, "-m", "gamenight", "serve-ssh", "--guest", "--port", "0", "--template", "off",
         "--data-dir", str(tmp_path / "local"), "--tables-url", redis_server.url],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("gamenight serve-ssh:")]
    assert len(said) == 1 and "is not the one the other hosts of this game room use" in said[0], result.stderr
