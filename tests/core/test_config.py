import pytest
from gamenight.config import Config, ConfigError, validate_name


def test_missing_file_gives_defaults(tmp_path):
    config = Config.load(tmp_path / "none.toml")
    assert config.error is None and config.bot_delay == 0.5


def test_seven_style_dotted_names_are_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[seven]\nplayer.1 = "あなた"\nplayer.3 = "Belldandy"\n', encoding="utf-8")
    config = Config.load(path)
    names = config.seat_names("seven", ["You", "Urd", "B", "Skuld", "Marller"], 5)
    assert names == ["あなた", "Urd", "Belldandy", "Skuld", "Marller"]


def test_default_section_applies_to_every_game(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[default]\nplayer.1 = "Kei"\n', encoding="utf-8")
    assert Config.load(path).seat_names("yatzy", [], 2) == ["Kei", "Player 2"]


def test_malformed_file_names_the_line_and_is_never_overwritten(tmp_path):
    path = tmp_path / "config.toml"
    text = '[general]\nlanguage = "ja"\ntheme = \n'
    path.write_text(text, encoding="utf-8")
    config = Config.load(path)
    assert "line 3" in config.error
    assert config.language is None  # defaults
    config.set_general("theme", "gamenight")
    with pytest.raises(ConfigError):
        config.save()
    assert path.read_text(encoding="utf-8") == text


def test_bad_names_get_a_message_and_the_default(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[seven]\nplayer.2 = "Ur\\u0007d"\nplayer.3 = "' + "長" * 9 + '"\n', encoding="utf-8")
    config = Config.load(path)
    assert config.seat_names("seven", ["You", "Urd", "Belldandy"], 3) == ["You", "Urd", "Belldandy"]
    assert any("control characters" in w for w in config.warnings)
    assert any("16 cells" in w for w in config.warnings)


def test_name_width_is_measured_in_cells():
    assert validate_name("長" * 8) is None  # 16 cells
    assert validate_name("長" * 9) is not None  # 18 cells
    assert validate_name("x" * 16) is None
    assert validate_name("  ") is not None


def test_save_round_trips_with_dotted_keys(tmp_path):
    config = Config.load(tmp_path / "sub" / "config.toml")
    config.set_name("seven", 0, "ケイ")
    config.set_general("language", "ja")
    config.save()
    again = Config.load(tmp_path / "sub" / "config.toml")
    assert again.language == "ja" and again.seat_names("seven", [], 1) == ["ケイ"]
    with pytest.raises(ValueError):
        config.set_name("seven", 1, "bad\nname")
