"""Settings for the whole suite."""

from __future__ import annotations

import gc
import os
import sys

import pytest


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: at least four workers, more on a bigger machine.

    Much of the suite waits on real time (SSH round trips, rooms drawing, bots' pauses), so two
    workers per core keep a small machine busy: on the 2-core box, 4 workers ran the suite in
    4 min 56 s against 6 min 23 s with 2 (bench/RESULTS.md).
    """
    return max(4, os.cpu_count() or 1)


def pytest_configure(config) -> None:
    # The suite starts a few hundred Python processes (xdist workers, rooms, servers, templates,
    # `python -m gamenight` runs). Where PYTHONDONTWRITEBYTECODE is set (many container images
    # set it), none of them may cache compiled bytecode, so each compiled the room and its plugins
    # from source again: about 0.7 s of CPU per room process and 4 s per worker's collection on
    # a fresh checkout (bench/RESULTS.md, "The test suite's wall time"). The suite keeps Python's
    # default instead: compiled files go to __pycache__ folders, which git ignores. Set before
    # xdist starts its workers, so they and everything they start inherit it.
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        sys.dont_write_bytecode = False
    # pytest-xdist's workers inherit COLUMNS=80 and LINES=24, which a serial run does not have.
    # Textual and shutil.get_terminal_size() read them before the terminal, so a room started
    # in a test's pseudo-terminal would ignore every resize. Run the workers as a serial run.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    # Every test process starts hundreds of rooms (apps under Pilot), and each parsed the room's
    # and every widget's CSS again -- more than once, since a stylesheet keeps 64 parsed sources and
    # the room has more, so each new screen re-parsed them all (about a tenth of a Pilot test's CPU).
    # The room template's forked rooms share parsed CSS in the process (same text, same theme
    # variables, same rules); the suite's in-process rooms do the same (bench/RESULTS.md).
    from gamenight.compat.textual_internals import share_parsed_css

    share_parsed_css()
    # The cyclic garbage collector took a fifth of a Pilot test's CPU: a full collection walks every
    # object alive (the plugins' modules, memo tables, shared walks: 0.1-0.25 s each), and with the
    # default thresholds it ran every few tests, since each test's room lives long enough to reach
    # the oldest generation. Young collections every 10,000 allocations instead of 700, the older
    # ones every 20 instead of 10: nothing a test checks depends on when garbage is collected (a test
    # that needs it collected calls gc.collect()). What is alive after collection and at the end of
    # each module is frozen (gc.freeze, as the room template does), so later full collections walk
    # only what came after. bench/RESULTS.md, "The test suite's wall time", has the figures.
    gc.set_threshold(10_000, 20, 20)


def pytest_collection_finish(session) -> None:
    _collect_and_freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """At the end of each module (its fixtures torn down), its garbage collected and what survives
    frozen: the next module's full collections skip it."""
    yield
    if nextitem is None or nextitem.path != item.path:
        _collect_and_freeze()


def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()


SLOW_FIRST = (
    "tests/core/ssh/",
    "tests/core/test_browser.py",
    "tests/core/test_contrast.py",
    "tests/test_suite_settings.py",
    "tests/test_architecture.py",
    "tests/core/records/test_postgres.py",
    "tests/core/tables/test_room_redraws.py",
)
"""Tests handed out first, in this order: each takes many seconds of real time (real SSH clients,
servers and rooms; a browser; a contrast walk through every screen; a pytest or import-linter run of
its own; a PostgreSQL cluster).  Collected in file order they came last or mid-run, and one started
near the end kept the run going on one worker while the others had nothing left to do
(bench/RESULTS.md, "The test suite's wall time")."""


def pytest_collection_modifyitems(config, items) -> None:
    """The :data:`SLOW_FIRST` tests first (a stable sort: each file's tests stay together, so a
    module's fixtures are still built once).  ``--dist loadgroup`` hands out the xdist groups first,
    largest first, then the other tests in this order."""

    def rank(item) -> int:
        return next((n for n, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)), len(SLOW_FIRST))

    items.sort(key=rank)


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` whose crashed test is reported once, not run again.

    A test past its timeout ends its worker (``timeout_method = "thread"``). pytest-xdist 3.8's
    group scheduler then puts the crashed test back in the queue with the rest of its group, so it
    runs -- and ends a worker -- again, and the run can hang for good (seen: a full run waiting
    forever after one timeout; a 3-file reproduction hangs the same way). Marked as done before
    the rest of its group is queued again, it is reported failed once and the run goes on.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class CrashOnce(LoadGroupScheduling):
        def remove_node(self, node):
            crashed = None
            workload = self.assigned_work.get(node, {})
            for unit in workload.values():
                crashed = next((nodeid for nodeid, done in unit.items() if not done), None)
                if crashed is not None:
                    unit[crashed] = True
                    break
            # Only the units with tests still to run go back in the queue. xdist puts back every
            # unit the node was ever given, the finished ones too; a finished unit handed to a
            # worker sends it no test, nothing reports back, and the run waits forever (seen: a
            # full run idle at 99% for 20 minutes after one worker crashed).
            for scope in [scope for scope, unit in workload.items() if all(unit.values())]:
                del workload[scope]
            super().remove_node(node)
            return crashed

        def _assign_work_unit(self, node):
            while self.workqueue and all(next(iter(self.workqueue.values())).values()):
                self.workqueue.popitem(last=False)  # nothing left to run in it
            if self.workqueue:
                super()._assign_work_unit(node)
            elif not self._pending_of(self.assigned_work.get(node, {})):
                node.shutdown()

    return CrashOnce(config, log)


@pytest.fixture(autouse=True)
def _records_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """Every test's room records its games in a folder of its own, never in the user's data dir."""
    monkeypatch.setenv("GAMENIGHT_DATA", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True)
def english():
    """Every test starts in English and leaves English behind, whatever language it played in (the
    language is the process's: a test that set Japanese would otherwise turn the next one's texts)."""
    from gamenight.i18n import set_language

    set_language("en")
    yield
    set_language("en")
