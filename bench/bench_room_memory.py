"""Where a forked room's private memory is (an idle room's USS).

Starts ``serve-ssh --guest --template on`` (``--sandbox on|off``), opens ``--sessions`` sessions
with an asyncssh client (80x24, the real room), waits until they are idle in the lobby, and then,
page by page (``/proc/PID/pagemap`` and ``/proc/kpagecount``, so run it as root), splits every
private page (mapped by that process only: what USS counts) of each process of each room's
process group into:

* **copied**: a page of a mapping the template has at the same address, where the template has a
  page too, but the room has its own copy (copy-on-write after a write);
  split again by comparing the room's copy with the template's page, 8-byte word by word:
  - *equal*: the same bytes (written and then put back, e.g. a reference count raised and lowered);
  - *counts only*: every word that differs is a small integer in both (< 2**32), as reference
    counts and sizes are: touched by reference counting (or a counter), not by new objects;
  - *other*: anything else (new objects in freed blocks, pointers, caches filled);
* **fresh, inherited range**: in a mapping inherited from the template, where the template has no
  page (e.g. the unused tail of a pymalloc arena or of the heap, used by the room);
* **own**: in a mapping the template does not have (the room's own arenas, stacks, ``mmap``\\s).

Each by mapping kind: ``heap`` (glibc's main heap, ``[heap]``), ``anon`` (anonymous mappings:
pymalloc arenas, glibc's other arenas and large blocks), ``lib data`` (writable pages of the
Python binary and of shared libraries), ``stack`` and ``other``.

Run (as root):  .venv/bin/python bench/bench_room_memory.py [--sessions 5] [--sandbox off]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import struct
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # bench_ssh
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.core.ssh.processes
from bench_ssh import ServerProcess, many_sessions, memory_kib, open_session

from tests.core.ssh.processes import process_group

PAGE = os.sysconf("SC_PAGE_SIZE")
PFN_MASK = (1 << 55) - 1
PRESENT = 1 << 63
KINDS = ("heap", "anon", "lib data", "stack", "other")
CLASSES = ("copied: equal", "copied: counts only", "copied: other", "fresh, inherited range", "own")


class Mapping:
    __slots__ = ("end", "name", "perms", "start")

    def __init__(self, line: str) -> None:
        fields = line.split(maxsplit=5)
        self.start, self.end = (int(value, 16) for value in fields[0].split("-"))
        self.perms = fields[1]
        self.name = fields[5].strip() if len(fields) > 5 else ""

    @property
    def kind(self) -> str:
        if self.name == "[heap]":
            return "heap"
        if self.name.startswith("[stack"):
            return "stack"
        if not self.name:
            return "anon"
        if self.name.startswith("/"):
            return "lib data"
        return "other"


def mappings(pid: int) -> list[Mapping]:
    with open(f"/proc/{pid}/maps") as handle:
        return [Mapping(line) for line in handle]


def page_frames(pid: int, start: int, end: int) -> list[int]:
    """For each page in [start, end) of ``pid``: its frame number, or -1 when not present."""
    with open(f"/proc/{pid}/pagemap", "rb", buffering=0) as handle:
        handle.seek(start // PAGE * 8)
        data = handle.read((end - start) // PAGE * 8)
    return [entry & PFN_MASK if entry & PRESENT else -1 for entry in struct.unpack(f"{len(data) // 8}Q", data)]


def map_counts(frames: list[int]) -> dict[int, int]:
    """How many processes map each frame (``/proc/kpagecount``)."""
    counts = {}
    with open("/proc/kpagecount", "rb", buffering=0) as handle:
        for frame in frames:
            handle.seek(frame * 8)
            counts[frame] = struct.unpack("Q", handle.read(8))[0]
    return counts


def read_page(memory, address: int) -> bytes | None:
    try:
        memory.seek(address)
        return memory.read(PAGE)
    except (OSError, ValueError, OverflowError):
        return None


def compare(ours: bytes, theirs: bytes) -> str:
    if ours == theirs:
        return "copied: equal"
    words = struct.unpack(f"{PAGE // 8}Q", ours)
    others = struct.unpack(f"{PAGE // 8}Q", theirs)
    for a, b in zip(words, others, strict=True):
        if a != b and (a >= 1 << 32 or b >= 1 << 32):
            return "copied: other"
    return "copied: counts only"


class TemplateView:
    """The template's mappings and page frames (it is idle: as at each fork, but the little its
    request loop allocates)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.maps = mappings(pid)
        self.frames: dict[int, int] = {}
        for mapping in self.maps:
            if mapping.name in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
                continue
            for index, frame in enumerate(page_frames(pid, mapping.start, mapping.end)):
                if frame >= 0:
                    self.frames[mapping.start + index * PAGE] = frame
        self.starts = sorted((m.start, m.end) for m in self.maps)

    def covers(self, address: int) -> bool:
        import bisect

        at = bisect.bisect_right(self.starts, (address, float("inf"))) - 1
        return at >= 0 and self.starts[at][0] <= address < self.starts[at][1]


