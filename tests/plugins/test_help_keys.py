"""Every game's help, in English and Japanese, has a keys section naming its table's keys."""

from __future__ import annotations

import re

import pytest
from gamenight.i18n import set_language
from gamenight.plugins import load_registry

from tests.core.tour import new_match

REGISTRY = load_registry()
BUILT_IN = ("lits", "mate", "mille", "seven", "yatzy")
HEADINGS = {"en": "## Keys", "ja": "## キー"}
NAMES = {"enter": "Enter", "space": "Space", "tab": "Tab", "escape": "Esc"}
ROOM_ACTIONS = {"help", "save", "leave", "chat", "start_now"}
"""The room's own keys (chat and start are only shown at a shared table; the README lists them)."""


def keys_section(markdown: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of its level (or the end)."""
    start = markdown.index(heading + "\n")
    rest = markdown[start + len(heading) + 1 :]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def table_keys(game) -> set[str]:
    """The keys the table's key bar shows, the room's own (help, save, leave) aside."""
    screen = game.screen(new_match(game))
    return {
        key
        for key, bindings in screen._bindings.key_to_bindings.items()
        for binding in bindings
        if binding.show and binding.action not in ROOM_ACTIONS
    }


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("game_id", BUILT_IN)
def test_the_help_has_a_keys_section_naming_every_key_of_the_key_bar(game_id, language):
    game = REGISTRY.games[game_id]
    help_text = game.help[language]
    assert HEADINGS[language] + "\n" in help_text, f"{game_id} ({language}) has no keys section"
    section = keys_section(help_text, HEADINGS[language])
    set_language(language)
    try:
        keys = table_keys(game)
    finally:
        set_language("en")
    for key in keys:
        name = NAMES.get(key, key)
        assert re.search(rf"[`*]{re.escape(name)}[`*]|`{re.escape(name)}`", section, re.IGNORECASE), (
            f"{game_id} ({language}): the keys section does not name {name!r}"
        )
