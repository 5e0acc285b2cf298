from __future__ import annotations

from pathlib import Path

import pytest
from gamenight.config import Config
from gamenight.plugins import load_registry

from tests.core.nim import NimPlugin


@pytest.fixture
def nim_registry():
    """Only the Nim test game (no installed plugins)."""
    return load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config.load(tmp_path / "config.toml")
