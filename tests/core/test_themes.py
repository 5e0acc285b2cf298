import pytest
from gamenight.app import THEME_VARIABLE_DEFAULTS
from gamenight.themes import builtin_theme_dir, load_themes, theme_from_mapping


def test_three_builtin_themes_load_and_define_every_game_variable():
    loaded = load_themes([])
    assert loaded.errors == []
    assert {"gamenight", "gamenight-16", "gamenight-contrast"} <= set(loaded.themes)
    for theme in loaded.themes.values():
        assert set(THEME_VARIABLE_DEFAULTS) <= set(theme.variables), theme.name


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
