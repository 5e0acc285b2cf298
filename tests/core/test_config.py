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


ISSUE_13_FILE = '[seven]\nplayer.3 = "Bell\\u0007dandy"\nplayer.4 = "' + "Skuld the youngest Norn xx" + '"\n'


def test_bad_names_are_reported_when_the_file_is_read_naming_key_and_reason(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(ISSUE_13_FILE, encoding="utf-8")
    config = Config.load(path)  # nothing asked for a name yet: the room shows these at start
    assert len(config.warnings) == 2
    bell, skuld = config.warnings
    assert str(path) in bell and "[seven] player.3" in bell and "control characters" in bell
    assert "[seven] player.4" in skuld and "16 cells" in skuld
    assert "\x07" not in bell
    assert config.seat_names("seven", ["You", "Urd", "Belldandy", "Skuld"], 4)[2:] == ["Belldandy", "Skuld"]
    assert len(config.warnings) == 2  # asking again adds nothing


@pytest.mark.parametrize(
    "name", ["A\x1b]0;x\x07", "x" * 17, "\u3164", "\u2800\u2800", "  ", "[b]Kei", "e\u0301\u0301\u0301", "Ann\u202e", 7]
)
def test_config_names_follow_the_setup_rule(tmp_path, name):
    import tomli_w

    path = tmp_path / "config.toml"
    path.write_text(tomli_w.dumps({"mille": {"player": {"2": name}}}), encoding="utf-8")
    config = Config.load(path)
    reason = validate_name(name)
    assert reason is not None
    assert config.warnings == [f"{path}: [mille] player.2: {reason} Using the default name."]
    assert config.seat_names("mille", ["You", "Bot"], 2) == ["You", "Bot"]


def test_cli_prints_config_problems_on_stderr(tmp_path, monkeypatch, capsys):
    from gamenight.app import GameNightApp
    from gamenight.cli import main

    path = tmp_path / "config.toml"
    path.write_text(ISSUE_13_FILE, encoding="utf-8")
    started = []
    monkeypatch.setattr(GameNightApp, "run", lambda self: started.append(self.config))
    monkeypatch.setattr("gamenight.cli._terminal_problem", lambda: None)  # as in a terminal
    assert main(["--config", str(path), "--saves", str(tmp_path / "saves"), "--lang", "en"]) == 0
    err = capsys.readouterr().err
    assert "[seven] player.3" in err and "control characters" in err and "[seven] player.4" in err
    assert "\x07" not in err
    assert started and started[0].warnings  # the room gets them too


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('[seven.player]\n1 = "A"  # me\n', '[seven.player]\n1 = "Kei"  # me\n'),
        ('[seven]\nplayer = { 1 = "A" }\n', '[seven]\nplayer = { 1 = "Kei" }\n'),
        ('# top\n\n[seven]\nplayer.4 = "D"\n', '# top\n\n[seven]\nplayer.4 = "D"\nplayer.1 = "Kei"\n'),
        ('seven.player.1 = "A"\n', 'seven.player.1 = "Kei"\n'),
        ("[mille]\nplayer.1 = 'Z'\n", "[mille]\nplayer.1 = 'Z'\n\n[seven]\nplayer.1 = \"Kei\"\n"),
    ],
)
def test_save_keeps_the_files_own_style(tmp_path, before, after):
    path = tmp_path / "config.toml"
    path.write_text(before, encoding="utf-8")
    config = Config.load(path)
    config.set_name("seven", 0, "Kei")
    config.save()
    assert path.read_text(encoding="utf-8") == after
    assert not config.unsaved


def test_a_name_is_saved_in_a_game_table_written_in_parts(tmp_path):
    """``[seven]``, another table, then ``[seven.options]``: valid TOML, one table in two parts (tomlkit
    hands it over as a proxy without ``add``).  A new name was refused as "the config file has an error"."""
    path = tmp_path / "config.toml"
    path.write_text('[seven]\nrounds = 3\n\n[mille]\nplayer.1 = "Z"\n\n[seven.options]\nx = 1\n', encoding="utf-8")
    config = Config.load(path)
    config.set_name("seven", 0, "Kei")
    config.save()
    again = Config.load(path)
    assert again.error is None
    assert again.data["seven"] == {"rounds": 3, "player": {"1": "Kei"}, "options": {"x": 1}}
    assert again.seat_names("seven", ["You", "B"], 2)[0] == "Kei"
    assert again.data["mille"] == {"player": {"1": "Z"}}


