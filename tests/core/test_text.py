"""One sanitiser for outside text: names, plugin errors, file names, the save prompt."""

from __future__ import annotations

import dataclasses
import unicodedata

import pytest
from gamenight.app import GameNightApp
from gamenight.dialogs import MessageDialog, TextPrompt
from gamenight.match import Match, SeatConfig
from gamenight.plugins import Registry
from gamenight.saves import SaveError, load_match, save_match
from gamenight.sdk import IllegalAction
from gamenight.testing import settle
from gamenight.text import MAX_TEXT_CHARS, safe_text, validate_name
from gamenight.ui.game_screen import GameScreen, StatusLine
from textual import events
from textual.widgets import Input, Label, Static

from tests.core.nim import NIM, NimRules

OSC_PAYLOAD = "\x1b]52;c;SGVsbG8=\x1b\\\x1b]0;PWNED\x1b\\Ann"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (OSC_PAYLOAD, "control characters"),
        ("A" + "\u0301" * 5000, "combining marks"),
        ("\u0301Ann", "combining marks"),
        ("Ann\u0301\u0301\u0301", "combining marks"),
        ("\u3164", "invisible"),
        ("\u2800", "invisible"),
        ("\u115f", "invisible"),
        ("\uffa0", "invisible"),
        ("Ann\u3164", "invisible"),
        ("\u202eAnn", "control characters"),
        ("An\u200bn", "control characters"),
        ("Ann\u2066", "control characters"),
        ("Ann\ue000", "control characters"),
        ("Ann[/]", "square brackets"),
        ("[b]Bob", "square brackets"),
        ("", "empty"),
        (" \u3000 ", "empty"),
        ("x" * 17, "at most 16 cells"),
        ("x" * 50_000_000, "at most 16 cells"),
        (None, "must be text"),
    ],
    ids=[
        "osc-52",
        "5000-combining",
        "leading-combining",
        "3-combining",
        "u3164",
        "u2800",
        "u115f",
        "uffa0",
        "padded-filler",
        "rlo",
        "zwsp",
        "lri",
        "private-use",
        "markup-close",
        "markup-style",
        "empty",
        "blank",
        "17-cells",
        "50-mb",
        "not-text",
    ],
)
def test_validate_name_refuses_what_could_rewrite_or_hide_the_screen(name, reason):
    assert reason in (validate_name(name) or "")


@pytest.mark.parametrize(
    "name",
    [
        "Ann",
        "長" * 8,
        "x" * 16,
        "Nguyễn",
        unicodedata.normalize("NFD", "Nguyễn"),
        unicodedata.normalize("NFD", "ガンダム"),
        "Zoë",
        "Anne-Marie O'Neil"[:16],
        "🎲 Dice",
    ],
)
def test_validate_name_accepts_real_names(name):
    assert validate_name(name) is None


def test_safe_text_drops_controls_and_bidi_and_bounds_length():
    assert safe_text(OSC_PAYLOAD) == "]52;c;SGVsbG8=\\]0;PWNED\\Ann"
    assert safe_text("a\u202eb\u200bc\u2066d\u00ade\tf\ng") == "abcde fg"
    assert safe_text("line 1\nline 2", multiline=True) == "line 1\nline 2"
    assert safe_text("e" + "\u0301" * 5000) == "e\u0301\u0301"
    long = safe_text("x" * 100_000)
    assert len(long) == MAX_TEXT_CHARS and long.endswith("…")
    assert safe_text(ValueError("bad \x1b[2J")) == "bad [2J"


def test_safe_text_leaves_ordinary_text_alone():
    text = "Mille Bornes — 日本語のテキスト、Nguyễn (1000) [b]"
    assert safe_text(text) == text


# -- where outside text reaches the screen --------------------------------------------------------


def rendered(widget: Static) -> str:
    return str(widget.render())


def nim_app(tmp_path, registry, **kwargs) -> GameNightApp:
    from gamenight.config import Config

    return GameNightApp(
        registry=registry,
        config=Config.load(tmp_path / "config.toml"),
        saves_dir=tmp_path / "saves",
        bot_delay=0,
        **kwargs,
    )


def nim_match(registry) -> Match:
    """Ann against the first bot, at Nim (seed 1)."""
    return Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {}, seed=1)


async def press_to(pilot, key: str, kind: type):
    """Once the room is settled, press ``key``: the screen it opens, which must be a ``kind``."""
    await settle(pilot)
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, kind), pilot.app.screen
    return pilot.app.screen


async def test_a_save_with_an_escape_sequence_in_a_name_is_refused_with_the_reason(tmp_path, nim_registry):
    match = Match(nim_registry.game("nim"), [SeatConfig(OSC_PAYLOAD), SeatConfig("Bob", "first")], {}, seed=1)
    path = save_match(match, tmp_path / "evil.toml")
    with pytest.raises(SaveError, match="Seat 1's name in the save is refused: A name cannot contain control"):
        load_match(nim_registry, path)
    app = nim_app(tmp_path, nim_registry, start_save=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MessageDialog)
        shown = str(app.screen.query_one("#message", Label).render())
        assert "Seat 1's name" in shown and "\x1b" not in shown and "PWNED" not in shown