def split(pid: int, template: TemplateView) -> Counter:
    """Private pages of ``pid`` as (class, kind) -> pages."""
    result: Counter = Counter()
    with (
        open(f"/proc/{pid}/mem", "rb", buffering=0) as memory,
        open(f"/proc/{template.pid}/mem", "rb", buffering=0) as theirs,
    ):
        for mapping in mappings(pid):
            if mapping.name in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
                continue
            frames = page_frames(pid, mapping.start, mapping.end)
            counts = map_counts([f for f in frames if f >= 0])
            for index, frame in enumerate(frames):
                if frame < 0 or counts[frame] != 1:
                    continue
                address = mapping.start + index * PAGE
                if not template.covers(address):
                    kind = "own"
                elif address not in template.frames:
                    kind = "fresh, inherited range"
                else:
                    ours, original = read_page(memory, address), read_page(theirs, address)
                    kind = compare(ours, original) if ours and original else "copied: other"
                result[kind, mapping.kind] += 1
    return result


def table(rows: dict[str, list[Counter]], title: str) -> list[str]:
    """A Markdown table: median KiB over the rooms, per class and kind."""
    lines = [f"### {title}", "", "| pages (median KiB over the rooms) | " + " | ".join(KINDS) + " | all |"]
    lines.append("|---" * (len(KINDS) + 2) + "|")
    for klass in CLASSES:
        cells = []
        for kind in KINDS:
            cells.append(round(statistics.median(c[klass, kind] for c in rows[title]) * PAGE / 1024))
        total = round(statistics.median(sum(c[klass, k] for k in KINDS) for c in rows[title]) * PAGE / 1024)
        lines.append(f"| {klass} | " + " | ".join(f"{v:,}" for v in cells) + f" | **{total:,}** |")
    cells = [
        round(statistics.median(sum(c[k, kind] for k in CLASSES) for c in rows[title]) * PAGE / 1024) for kind in KINDS
    ]
    total = round(statistics.median(sum(c.values()) for c in rows[title]) * PAGE / 1024)
    lines.append("| all private | " + " | ".join(f"{v:,}" for v in cells) + f" | **{total:,}** |")
    return [*lines, ""]


async def hold(port: int, sessions: int) -> list:
    held = []
    for number in range(sessions):
        session, _seconds = await open_session(port, number)
        held.append(session)
    return held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--sandbox", choices=("on", "off"), default="off")
    parser.add_argument("--tables", choices=("on", "off"), default="on", help="serve-ssh's shared tables")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds idle in the lobby before measuring")
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    args = parser.parse_args()
    load = os.getloadavg()
    data_dir = Path(tempfile.mkdtemp(prefix="bench-room-memory-"))
    server = ServerProcess(
        data_dir, *many_sessions(args.sessions), "--template", "on", "--sandbox", args.sandbox, "--tables", args.tables
    )
    loop = asyncio.new_event_loop()
    rows: dict[str, list[Counter]] = {}
    uss: dict[str, list[int]] = {}
    groups: list[int] = []
    try:
        held = loop.run_until_complete(hold(server.port, args.sessions))
        loop.run_until_complete(asyncio.sleep(args.settle))
        template = TemplateView([e for e in server.of("template") if e.get("action") == "ready"][-1]["pid"])
        for pgid in server.pids():
            members = sorted(process_group(pgid))
            names = ["room"] if len(members) == 1 else ["first stage", "PID 1", "room"][-len(members) :]
            groups.append(sum(memory_kib(pid)[0] for pid in members))
            for name, pid in zip(names, members, strict=False):
                rows.setdefault(name, []).append(split(pid, template))
                uss.setdefault(name, []).append(memory_kib(pid)[0])
        template_uss = memory_kib(template.pid)[0]
        for session in held:
            session.conn.close()
    finally:
        server.stop()
        loop.close()
    lines = [
        "# Where a forked room's private memory is",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {load[0]:.1f} → {os.getloadavg()[0]:.1f}. "
        f"Command: `.venv/bin/python bench/bench_room_memory.py {' '.join(sys.argv[1:])}`. "
        f"{args.sessions} rooms idle in the lobby, sandbox {args.sandbox}; template USS {template_uss / 1024:.1f} MiB.",
        "",
        f"A room's whole process group: USS median {statistics.median(groups) / 1024:.1f} MiB "
        f"(min {min(groups) / 1024:.1f}, max {max(groups) / 1024:.1f}).",
        "",
    ]
    for name in rows:
        median_uss = statistics.median(uss[name]) / 1024
        lines.append(f"{name}: USS (smaps_rollup) median {median_uss:.1f} MiB over {len(uss[name])}.")
        lines.append("")
        lines += table(rows, name)
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