def test_save_keeps_a_hand_edit_made_while_the_room_ran(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[general]\n", encoding="utf-8")
    config = Config.load(path)
    path.write_text('[general]\nsaves = "~/s"  # added by hand\n', encoding="utf-8")
    config.set_general("theme", "gamenight-16")
    config.save()
    assert path.read_text(encoding="utf-8") == '[general]\nsaves = "~/s"  # added by hand\ntheme = "gamenight-16"\n'


def test_save_refuses_values_outside_the_schema(tmp_path):
    config = Config.load(tmp_path / "config.toml")
    for key, value in [
        ("bot_delay", float("nan")),
        ("bot_delay", 9),
        ("language", "fr"),
        ("colour", "x"),
        ("theme", "a\x1bb"),
    ]:
        with pytest.raises(ValueError):
            config.set_general(key, value)
    assert not config.unsaved


DEEP = 600


@pytest.mark.parametrize(
    "text",
    [
        "[general]\nx = " + "[" * DEEP + "]" * DEEP + "\n",
        "[default]\nplayer = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n",
        "[seven]\n" + "a." * DEEP + "b = 1\n",
        "[" + ".".join(["t"] * DEEP) + "]\n",
    ],
)
def test_deep_nesting_is_a_clear_message_not_a_recursion_error(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    config = Config.load(path)
    assert config.error is not None and str(path) in config.error and "nested too deeply" in config.error
    assert config.bot_delay == 0.5 and config.seat_names("seven", ["You"], 1) == ["You"]
    with pytest.raises(ConfigError):
        config.save()
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ("[general]\nbot_delay = 1e999\n", "[general] bot_delay", "0 to 5"),
        ("[general]\nbot_delay = nan\n", "[general] bot_delay", "0 to 5"),
        ("[general]\nbot_delay = true\n", "[general] bot_delay", "0 to 5"),
        ('[general]\nbot_delay = "fast"\n', "[general] bot_delay", "0 to 5"),
        ("[general]\nlanguage = 7\n", "[general] language", '"en", "ja"'),
        ("[general]\ntheme = [1, 2]\n", "[general] theme", "name of a theme"),
        ('[general]\ntheme = "' + "t" * 5000 + '"\n', "[general] theme", "name of a theme"),
        ('[general]\nsaves = "a\\u0000b"\n', "[general] saves", "folder path"),
        ("[general]\nbot_dealy = 1\n", "[general] bot_dealy", "not a setting"),
        ('general = "x"\n', "general", "table"),
        ('[seven]\nplayer = "Kei"\n', "[seven] player", "player.1"),
        ('[seven]\nplayer.0 = "Kei"\n', "[seven] player.0", "seat number"),
        ('[seven]\nplayer.99 = "Kei"\n', "[seven] player.99", "seat number"),
        ('[seven]\nplayer.1 = "' + "x" * 60000 + '"\n', "[seven] player.1", "16 cells"),
    ],
)
def test_wrong_types_and_huge_values_name_the_key_and_use_the_default(tmp_path, text, key, reason):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    config = Config.load(path)
    assert config.error is None
    assert len(config.warnings) == 1 and f"{path}: {key}: " in config.warnings[0] and reason in config.warnings[0]
    assert config.bot_delay == 0.5 and config.language is None and config.theme is None
    assert config.seat_names("seven", ["You"], 1) == ["You"]


def test_oversized_and_huge_integer_files_are_refused_with_a_message(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("# pad\n" * 20000, encoding="utf-8")
    assert "64 KiB" in Config.load(path).error
    path.write_text("[general]\nbot_delay = 1" + "0" * 5000 + "\n", encoding="utf-8")
    assert "out of range" in Config.load(path).error


def test_a_flood_of_problems_is_capped(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[general]\n" + "".join(f"k{i} = 1\n" for i in range(500)), encoding="utf-8")
    warnings = Config.load(path).warnings
    assert len(warnings) == 9 and "492 more problems" in warnings[-1]
