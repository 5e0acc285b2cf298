"""Hypothesis fuzzers for the files the room reads besides saves: config.toml and theme files.

Saves have theirs in test_saves_tampering.py.  Every input here must give the
room defaults and messages -- never an exception -- and whatever loads must be
usable: a config's values pass the schema and it saves and reads back; a
theme's variables go through Textual's stylesheet parser with the room's CSS.
"""

from __future__ import annotations

from pathlib import Path

import tomli_w
from gamenight.config import Config, ConfigError
from gamenight.text import validate_name
from gamenight.themes import load_themes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

VALID_CONFIG = """\
# settings
[general]
language = "ja"
theme = "gamenight"
bot_delay = 0.5
saves = "~/s"

[default]
player.1 = "Kei"

[seven]
player.1 = "You"
player.3 = "Belldandy"
"""

VALID_THEME = (Path(__file__).parents[2] / "themes" / "gamenight-contrast.toml").read_text(encoding="utf-8")

TOML_BITS = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        '"',
        "'",
        "=",
        ".",
        ",",
        "\n",
        "#",
        "\\",
        "\\u0007",
        "1e999",
        "nan",
        "true",
        "[[",
        "]]",
        "player.",
        "1",
        "-",
        " ",
        "x",
        '"""',
        "\x00",
        "\x1b",
        "\u202e",
        "\u3164",
        "長",
        "é\u0301\u0301\u0301",
    ]
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _drop_none(value):
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    return value


@st.composite
def mutated(draw, base: str) -> str:
    text = base
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["insert", "delete", "repeat", "nest", "value"]))
        at = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:at] + "".join(draw(st.lists(TOML_BITS, min_size=1, max_size=5))) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif kind == "repeat":
            end = min(len(text), at + draw(st.integers(1, 12)))
            text = text[:at] + text[at:end] * draw(st.integers(2, 400)) + text[end:]
        elif kind == "nest":
            depth = draw(st.sampled_from([5, 9, 50, 399, 600, 2000]))
            opener, closer = draw(st.sampled_from([("[", "]"), ("{a = ", "}")]))
            text = text[:at] + f"\nk = {opener * depth}1{closer * depth}\n" + text[at:]
        else:
            table = {
                draw(st.sampled_from(["general", "seven", "default", "x"])): {
                    draw(st.sampled_from(["language", "theme", "bot_delay", "saves", "player", "y"])): draw(VALUES)
                }
            }
            try:
                text = text[:at] + "\n" + tomli_w.dumps(_drop_none(table)) + text[at:]
            except (TypeError, ValueError):
                pass
    return text


FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(text=mutated(VALID_CONFIG))
def test_config_fuzz_never_crashes_and_what_loads_is_valid(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("config")
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    config = Config.load(path)
    assert config.language in (None, "en", "ja")
    assert config.theme is None or isinstance(config.theme, str)
    assert 0 <= config.bot_delay <= 5
    for game in ("seven", "default", "x"):
        assert all(validate_name(name) is None for name in config.seat_names(game, ["You", "Bot"], 5))
    before = path.read_bytes()
    try:
        config.set_name("seven", 1, "Urd")
        config.save()
    except ConfigError:
        assert config.error is not None or path.read_bytes() == before
        return
    again = Config.load(path)
    assert again.error is None
    assert again.seat_names("seven", ["You", "Bot"], 2)[1] == "Urd"


def _usable(theme) -> None:
    """The theme's variables work in the room's real stylesheet (as App.theme = name would use them)."""
    from gamenight.app import THEME_VARIABLE_DEFAULTS, GameNightApp
    from textual.css.stylesheet import Stylesheet

    variables = {**THEME_VARIABLE_DEFAULTS, **theme.to_color_system().generate()}
    sheet = Stylesheet(variables=variables)
    sheet.read(Path(GameNightApp.CSS_PATH))
    sheet.parse()


@FUZZ
@given(text=mutated(VALID_THEME))
def test_theme_fuzz_never_crashes_and_what_loads_is_usable(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("themes")
    (folder / "fuzzed.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    loaded = load_themes([], folder)
    user = [theme for theme in loaded.themes.values() if theme.name not in {"gamenight", "gamenight-16"}]
    if loaded.errors:
        assert len(loaded.errors) == 1 and "fuzzed.toml" in loaded.errors[0]
    for theme in user:
        _usable(theme)


@FUZZ
@given(
    data=st.dictionaries(
        st.sampled_from(
            [
                "name",
                "primary",
                "dark",
                "text_alpha",
                "variables",
                "ansi",
                "background",
                "luminosity_spread",
                "boost",
                "sparkle",
            ]
        ),
        VALUES,
        max_size=8,
    )
)
def test_plugin_theme_mappings_never_crash(data):
    data = {"name": "plugin", "primary": "#123456", **data}
    loaded = load_themes([data])
    assert loaded.errors or "plugin" in loaded.themes
    if "plugin" in loaded.themes and not loaded.errors:
        _usable(loaded.themes["plugin"])
