"""Settings and setup screens, driven by keys."""

import tomllib

from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.screens.settings_screen import SettingsScreen
from gamenight.screens.setup_screen import SetupScreen
from gamenight.testing import settle
from gamenight.text import NOTICE_PATH_CELLS, shown_path
from gamenight.ui.game_screen import GameScreen


def make_app(registry, config, tmp_path, **kwargs):
    return GameNightApp(registry=registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0, **kwargs)


async def test_settings_save_japanese_names_as_dotted_player_keys(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#player-1").value = "ベルダンディー"
        await pilot.press("ctrl+s")
        await pilot.pause()
    text = path.read_text(encoding="utf-8")
    assert tomllib.loads(text) == {"nim": {"player": {"2": "ベルダンディー"}}}  # only what was changed
    assert text == '[nim]\nplayer.2 = "ベルダンディー"\n'


async def test_settings_refuse_a_bad_name_with_a_message(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        app.screen.query_one("#player-0").value = "長" * 12
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "16 cells" in str(app.screen.query_one("#settings-message").render())
    assert not path.exists()


async def test_settings_never_overwrite_a_malformed_config(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[general\nlanguage = 'ja'\n", encoding="utf-8")
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "line 1" in str(app.screen.query_one("#settings-message").render())
    assert path.read_text(encoding="utf-8") == "[general\nlanguage = 'ja'\n"


async def test_setup_uses_config_names_and_rejects_a_control_character(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[nim]\nplayer.2 = "Skuld"\n', encoding="utf-8")
    app = make_app(nim_registry, Config.load(path), tmp_path, start_game="nim")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert app.screen.query_one("#name-1").value == "Skuld"
        app.screen.query_one("#name-0").value = "A\tB"
        await pilot.press("enter")
        assert isinstance(app.screen, SetupScreen)
        assert "control characters" in str(app.screen.query_one("#setup-error").render())
        app.screen.query_one("#name-0").value = "Kei"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert [seat.name for seat in app.screen.match.seats] == ["Kei", "Skuld"]


async def test_unknown_game_on_the_command_line_is_a_message_not_a_crash(nim_registry, tmp_path):
    app = make_app(nim_registry, Config.load(tmp_path / "c.toml"), tmp_path, start_game="chess")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LobbyScreen"


async def test_bad_config_names_are_notified_once_in_the_room_and_setup_uses_defaults(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[nim]\nplayer.2 = "Bo\\u0007b"\nplayer.3 = "' + "C" * 26 + '"\n', encoding="utf-8")
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(2):
            await pilot.press("enter")  # the lobby's first game: Nim's setup
            await pilot.pause()
            assert isinstance(app.screen, SetupScreen)
            assert [app.screen.query_one(f"#name-{seat}").value for seat in range(3)] == ["Ann", "Bob", "Cid"]
            await pilot.press("escape")
            await pilot.pause()
        shown = [notification.message for notification in app._notifications]
        assert sum("[nim] player.2" in m and "control characters" in m for m in shown) == 1
        assert sum("[nim] player.3" in m and "16 cells" in m for m in shown) == 1


HAND_WRITTEN = """\
# My gamenight settings -- keep these comments!
[nim]   # the sticks game
player.3 = "Ci\\u0007d"     # a bad name, not touched in the dialog
player.1 = 'Kei'          # odd order, literal string
player.2 = "Bob"

[general]
bot_delay = 0.25          # slow, please
saves = "~/my saves"
"""


async def _retype(pilot, app, selector, text):
    field = app.screen.query_one(selector)
    field.focus()
    await pilot.press("end", *["backspace"] * len(field.value), *text)


async def _retype_and_save(pilot, app, selector, text):
    """Retype one field of the settings and press Ctrl+S."""
    await _retype(pilot, app, selector, text)
    await pilot.press("ctrl+s")
    await pilot.pause()


async def test_settings_save_changes_only_the_edited_line_byte_for_byte(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(HAND_WRITTEN.encode())
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        assert app.screen.query_one("#player-2").value == "Cid"  # the bad one: the default shows
        await _retype_and_save(pilot, app, "#player-1", "Urd")
        message = str(app.screen.query_one("#settings-message").render())
        assert message == f"Settings saved to {path}."
        assert not any("Settings saved" in n.message for n in app._notifications)  # no toast over that line
        await pilot.press("escape")
        await pilot.pause()
        said = [n.message for n in app._notifications if "Settings saved" in n.message]  # in the lobby, once
        assert said == [f"Settings saved to {shown_path(path, NOTICE_PATH_CELLS)}."]
        assert said[0].startswith("Settings saved to …/") and said[0].endswith("/config.toml.")
    before, after = HAND_WRITTEN.splitlines(keepends=True), path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(before) == len(after)
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [4]
    assert after[4] == 'player.2 = "Urd"\n'


async def test_settings_never_write_command_line_values_nor_unchosen_language_or_names(nim_registry, tmp_path):
    from gamenight.i18n import set_language

    path = tmp_path / "config.toml"
    path.write_text('[general]\nlanguage = "en"\ntheme = "gamenight"\n', encoding="utf-8")
    set_language("ja")  # as `--lang ja`
    app = GameNightApp(
        registry=nim_registry,
        config=Config.load(path),
        saves_dir=tmp_path / "saves",
        theme_name="gamenight-16",
        bot_delay=0,
    )  # as `--theme gamenight-16 --bot-delay 0`
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("ctrl+s")  # nothing changed: nothing written
        await pilot.pause()
        assert path.read_text(encoding="utf-8") == '[general]\nlanguage = "en"\ntheme = "gamenight"\n'
        await _retype_and_save(pilot, app, "#player-0", "Kei")  # one name changed
    text = path.read_text(encoding="utf-8")
    # no --lang ja, --theme gamenight-16 or --bot-delay 0; no default name Bob/Cid
    assert text == '[general]\nlanguage = "en"\ntheme = "gamenight"\n\n[nim]\nplayer.1 = "Kei"\n'


async def test_settings_write_a_setting_the_person_changed(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("# mine\n[general]\nbot_delay = 0.5  # seconds\n", encoding="utf-8")
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await _retype_and_save(pilot, app, "#bot-delay", "1.5")
        assert app.bot_delay == 1.5
    assert path.read_text(encoding="utf-8") == "# mine\n[general]\nbot_delay = 1.5  # seconds\n"


async def test_settings_keep_names_typed_for_each_game_and_write_no_defaults(tmp_path):
    from gamenight.plugins import load_registry
    from textual.widgets import Select

    path = tmp_path / "config.toml"
    app = make_app(load_registry(), Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        box = app.screen.query_one("#names-game", Select)
        assert box.value == "lits"
        await _retype(pilot, app, "#player-1", "Kei")  # lits seat 2
        box.focus()
        await pilot.press("enter", "down", "down", "down", "enter")  # lits -> mate -> mille -> seven
        await pilot.pause()
        assert box.value == "seven"
        await _retype(pilot, app, "#player-4", "Skuld")  # seven seat 5
        box.focus()
        await pilot.press("enter", "up", "up", "up", "enter")  # back to lits: the typed name is still there
        await pilot.pause()
        assert app.screen.query_one("#player-1").value == "Kei"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert path.read_text(encoding="utf-8") == '[lits]\nplayer.2 = "Kei"\n\n[seven]\nplayer.5 = "Skuld"\n'


async def test_settings_leave_an_untouched_name_with_spaces_as_it_is(nim_registry, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[nim]\nplayer.1 = " Kei "\n', encoding="utf-8")
    app = make_app(nim_registry, Config.load(path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await _retype_and_save(pilot, app, "#player-1", "Urd")
    assert path.read_text(encoding="utf-8") == '[nim]\nplayer.1 = " Kei "\nplayer.2 = "Urd"\n'


async def test_a_hosted_rooms_settings_name_the_file_but_not_the_servers_folders(nim_registry, tmp_path, monkeypatch):
    path = tmp_path / "users" / "g-ann-0123" / "config.toml"
    path.parent.mkdir(parents=True)
    shown = {}
    for hosted in ("0", "1"):
        monkeypatch.setenv("GAMENIGHT_HOSTED", hosted)
        app = make_app(nim_registry, Config.load(path), tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            app.screen.query_one("#player-1").value = f"Ann {hosted}"  # a change each time: "saved to ..."
            await pilot.press("ctrl+s")
            await pilot.pause()
            shown[hosted] = [
                str(app.screen.query_one(selector).render()) for selector in ("#settings-title", "#settings-message")
            ]
    assert all(str(path) in text for text in shown["0"]), shown  # at home: where the file is
    assert all("config.toml" in text and "users" not in text and "g-ann" not in text for text in shown["1"]), shown


def test_every_path_shown_in_a_hosted_room_is_the_file_name_alone(monkeypatch):
    from gamenight.saves import shown
    from gamenight.text import shown_path

    path = "/srv/gamenight/users/g-ann-0123/saves/yatzy-1.toml"
    monkeypatch.setenv("GAMENIGHT_HOSTED", "1")
    assert shown_path(path) == shown(path) == "yatzy-1.toml"
    assert shown_path("/srv/x/evil\x1b]0;title\x07.toml") == "evil]0;title.toml"  # still safe text
    monkeypatch.delenv("GAMENIGHT_HOSTED")
    assert shown_path(path) == path


async def test_a_checkbox_shows_an_x_only_when_it_is_ticked(nim_registry, tmp_path):
    from textual.widgets import Checkbox

    from tests.core.tour import screen_text

    app = make_app(nim_registry, Config.load(tmp_path / "config.toml"), tmp_path, theme_name="gamenight-16")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        box = app.screen.query_one("#hall-of-fame-name", Checkbox)
        line = next(line for line in screen_text(app) if "Show my name" in line)
        assert box.value and "X" in line.split("Show my name")[0]
        box.focus()
        await pilot.press("space")  # unticked
        await pilot.pause()
        assert not box.value
        line = next(line for line in screen_text(app) if "Show my name" in line)
        assert "X" not in line.split("Show my name")[0]


async def test_settings_saved_is_said_in_view_at_80x24(nim_registry, tmp_path):
    from tests.core.tour import screen_text

    folder = tmp_path / "home" / "someone" / ".config" / "gamenight"
    folder.mkdir(parents=True)
    app = make_app(nim_registry, Config.load(folder / "config.toml"), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        assert "Settings — /" in screen_text(app)[0]  # the title keeps the path on its line
        app.screen.query_one("#player-0").value = "Kei"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.pause()
        text = "\n".join(screen_text(app))
        assert "Settings saved to" in text and "config.toml." in text  # whole, in view


async def test_the_settings_open_on_the_language_so_return_and_the_arrows_choose_it(nim_registry, tmp_path):
    """s, Return, ↓, Return: Japanese is chosen (the form itself had the focus: Return did nothing)."""
    app = make_app(nim_registry, Config.load(tmp_path / "config.toml"), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert app.screen.focused is app.screen.query_one("#language")
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert app.screen.query_one("#language").value == "ja"
