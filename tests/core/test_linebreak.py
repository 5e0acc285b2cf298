"""Japanese line breaking (gamenight.linebreak) and the help screens that use it."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from gamenight.linebreak import NO_END, NO_START, break_opportunities, divide_line, wrap
from hypothesis import given, settings
from hypothesis import strategies as st
from rich._wrap import divide_line as rich_divide_line
from rich.cells import cell_len

TEXT = (
    "手番のプレイヤーがどのピースも置けなくなったら終了です。覆われていない自分のマークの数が多い方が"
    "勝ちです。最適な戦略（1000 点）は「キープ」です。Queen の後は Python の高速アプリケーションです。"
)


def test_no_closing_mark_starts_a_line_and_no_opening_bracket_ends_one():
    for width in range(6, 60):
        lines = wrap(TEXT, width)
        assert "".join(lines).replace(" ", "") == TEXT.replace(" ", ""), width  # nothing lost or doubled
        for line in lines:
            assert line and line[0] not in NO_START, (width, lines)
            assert line[-1] not in NO_END, (width, lines)


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("終了です。覆われていない", 14, ["終了です。", "覆われていない"]),  # "。" stays with its sentence
        ("置きます「キープ」です", 14, ["置きます", "「キープ」です"]),  # "「" never ends a line
        ("ちょっとだけ", 6, ["ちょっ", "とだけ"]),  # small kana never start a line, even folded
        ("戦略は1000点", 6, ["戦略は", "1000点"]),  # a number is never cut
        (
            "さらに 300 点、次に 2 枚取ります",
            12,
            ["さらに", "300 点、次に", "2 枚取ります"],
        ),  # nor parted from its counter
        ("最適な戦略です", 8, ["最適な", "戦略です"]),  # words stay whole: not "最" / "適"
        ("Queen の後は", 8, ["Queen の", "後は"]),  # Latin and Japanese mixed
    ],
)
def test_kinsoku_and_words(text, width, expected):
    assert wrap(text, width) == expected


def test_a_phrase_longer_than_the_line_breaks_between_characters_still_obeying_kinsoku():
    lines = wrap("アプリケーションフレームワーク", 6)
    assert all(cell_len(line) <= 6 for line in lines)
    assert not any(line[0] in NO_START for line in lines)  # "ー" never starts a line
    assert "".join(lines) == "アプリケーションフレームワーク"


def test_english_is_wrapped_exactly_as_rich_does():
    text = "Play a card of the suit or rank of the last card turned; a Queen calls a suit. 1000 points"
    for width in range(1, 40):
        assert divide_line(text, width) == rich_divide_line(text, width)


def test_break_opportunities_are_phrases_spaces_and_never_inside_latin_words():
    preferred, fallback = break_opportunities("Queen の後はコールされた絵柄。")
    text = "Queen の後はコールされた絵柄。"
    assert text.index("の") in preferred  # after the space
    assert text.index("コ") in preferred  # a phrase boundary (BudouX)
    assert not any(0 < i < 5 for i in preferred + fallback)  # inside "Queen"
    assert text.index("。") not in preferred + fallback


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("あいうえおかっゃーアイウ漢字、。「」（）・ABC12 ")), max_size=60),
    st.integers(min_value=2, max_value=30),
)
def test_width_is_never_exceeded_and_no_character_is_lost(text, width):
    lines = wrap(text, width)
    assert all(cell_len(line) <= width for line in lines), lines
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line[:1].isspace() for line in lines[1:]), lines  # a break never leaves a space ahead


async def _help_lines(game_id: str, language: str) -> list[str]:
    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.i18n import set_language
    from gamenight.plugins import load_registry
    from gamenight.screens.help_screen import HelpScreen
    from gamenight.testing import settle

    from tests.core.tour import screen_text

    set_language(language)
    registry = load_registry()
    with tempfile.TemporaryDirectory() as folder:
        app = GameNightApp(
            registry=registry,
            config=Config.load(Path(folder) / "config.toml"),
            saves_dir=Path(folder) / "saves",
            bot_delay=0,
            theme_name="gamenight",
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.push_screen(HelpScreen(registry.games[game_id]))
            await pilot.pause()
            await pilot.pause()
            lines: list[str] = []
            previous: list[str] = []
            for _page in range(40):  # page down through the whole text, as a reader does
                page = [line.strip() for line in screen_text(app)[1:-1]]
                if page == previous:  # the end of the text: Page Down moves it no more
                    return lines
                lines += page
                previous = page
                await pilot.press("pagedown")
                await pilot.pause()
            raise AssertionError(f"{game_id}: the help still moved after 40 pages")


@pytest.mark.parametrize("game_id", ["lits", "mate", "mille", "seven", "yatzy"])
async def test_japanese_help_breaks_lines_as_japanese_does(game_id):
    lines = await _help_lines(game_id, "ja")
    text = [line.lstrip("•*-│┃▊▎ ").strip() for line in lines]
    text = [line for line in text if line and not set(line) <= set("─━═-|│ ")]
    assert text
    for line in text:
        assert line[0] not in "、。）」』，．", f"{game_id}: a line starts with {line[0]!r}: {line!r}"
        assert line[-1] not in "（「『", f"{game_id}: a line ends with {line[-1]!r}: {line!r}"
        assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff] [\u3040-\u30ff\u4e00-\u9fff]", line), (
            f"{game_id}: a stray space between Japanese words: {line!r}"
        )
