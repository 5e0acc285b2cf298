"""One fresh venv per session holding, installed with pip: the example plugin and two broken plugins.

Building into one venv with one pip command keeps this folder fast; the
example's tests then also show that broken neighbours do not disturb it.
"""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from tests.examples.freshenv import EXAMPLE, FreshEnv, can_build_offline, fetch_build_tools

ONE_WORKER = pytest.mark.xdist_group("examples")
"""Every test module of this folder is marked with it (``pytestmark``): the session's venv is built
by the worker that needs it, so spread over four workers it was built (pip-installing three packages,
about 4.5 CPU-s) and the room driven (about 2 CPU-s) up to four times; in one group, once."""
BROKEN_ON_IMPORT = "broken on purpose: raises on import"
BROKEN_IN_HOOK = "broken on purpose: raises in register_games"


def write_package(folder: Path, name: str, entry_point: str, module: str, code: str) -> Path:
    """A minimal plugin distribution: pyproject.toml with a gamenight entry point, and one module."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        dedent(f"""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "0.1.0"

        [project.entry-points.gamenight]
        {entry_point} = "{module}"

        [tool.setuptools]
        py-modules = ["{module}"]
        """),
        encoding="utf-8",
    )
    (folder / f"{module}.py").write_text(dedent(code), encoding="utf-8")
    return folder


def broken_packages(root: Path) -> list[Path]:
    """One plugin that raises on import; one whose register_games raises and whose theme is invalid."""
    return [
        write_package(
            root / "broken-import",
            "gamenight-broken-import",
            "broken_import",
            "broken_import_plugin",
            f"raise RuntimeError({BROKEN_ON_IMPORT!r})\n",
        ),
        write_package(
            root / "broken-hook",
            "gamenight-broken-hook",
            "broken_hook",
            "broken_hook_plugin",
            f"""\
            from gamenight import hookimpl


            @hookimpl
            def register_games(register):
                raise ValueError({BROKEN_IN_HOOK!r})


            @hookimpl
            def register_themes(register):
                register({{"name": "broken-theme"}})  # no primary colour
            """,
        ),
    ]


@pytest.fixture(scope="session")
def plugin_env(tmp_path_factory) -> FreshEnv:
    """A fresh venv with gamenight-example and the two broken plugins pip-installed into it."""
    root = tmp_path_factory.mktemp("plugins")
    tools = None if can_build_offline() else fetch_build_tools(root / "build-tools")
    env = FreshEnv(root / "venv", tools)
    env.install(EXAMPLE, *broken_packages(root / "broken"))
    return env


@pytest.fixture(scope="session")
def plugin_records(plugin_env) -> dict[str, dict]:
    """``gamenight plugins --json`` in that venv, by entry point name."""
    return plugin_env.plugins()


@pytest.fixture(scope="session")
def room_report(plugin_env) -> dict:
    """The room started there (``drive_room.py``): lobby, then Goofspiel from its setup screen, key ``k``."""
    return json.loads(plugin_env.run(str(Path(__file__).with_name("drive_room.py")), "goofspiel", "k").stdout)
