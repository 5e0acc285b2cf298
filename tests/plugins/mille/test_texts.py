"""Every text of the game is translated into Japanese, placeholders intact; help in both languages."""

from __future__ import annotations

from pathlib import Path

import gamenight_mille
from gamenight.testing import missing_translations
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import CARD_NAMES, SCORE_LINES
from gamenight_mille.widgets import COMMANDS

REFUSALS = (
    "only two 200's per hand", "limit of 50", "puts you over {trip}", "cannot move now",
    "opponent cannot go", "opponent is protected", "opponent has limit", 'cannot play "Go" on a "{card}"',
    "not limited", 'can\'t play "{card}"',
)  # fmt: skip


def test_every_message_has_a_japanese_translation_with_the_same_placeholders():
    also = [
        *CARD_NAMES[5:],
        *SCORE_LINES,
        "Hand Total",
        "Overall Total",
        "Games",
        *REFUSALS,
        *(label for _key, label in COMMANDS),
        "stop ordering",
        GAME.title,
        GAME.description,
        *(bot.label for bot in GAME.bots),
        *(bot.description for bot in GAME.bots),
        *(option.label for option in GAME.options),
    ]
    root = Path(gamenight_mille.__file__).parent
    assert missing_translations(root, GAME.translations["ja"], also=also) == []


def test_the_help_screen_has_the_rules_in_english_and_japanese():
    assert "coup fourré" in GAME.help["en"].lower()
    assert "クー・フーレ" in GAME.help["ja"]


def test_log_sentences_name_the_seats_as_the_table_does():
    import random

    from gamenight.sdk import CHANCE, fill_seat_names

    rules = GAME.rules
    state = rules.new_game(2, {})
    state = rules.apply(state, rules.sample_chance(state, random.Random(1)))
    assert rules.to_move(state) != CHANCE
    seat = rules.to_move(state)
    text = rules.describe_action(state, "draw", seat)
    assert "You" not in text and "Computer" not in text  # no fixed names: the room fills them in
    assert fill_seat_names(text, ["Ann", "Bob"]) == f"{['Ann', 'Bob'][seat]} drew a card."


def test_long_log_lines_wrap_at_a_word_and_the_newest_shows_whole():
    """The score window cut log lines at 40 cells, mid-word ("コンピュータ は あなた に 速度…")."""
    from gamenight_mille.widgets import log_lines, score_header
    from rich.cells import cell_len

    english = [
        "You drew a card.",
        "Belldandy-the-goddess played Right of Way: Coup Fourré!",
        "Computer played Speed Limit on Belldandy-the-goddess.",
    ]
    lines = log_lines(english, 3)
    assert len(lines) == 3 and all(cell_len(line) <= 40 for line in lines)
    assert " ".join(line.strip() for line in lines[1:]) == english[-1]  # the newest, whole, over two lines
    japanese = [
        "ベルダンディがコンピュータに速度制限を出しました。",
        "コンピュータが優先通行権を出しました：クー・フーレ！",
    ]
    lines = log_lines(japanese, 3)
    assert all(cell_len(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines[1:]) == japanese[-1]  # the newest, whole
    assert [line.strip() for line in lines[1:]] == [
        "コンピュータが優先通行権を",  # broken at a phrase
        "出しました：クー・フーレ！",
    ]
    # the window's header keeps both default names whole in both languages
    assert score_header(("あなた", "コンピュータ")).split() == ["あなた", "コンピュータ"]
    assert score_header(("You", "Computer")) == " " * 28 + "You Computer"
