import pytest
from gamenight.app import THEME_VARIABLE_DEFAULTS
from gamenight.themes import builtin_theme_dir, load_themes, theme_from_mapping


def test_three_builtin_themes_load_and_define_every_game_variable():
    loaded = load_themes([])
    assert loaded.errors == []
    assert {"gamenight", "gamenight-16", "gamenight-contrast"} <= set(loaded.themes)
    from gamenight.plugins import load_registry

    games = load_registry().games
    every_game = {name for game in games.values() for name in game.theme_variables}
    assert {"lits-shape-l", "lits-ghost-bad"} <= every_game
    for theme in loaded.themes.values():
        assert set(THEME_VARIABLE_DEFAULTS) | every_game <= set(theme.variables), theme.name


def test_sixteen_colour_theme_uses_only_ansi_colours():
    theme = load_themes([]).themes["gamenight-16"]
    colours = [theme.primary, theme.secondary, theme.accent, theme.background, *theme.variables.values()]
    assert theme.ansi and all(c.startswith("ansi_") or c in {"none", "reverse"} for c in colours)


def test_broken_user_themes_are_reported_and_skipped(tmp_path):
    (tmp_path / "bad.toml").write_text('name = "bad"\nprimary = \n', encoding="utf-8")
    (tmp_path / "odd.toml").write_text('name = "odd"\nprimary = "red"\nsparkle = true\n', encoding="utf-8")
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#112233"\n', encoding="utf-8")
    loaded = load_themes([], tmp_path)
    assert "mine" in loaded.themes
    assert len(loaded.errors) == 2 and any("odd.toml" in e and "unknown" in e for e in loaded.errors)


def test_bad_colour_is_an_error_naming_the_file():
    with pytest.raises(ValueError, match=r"x\.toml"):
        theme_from_mapping({"name": "x", "primary": "not-a-colour"}, "x.toml")


def test_builtin_theme_dir_is_the_checkout_themes_folder():
    assert (builtin_theme_dir() / "gamenight.toml").exists()


GOOD = 'name = "mine"\nprimary = "#112233"\n'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (GOOD + "[variables]\ntable-felt = " + "[" * 600 + "]" * 600 + "\n", "nested too deeply"),
        (GOOD + "[variables]\n" + "a." * 600 + "b = 1\n", "nested too deeply"),
        (GOOD + '[variables]\ntable-felt = "notacolour"\n', "variables.table-felt"),
        (GOOD + '[variables]\ntable-felt = "#12345"\n', "variables.table-felt"),
        (GOOD + '[variables]\ntable-felt = "red; } Screen { color: blue"\n', "variables.table-felt"),
        (GOOD + '[variables]\nblock-cursor-text-style = "blink-ish"\n', "variables.block-cursor-text-style"),
        (GOOD + '[variables]\n"Bad Name" = "red"\n', "Bad Name"),
        (GOOD + "[variables]\ntable-felt = 7\n", "variables.table-felt"),
        (GOOD + 'dark = "yes"\n', "dark"),
        (GOOD + "luminosity_spread = 1e999\n", "luminosity_spread"),
        (GOOD + "text_alpha = nan\n", "text_alpha"),
        (GOOD + 'background = "' + "f" * 10000 + '"\n', "background"),
        (GOOD + 'surface = "nope"\n', "surface"),
        ('name = "a b"\nprimary = "red"\n', "name"),
        ('name = 5\nprimary = "red"\n', "name"),
        (GOOD + "# pad\n" * 20000, "64 KiB"),
        (GOOD + "text_alpha = 1" + "0" * 5000 + "\n", "out of range"),
    ],
)
def test_bad_theme_files_are_reported_naming_file_and_key_and_skipped(tmp_path, text, says):
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    loaded = load_themes([], tmp_path)
    assert "mine" not in loaded.themes and {"gamenight", "gamenight-16", "gamenight-contrast"} <= set(loaded.themes)
    assert len(loaded.errors) == 1 and "mine.toml" in loaded.errors[0] and says in loaded.errors[0]
    assert list(loaded.broken.values()) == loaded.errors


