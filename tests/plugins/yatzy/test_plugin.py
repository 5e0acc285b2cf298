"""The Yatzy plugin as the room sees it: registration, texts in two languages, help."""

from __future__ import annotations

from pathlib import Path

import gamenight_yatzy
from gamenight.i18n import gettext, register_catalogue, set_language
from gamenight.plugins import load_registry
from gamenight.testing import missing_translations
from gamenight_yatzy.plugin import GAME
from gamenight_yatzy.rules import BOX_LABELS

from .conftest import RULES, rolled


def test_yatzy_is_registered_through_its_entry_point():
    registry = load_registry()
    assert registry.games["yatzy"].title == "Yatzy"
    record = next(record for record in registry.plugins if record.name == "yatzy")
    assert record.errors == [] and record.games == ["yatzy"]


def test_the_descriptor_lists_three_bots_weakest_to_strongest_and_hides_nothing():
    assert [bot.id for bot in sorted(GAME.bots, key=lambda bot: bot.strength)] == ["random", "greedy", "optimal"]
    assert GAME.perfect_information
    assert GAME.seat_names[0] == "You" and len(GAME.seat_names) == GAME.max_seats


def test_every_text_has_a_japanese_translation():
    package = Path(gamenight_yatzy.__file__).parent
    catalogue = GAME.translations["ja"]
    extra = [
        GAME.title,
        GAME.description,
        *BOX_LABELS,
        *(o.label for o in GAME.options),
        *(o.description for o in GAME.options),
        *(b.label for b in GAME.bots),
        *(b.description for b in GAME.bots),
        *GAME.seat_names,
        *(label for label, _values in RULES.outcome(rolled("12345")).lines),
    ]
    assert missing_translations(package, catalogue, also=extra) == []


def test_sentences_come_out_in_japanese():
    register_catalogue("yatzy", GAME.translations)
    set_language("ja")
    try:
        assert RULES.describe_action(rolled("44124"), "score:fours", 0) == "4の目 に 12 点を記録。"
        assert gettext("Yatzy", "yatzy") == "ヤッツィー"
    finally:
        set_language("en")


def test_help_exists_in_english_and_japanese_and_names_the_joker_rule():
    assert "joker" in GAME.help["en"].lower() and "ジョーカー" in GAME.help["ja"]
    assert "63" in GAME.help["en"] and "63" in GAME.help["ja"]


def test_the_help_names_only_keys_the_table_has():
    """The help said to score by "the box's letter" when no letter keys existed: now they do."""
    from gamenight_yatzy.screen import BOX_KEYS, YatzyScreen

    bound = {binding.key for binding in YatzyScreen.BINDINGS}
    assert {"space", "1", "5", "up", "down", "enter"} <= bound
    assert {key for key in bound if len(key) == 1 and key.isalpha()} == set(BOX_KEYS) == set("abcdefghijklm")
    for language, turn_heading, letters in (("en", "## A turn", "letter"), ("ja", "## 手番", "文字")):
        turn = GAME.help[language].split(turn_heading)[1].split("\n## ")[0]
        assert letters in turn
        for key in ("**1**", "**5**", "**Enter**", "**↑**", "**↓**", "**a**", "**m**"):
            assert key in turn, (language, key)
