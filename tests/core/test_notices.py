"""Notices (Textual's toasts) never cover a dialog, and a long path in one keeps its file name whole.

At 80x24 in both languages: the config's warnings wait under the startup "Resume it?" question
and show once it is answered; a notice raised while a dialog is open, and one already showing when
it opens, show when it closes; "The game was saved to …" names a long path by its last folders.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.dialogs import MessageDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.text import NOTICE_PATH_CELLS, shown_path
from textual.screen import ModalScreen

from tests.core.nim import NIM
from tests.core.tour import screen_text

BAD_CONFIG = '[general]\nbot_delay = "fast"\n'
WARNING = {"en": "bot_delay", "ja": "bot_delay"}
QUESTION = {"en": "Resume it?", "ja": "再開しますか"}


def room(nim_registry, folder: Path, autosave: bool) -> GameNightApp:
    (folder / "config.toml").write_text(BAD_CONFIG, encoding="utf-8")
    app = GameNightApp(
        registry=nim_registry, config=Config.load(folder / "config.toml"), saves_dir=folder / "saves", bot_delay=0
    )
    if autosave:
        app.saves.autosave(Match(NIM, [SeatConfig("Ann"), SeatConfig("Bob")], {}, seed=1))
    return app


def toasts(app) -> list[str]:
    """The text of every toast drawn on the screen on top."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


def overlaps(app) -> list[str]:
    """Toasts whose region meets the region of the dialog's widgets (its frame and what is in it)."""
    dialog = app.screen
    boxes = [child.region for child in dialog.children if child.display and type(child).__name__ != "ToastRack"]
    return [str(toast.render()) for toast in dialog.query("Toast") if any(toast.region.overlaps(box) for box in boxes)]


async def until(pilot, condition, tries: int = 1500) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    assert condition()


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_config_warnings_wait_until_the_startup_question_is_answered(nim_registry, tmp_path, language):
    set_language(language)
    app = room(nim_registry, tmp_path, autosave=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ModalScreen))
        await until(pilot, lambda: any(QUESTION[language] in line for line in screen_text(app)))
        for _ in range(5):
            await pilot.pause(0.02)
        assert toasts(app) == [] and overlaps(app) == []
        assert not any(WARNING[language] in line for line in screen_text(app))  # nothing over the question
        assert any(WARNING[language] in notice.message for notice in app.held_notices)
        await pilot.press("n")
        await until(pilot, lambda: type(app.screen).__name__ == "LobbyScreen")
        await until(pilot, lambda: any(WARNING[language] in text for text in toasts(app)))
        assert app.held_notices == []
        await pilot.pause(0.05)
        assert any("…/" in line and "config.toml:" in line for line in screen_text(app))  # its name whole


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_notice_never_covers_a_dialog_and_shows_when_it_closes(nim_registry, tmp_path, language):
    set_language(language)
    app = room(nim_registry, tmp_path, autosave=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: any(WARNING[language] in text for text in toasts(app)))
        app.push_screen(MessageDialog("Title", "x " * 300))  # a tall dialog, down to the key bar
        await until(pilot, lambda: isinstance(app.screen, MessageDialog))
        app.notify("written to the disk")
        for _ in range(5):
            await pilot.pause(0.02)
        assert toasts(app) == [] and overlaps(app) == []
        lines = screen_text(app)
        assert not any("written to the disk" in line or WARNING[language] in line for line in lines)
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "LobbyScreen")
        await until(pilot, lambda: len(toasts(app)) == 2)
        shown = toasts(app)
        assert WARNING[language] in shown[0] and "written to the disk" in shown[1]  # in the order raised


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_long_path_in_a_notice_keeps_its_file_name_whole(nim_registry, tmp_path, language):
    set_language(language)
    app = room(nim_registry, tmp_path, autosave=False)
    path = Path("/home/someone-with-a-long-name/.local/share/gamenight/saves/yatzy-20261203-142500.toml")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.clear_notifications()
        app.saves.keep_shared = lambda *args: path  # a shared game's end, kept under a long path
        app._record_shared = lambda kept: None
        app._keep_finished(SimpleNamespace(table=None, save=None))
        await until(pilot, lambda: len(toasts(app)) == 1)
        await pilot.pause(0.05)
        toast = app.screen.query_one("Toast")
        lines = screen_text(app)
        assert ("終了" if language == "ja" else "Quit") in lines[-1]  # the key bar stays in view
        inside = lines[toast.content_region.y : toast.content_region.bottom]
        assert any("…/yatzy-20261203-142500.toml" in line for line in inside), inside  # on one line
        ending = "保存しました" if language == "ja" else "The game was saved to"
        assert any(ending in line for line in inside), inside  # the whole sentence


def test_shown_path_keeps_the_file_name_and_the_folders_nearest_it():
    long = "/home/someone-with-a-long-name/.config/gamenight/config.toml"
    assert shown_path(long) == long
    assert shown_path(long, NOTICE_PATH_CELLS) == "…/.config/gamenight/config.toml"
    assert shown_path("/a/b/config.toml", NOTICE_PATH_CELLS) == "/a/b/config.toml"
    name = "a-file-name-longer-than-the-notice-is-wide.toml"
    assert shown_path(f"/tmp/{name}", NOTICE_PATH_CELLS) == f"…/{name}"  # never cut in its name


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_notice_leaves_the_settings_message_line_whole(nim_registry, tmp_path, language):
    set_language(language)
    app = room(nim_registry, tmp_path, autosave=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: any(WARNING[language] in text for text in toasts(app)))  # the config's, 12 s
        await pilot.press("s")
        await until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen")
        app.screen.query_one("#bot-delay").focus()
        await pilot.press("ctrl+a", "ctrl+k", "9", "ctrl+s")
        await pilot.pause(0.05)
        message = app.screen.query_one("#settings-message")
        said = str(message.render())
        assert said.startswith("ボットの待ち時間" if language == "ja" else "Bot delay must be")
        assert toasts(app)  # the notice still shows…
        row = screen_text(app)[message.region.y]
        assert said in row  # …and the line is whole, nothing drawn over it