async def test_a_resumed_file_name_with_controls_is_shown_harmlessly(tmp_path, nim_registry):
    match = nim_match(nim_registry)
    path = save_match(match, tmp_path / "x\x1b]0;PWNED\x07\u202e.toml")
    app = nim_app(tmp_path, nim_registry, start_save=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        await pilot.press("ctrl+s")  # saves back to the file it came from and says where
        await pilot.pause()
        shown = rendered(app.screen.query_one(StatusLine).query_one("#message", Static))
        assert "Saved to" in shown and "PWNED" in shown
        assert not any(unicodedata.category(ch) in {"Cc", "Cf"} for ch in shown)


async def test_the_save_prompt_drops_bidi_zero_width_and_escape_characters(tmp_path, nim_registry):
    match = nim_match(nim_registry)
    app = nim_app(tmp_path, nim_registry, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = (await press_to(pilot, "ctrl+s", TextPrompt)).query_one(Input)
        answer.value = ""
        answer.post_message(events.Paste("my\u202egame\u200b\x1b[31m"))
        await pilot.pause()
        assert answer.value == "mygame[31m"
        await pilot.press("enter")
        await pilot.pause()
    assert [p.name for p in (tmp_path / "saves").glob("my*")] == ["mygame-31m.toml"]


@pytest.mark.parametrize(("language", "keys"), [("en", "⏎ Save  esc Back"), ("ja", "⏎ 保存  esc 戻る")])
async def test_the_save_prompts_key_bar_names_return_as_well_as_escape(tmp_path, nim_registry, language, keys):
    """The save prompt's bar said only "esc Back", as if leaving were the one way out of it."""
    from gamenight.i18n import set_language
    from gamenight.widgets.key_bar import KeyBar

    set_language(language)
    try:
        match = nim_match(nim_registry)
        app = nim_app(tmp_path, nim_registry, start_match=match)
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = await press_to(pilot, "ctrl+s", TextPrompt)
            assert keys in str(prompt.query_one(KeyBar).render())
            app.screen.query_one(Input).value = "kept"
            await pilot.click(KeyBar, offset=(2, 0))  # the bar's key is a button too
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
    finally:
        set_language("en")
    assert [p.name for p in (tmp_path / "saves").glob("kept*")] == ["kept.toml"]


class HostileRules(NimRules):
    """Nim whose refusals carry an escape sequence, as a careless or hostile plugin might."""

    def apply(self, state, action):
        if action == "3":
            raise IllegalAction("\x1b]0;PWNED\x07\u202eNo [/red] three")
        return super().apply(state, action)


async def test_a_plugin_error_text_reaches_the_status_line_without_its_controls(tmp_path):
    registry = Registry()
    registry.games["nim"] = dataclasses.replace(NIM, rules=HostileRules())
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {}, seed=1)
    app = nim_app(tmp_path, registry, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await pilot.pause()
        shown = rendered(app.screen.query_one(StatusLine).query_one("#message", Static))
    assert shown == "]0;PWNEDNo [/red] three"


async def test_names_with_markup_from_a_match_do_not_break_the_table(tmp_path, nim_registry):
    # Names are validated on the way in; the table still shows any name literally.
    match = Match(
        nim_registry.game("nim"), [SeatConfig("Ann[/]"), SeatConfig("[b]Bob", "first")], {"sticks": 3}, seed=1
    )
    app = nim_app(tmp_path, nim_registry, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Ann[/] to move" in rendered(app.screen.query_one("#title-bar", Static))
        await pilot.press("3")
        await settle(pilot)
        assert app.return_code is None
        assert "Winner: Ann[/]" in str(app.screen.query_one("#headline", Label).render())


async def test_the_saves_list_shows_hostile_file_names_harmlessly(tmp_path, nim_registry):
    match = nim_match(nim_registry)
    (tmp_path / "saves").mkdir()
    save_match(match, tmp_path / "saves" / "x[b]\x1b]0;PWNED\x07\u202e[@click=app.quit].toml")
    app = nim_app(tmp_path, nim_registry)
    async with app.run_test(size=(80, 24)) as pilot:
        from gamenight.screens.saves_screen import SavesScreen
        from textual.widgets import OptionList

        saves = await press_to(pilot, "r", SavesScreen)
        shown = str(saves.query_one(OptionList).get_option_at_index(0).prompt)
        assert shown.startswith("x[b]]0;PWNED[@click=app.quit].toml ")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.return_code is None


def test_fit_and_pad_cells_count_wide_characters_as_two():
    from gamenight.text import fit_cells, pad_cells
    from rich.cells import cell_len

    assert fit_cells("ベルダンディー", 10) == "ベルダン…"  # 9 cells: the next wide character would straddle the edge
    assert fit_cells("ベルダンディー", 9) == "ベルダン…" and fit_cells("Urd", 3) == "Urd"
    assert fit_cells("ab  cd", 5) == "ab  …"  # the text's own spaces stay
    assert fit_cells("abc", 0) == "" and fit_cells("abc", 1) == "…"
    assert cell_len(pad_cells(fit_cells("ヴェルダンディー", 7), 7)) == 7
