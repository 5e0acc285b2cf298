"""Fixtures: the installed plugins (run ``pip install -e .`` first), English texts."""

from __future__ import annotations

import pytest
from gamenight.sdk.testing import Registry, load_registry, set_language


@pytest.fixture(autouse=True)
def english():
    """Every test starts (and ends) in English."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Every installed plugin, found through its entry point -- as the room finds them."""
    return load_registry()


@pytest.fixture
def game(registry):
    """Goofspiel, as the installed example plugin registered it."""
    if "goofspiel" not in registry.games:
        pytest.fail("gamenight-example is not installed here: pip install -e examples/gamenight-example first")
    return registry.game("goofspiel")
