"""The Resume screen: its title (the saves folder at home, never the server's path in a hosted room), its keys."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.saves import save_match
from gamenight.screens.saves_screen import SavesScreen
from gamenight.testing import settle
from textual.widgets import Static

from tests.core.test_text import nim_app, nim_match, press_to


@pytest.mark.parametrize("hosted", ["1", ""])
async def test_the_resume_screen_shows_the_saves_folder_only_outside_a_hosted_room(
    tmp_path, nim_registry, monkeypatch, hosted
):
    monkeypatch.setenv("GAMENIGHT_HOSTED", hosted)
    match = nim_match(nim_registry)
    (tmp_path / "saves").mkdir()
    save_match(match, tmp_path / "saves" / "nim-1.toml")
    app = nim_app(tmp_path, nim_registry)
    async with app.run_test(size=(80, 24)) as pilot:
        title = str((await press_to(pilot, "r", SavesScreen)).query_one("#saves-title", Static).render())
    if hosted:
        assert title == "Saved games" and str(tmp_path) not in title
    else:
        assert title == f"Saved games in {tmp_path / 'saves'}"


def test_the_hosted_title_is_translated():
    set_language("ja")
    try:
        from gamenight.i18n import _

        assert _("Saved games") == "セーブデータ"
    finally:
        set_language("en")


@pytest.mark.parametrize(("language", "resume", "back"), [("en", "Resume", "Back"), ("ja", "再開", "戻る")])
async def test_the_key_bar_names_return_which_resumes_the_highlighted_save(
    tmp_path, nim_registry, language, resume, back
):
    """Return resumes the highlighted save, yet the bar showed only ``esc Back``: it names Return
    too (in both languages), its entry resumes, and with no save to resume it is not there."""
    from gamenight.widgets.key_bar import KeyBar

    set_language(language)
    try:
        app = nim_app(tmp_path, nim_registry)
        async with app.run_test(size=(80, 24)) as pilot:
            line = str((await press_to(pilot, "r", SavesScreen)).query_one(KeyBar).render())
            assert resume not in line and f"esc {back}" in line, line  # nothing to resume yet
            await pilot.press("escape")

            save_match(nim_match(nim_registry), app.saves.folder / "nim-1.toml")
            bar = (await press_to(pilot, "r", SavesScreen)).query_one(KeyBar)
            line = str(bar.render())
            assert f"⏎ {resume}" in line and f"esc {back}" in line, line
            entry = next(entry for entry in bar._entries if entry.key == "enter")
            await pilot.click(KeyBar, offset=(entry.start + 1, 0))  # the bar's entry: Return
            await settle(pilot)
            assert not isinstance(app.screen, SavesScreen)
            assert app.screen.match.game.id == "nim"
    finally:
        set_language("en")
