"""Settings for the whole suite."""

from __future__ import annotations

import os


def pytest_configure(config) -> None:
    # pytest-xdist's workers inherit COLUMNS=80 and LINES=24, which a serial run does not have.
    # Textual and shutil.get_terminal_size() read them before the terminal, so a room started
    # in a test's pseudo-terminal would ignore every resize. Run the workers as a serial run.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