def test_variables_in_textual_forms_are_accepted(tmp_path):
    (tmp_path / "mine.toml").write_text(
        GOOD + '[variables]\ntable-felt = "ansi_green"\ntext-muted = "auto 60%"\nlink-style = "bold not underline"\n'
        'border = "rgb(1, 2, 3)"\n',
        encoding="utf-8",
    )
    assert load_themes([], tmp_path).errors == []


def _app(nim_registry, tmp_path, theme):
    from gamenight.app import GameNightApp
    from gamenight.config import Config

    config_path = tmp_path / "config.toml"
    config_path.write_text(f'[general]\ntheme = "{theme}"\n', encoding="utf-8")
    return GameNightApp(
        registry=nim_registry, config=Config.load(config_path), saves_dir=tmp_path / "saves", bot_delay=0
    )


async def test_a_broken_theme_that_is_not_selected_does_not_stop_the_room(nim_registry, tmp_path):
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "deep.toml").write_text(
        'name = "deep"\nprimary = "red"\nx = ' + "[" * 900 + "]" * 900 + "\n", encoding="utf-8"
    )
    app = _app(nim_registry, tmp_path, "gamenight-contrast")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LobbyScreen" and app.theme == "gamenight-contrast"
        assert any("deep.toml" in error and "nested too deeply" in error for error in app.theme_errors)


async def test_a_selected_broken_theme_falls_back_to_the_default_with_a_message(nim_registry, tmp_path):
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text(GOOD + '[variables]\ntable-felt = "notacolour"\n', encoding="utf-8")
    app = _app(nim_registry, tmp_path, "mine")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LobbyScreen" and app.theme == "gamenight"
        messages = [notification.message for notification in app._notifications]
        assert any(
            "'mine'" in m and "using gamenight" in m and "mine.toml" in m and "variables.table-felt" in m
            for m in messages
        ), messages


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_palettes_theme_list_offers_only_gamenights_themes(nim_registry, tmp_path, language):
    """Ctrl+P → Theme lists the shipped themes and the user's, never Textual's unchecked built-ins."""
    from gamenight.i18n import set_language
    from textual.command import CommandList, CommandPalette

    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text(GOOD, encoding="utf-8")
    set_language(language)
    app = _app(nim_registry, tmp_path, "gamenight")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "LobbyScreen"
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*("テーマ" if language == "ja" else "theme"))
        title = "テーマ" if language == "ja" else "Theme"

        def offered() -> list[str]:
            return [str(option.prompt).split("\n")[0] for option in app.screen.query_one(CommandList).options]

        for _ in range(100):  # the palette searches in the background
            await pilot.pause(0.05)
            if title in offered():
                break
        hits = app.screen.query_one(CommandList)
        await pilot.press("down")
        while hits.highlighted != offered().index(title):
            await pilot.press("down")
        await pilot.press("enter")
        names: list[str] = []
        for _ in range(100):  # the theme palette lists every theme once its search is done
            await pilot.pause(0.05)
            if isinstance(app.screen, CommandPalette) and "gamenight" in (names := offered()):
                break
        assert sorted(names) == ["gamenight", "gamenight-16", "gamenight-contrast", "mine"]
        from textual.command import CommandInput

        prompt = app.screen.query_one(CommandInput).placeholder
        assert prompt == ("テーマを検索…" if language == "ja" else "Search for themes…")
        assert sorted(app.available_themes) == sorted(names)  # the settings' list is the same
        await pilot.press("escape")


@pytest.mark.parametrize(
    ("count", "said"),
    [
        (1, ["⚠ A theme file could not be loaded", "⚠ A theme variable is renamed or unknown"]),
        (2, ["⚠ 2 theme files could not be loaded", "⚠ 2 theme variables renamed or unknown"]),
    ],
)
async def test_the_lobbys_theme_warnings_say_one_or_several_in_words(nim_registry, tmp_path, count, said):
    """The lobby said "⚠ 1 theme file(s) could not be loaded": now one, or a count in the plural."""
    app = _app(nim_registry, tmp_path, "gamenight")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.theme_errors = [f"bad{n}.toml: no primary" for n in range(count)]
        app.theme_notices = [f"old-name-{n}" for n in range(count)]
        notices = app.screen._notices()
        assert all(words in notices for words in said) and "(s)" not in notices, notices
