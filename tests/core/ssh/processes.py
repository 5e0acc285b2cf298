"""Processes as ``/proc`` shows them: shared by the serve-ssh tests and benches (``bench/bench_ssh*.py``).

Standard library only (a bench imports it without pytest).
"""

from __future__ import annotations

import os

__all__ = ["group_stats", "memory_contains", "process_alive", "process_group"]


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first), or ``None`` when gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def process_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def group_stats(pgid: int, zombies: bool = False) -> dict[int, list[str]]:
    """The processes of process group ``pgid`` (as this process sees them), each with its stat fields
    (``[0]`` state, ``[11]``/``[12]`` user/system CPU ticks); zombies only if asked for."""
    members = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(entry)
            if fields is not None and int(fields[2]) == pgid and (zombies or fields[0] != "Z"):
                members[int(entry)] = fields
    return members


def process_group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid``."""
    return list(group_stats(pgid))


def memory_contains(pid: int, needles: list[bytes]) -> set[bytes]:
    """Which of ``needles`` occur anywhere in the readable memory of ``pid`` (through ``/proc/PID/mem``;
    the same user may read it, or it is a process in a user namespace this user made)."""
    found: set[bytes] = set()
    overlap = max(len(needle) for needle in needles)
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
        for line in maps:
            fields = line.split()
            if "r" not in fields[1] or (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
                continue
            start, end = (int(value, 16) for value in fields[0].split("-"))
            tail = b""
            while start < end:
                try:
                    memory.seek(start)
                    chunk = memory.read(min(1 << 20, end - start))
                except (OSError, ValueError, OverflowError):
                    break
                if not chunk:
                    break
                data = tail + chunk
                found.update(needle for needle in needles if needle in data)
                tail = data[-overlap:]
                start += len(chunk)
    return found
