"""The suite's own settings (tests/conftest.py) do what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GROUPED = """
import time

import pytest


@pytest.mark.xdist_group("g")
@pytest.mark.parametrize("i", range(4))
def test_in_a_group(i):
    time.sleep(30 if i == 1 else 0.1)


@pytest.mark.parametrize("i", range(4))
def test_alone(i):
    time.sleep(0.1)
"""


ALONE = """
import time

import pytest


@pytest.mark.parametrize("i", range(12))
def test_alone(i):
    time.sleep(30 if i == 5 else 0.2)
"""


def run_crashing(tmp_path, tests: str, *more: str) -> str:
    """The suite's scheduler on ``tests``, in two workers, each test given 2 s: the run's output."""
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_xdist_make_scheduler  # noqa: F401\n")
    (tmp_path / "test_crashing.py").write_text(tests)
    # A run of its own: not this worker's stdin (its channel to the xdist controller), session or
    # PYTEST_* variables.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "XDIST"))}
    env["PYTHONPATH"] = str(ROOT)
    # Only the two plugins the scheduler works with: each of the run's processes (the controller, its
    # workers and their replacements) loaded every installed one, Textual's snapshot plugin with
    # Textual among them, 0.4 CPU-s a process of the test's 2-3 CPU-s (bench/RESULTS.md).
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    plugins = ["-p", "xdist", "-p", "pytest_timeout"]
    xdist = [*plugins, "-n", "2", "--dist", "loadgroup", "--timeout", "2", "--timeout-method", "thread", *more]
    here = ["-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *xdist, *here],
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    return done.stdout


def test_a_test_past_its_timeout_fails_once_and_the_run_ends(tmp_path):
    """pytest-xdist's group scheduler ran a timed-out test again, ending a second worker, and the
    run could hang; with the suite's scheduler the test fails once and the others still run."""
    output = run_crashing(tmp_path, GROUPED)
    summary = output.strip().splitlines()[-1]
    assert "1 failed, 7 passed" in summary, output[-2000:]
    assert output.count("crashed while running") == 1, output[-2000:]
    assert "test_in_a_group[1]" in output


def test_a_worker_that_crashed_after_finishing_tests_does_not_stall_the_run(tmp_path):
    """xdist puts every unit a crashed worker was given back in the queue, the finished ones too; a
    finished unit handed out again sends no test, so nothing reports back and the run waited forever
    (a full run sat idle at 99% after one worker crashed). Now the run ends, every test run once."""
    try:
        output = run_crashing(tmp_path, ALONE)
    except subprocess.TimeoutExpired:
        pytest.fail("the run stalled after a worker crashed")
    summary = output.strip().splitlines()[-1]
    assert "1 failed, 11 passed" in summary, output[-2000:]
    assert "test_alone[5]" in output


def test_the_suites_own_options_end_the_run_when_a_worker_dies_and_name_its_test(tmp_path):
    """pyproject.toml's addopts start no replacement worker (twice a run with one waited for ever):
    the run ends, the test that ended its worker named and failed."""
    import shlex
    import tomllib

    addopts = shlex.split(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    )
    assert "--max-worker-restart" in addopts
    restart = addopts[addopts.index("--max-worker-restart") : addopts.index("--max-worker-restart") + 2]
    try:
        output = run_crashing(tmp_path, ALONE, *restart)
    except subprocess.TimeoutExpired:
        pytest.fail("the run stalled after a worker died")
    assert "crashed while running 'test_crashing.py::test_alone[5]'" in output, output[-2000:]
    assert "1 failed" in output.strip().splitlines()[-1], output[-2000:]


def test_the_slowest_tests_are_handed_out_first_each_file_kept_together():
    """``pytest_collection_modifyitems`` puts the real-SSH, browser, contrast and other long tests
    first (in :data:`~tests.conftest.SLOW_FIRST` order) and keeps every file's tests in their order."""
    from types import SimpleNamespace

    from tests.conftest import SLOW_FIRST, pytest_collection_modifyitems

    collected = [
        "tests/core/records/test_store.py::test_a",
        "tests/core/ssh/test_abuse.py::test_b",
        "tests/core/test_app.py::test_c",
        "tests/core/test_contrast.py::test_d[gamenight]@tour-en",
        "tests/core/ssh/test_abuse.py::test_e",
        "tests/plugins/yatzy/test_rules.py::test_f",
        "tests/test_suite_settings.py::test_g",
        "tests/core/ssh/test_e2e.py::test_h",
    ]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in collected]
    pytest_collection_modifyitems(None, items)
    assert [item.nodeid for item in items] == [
        "tests/core/ssh/test_abuse.py::test_b",
        "tests/core/ssh/test_abuse.py::test_e",
        "tests/core/ssh/test_e2e.py::test_h",
        "tests/core/test_contrast.py::test_d[gamenight]@tour-en",
        "tests/test_suite_settings.py::test_g",
        "tests/core/records/test_store.py::test_a",
        "tests/core/test_app.py::test_c",
        "tests/plugins/yatzy/test_rules.py::test_f",
    ]
    for prefix in SLOW_FIRST:  # a renamed or removed file would silently lose its place
        assert (ROOT / prefix).exists(), prefix


def test_the_example_plugins_tests_share_one_worker_and_so_one_fresh_venv():
    """The session's fresh venv (tests/examples/conftest.py) is built once, not once per worker."""
    import importlib

    modules = sorted((ROOT / "tests" / "examples").glob("test_*.py"))
    assert modules
    for path in modules:
        module = importlib.import_module(f"tests.examples.{path.stem}")
        marks = getattr(module, "pytestmark", None)
        marks = marks if isinstance(marks, list) else [marks]
        assert any(m is not None and m.name == "xdist_group" and m.args == ("examples",) for m in marks), path.name


def test_a_test_process_collects_garbage_seldom_and_freezes_what_survives_each_module():
    """The collector's settings (tests/conftest.py): young collections every 10,000 allocations, and
    what was alive after collection (the modules imported, their registries) frozen, so a full
    collection walks only what the tests made since."""
    import gc

    assert gc.get_threshold() == (10_000, 20, 20)
    assert gc.get_freeze_count() > 10_000
