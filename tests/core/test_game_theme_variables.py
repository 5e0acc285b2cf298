"""Games own their colours: ``GameInfo.theme_variables``, prefixed by the game id, set by any theme."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gamenight.app import THEME_VARIABLE_DEFAULTS, GameNightApp
from gamenight.config import Config
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.testing import settle
from gamenight_lits.widgets import Board
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from .nim import NIM, NimPlugin

REPO = Path(__file__).resolve().parents[2]
REGISTRY = load_registry()
LITS = REGISTRY.games["lits"]
SHIPPED = ("gamenight", "gamenight-16", "gamenight-contrast")
TEXTUAL_NAMES = set(BUILTIN_THEMES["textual-dark"].to_color_system().generate())


def referenced(folder: Path) -> set[str]:
    """The ``$variables`` a plugin's stylesheets (``*.tcss`` and ``DEFAULT_CSS`` in ``*.py``) use."""
    names: set[str] = set()
    for path in [*folder.rglob("*.tcss"), *folder.rglob("*.py")]:
        names |= set(re.findall(r"\$([a-z][a-z0-9-]*)", path.read_text(encoding="utf-8")))
    return names - TEXTUAL_NAMES


def test_core_defaults_name_no_game_and_one_games_colours_are_its_own() -> None:
    for game_id in REGISTRY.games:
        assert not any(game_id in name for name in THEME_VARIABLE_DEFAULTS), game_id
    users: dict[str, set[str]] = {}
    folders = {game_id: REPO / "plugins" / f"gamenight_{game_id}" for game_id in REGISTRY.games}
    folders["goofspiel"] = REPO / "examples" / "gamenight-example" / "src" / "gamenight_example"
    for game_id, folder in folders.items():
        for name in referenced(folder):
            users.setdefault(name, set()).add(game_id)
    for name, games in users.items():
        if len(games) == 1 and next(iter(games)) in REGISTRY.games:  # one built-in game's own colour
            (game_id,) = games
            assert name.startswith(f"{game_id}-") and name in REGISTRY.games[game_id].theme_variables, name
            assert name not in THEME_VARIABLE_DEFAULTS, name
    for game_id, game in REGISTRY.games.items():  # and every name a game uses resolves somewhere
        for name in referenced(folders[game_id]):
            assert name in THEME_VARIABLE_DEFAULTS or name in game.theme_variables, (game_id, name)


def lits_app(tmp_path: Path, theme: str | None = None, registry=REGISTRY, config_dir: Path | None = None):
    match = Match(LITS, [SeatConfig("Ann"), SeatConfig("Ben")], {"layout": "weave"}, seed=3)
    for action in ("S:r0c1:o0", "keep"):
        match.apply(action)
    folder = config_dir or tmp_path
    return GameNightApp(
        registry=registry,
        config=Config.load(folder / "c.toml"),
        saves_dir=tmp_path / "saves",
        bot_delay=0,
        theme_name=theme,
        start_match=match,
    )


def shape_s_colour(app: GameNightApp):
    return app.screen.query_one(Board).get_component_rich_style("board--shape-s").bgcolor


@pytest.mark.parametrize("theme", [*SHIPPED, "bare"])
async def test_lits_variables_resolve_on_its_board_in_every_theme(tmp_path: Path, theme: str) -> None:
    if theme == "bare":  # a user's theme that sets none of the games' colours: their defaults apply
        (tmp_path / "themes").mkdir()
        (tmp_path / "themes" / "bare.toml").write_text('name = "bare"\nprimary = "#0178d4"\n', encoding="utf-8")
    app = lits_app(tmp_path, theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == theme
        variables = app.get_theme(theme).variables
        for name, default in LITS.theme_variables.items():
            assert app.theme_variables[name] == variables.get(name, default), name
        expected = Color.parse(variables.get("lits-shape-s", LITS.theme_variables["lits-shape-s"]))
        assert shape_s_colour(app) == expected.rich_color
        assert app.theme_notices == []


@pytest.mark.parametrize("name", ["lits-shape-s", "shape-s"])
async def test_a_user_theme_sets_a_games_colour_old_name_with_a_notice(tmp_path: Path, name: str) -> None:
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "mine.toml").write_text(
        f'name = "mine"\nprimary = "#225588"\ndark = true\n[variables]\n{name} = "#123456"\ndie-face = "#ffffff"\n',
        encoding="utf-8",
    )
    app = lits_app(tmp_path, "mine")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert tuple(shape_s_colour(app).get_truecolor()) == (0x12, 0x34, 0x56)
        assert "shape-s" not in app.get_theme("mine").variables
        deprecated = [notice for notice in app.theme_notices if "deprecated" in notice]
        assert len(deprecated) == (name == "shape-s")
        if deprecated:
            assert "shape-s" in deprecated[0] and "lits-shape-s" in deprecated[0]
        # die-face was never read by any stylesheet: no game declares it, and the theme is told so
        assert any("die-face" in notice for notice in app.theme_notices)


@pytest.mark.parametrize(
    "declared",
    [
        {"shape-x": "#ffffff"},  # not prefixed by the game id
        {"badvars-x": "#ffffff; } Screen { display: none"},  # would end the CSS rule
        {"badvars-x": "not-a-colour"},
        {"badvars-table": 3},
        "lits-shape-l",
    ],
)
async def test_a_bad_declaration_is_reported_like_a_broken_plugin_and_the_room_starts(tmp_path, declared) -> None:
    import dataclasses

    class BadPlugin:
        GAMENIGHT_API = "1.0"

        def register_games(self, register):
            register(dataclasses.replace(NIM, id="badvars", title="Bad vars", theme_variables=declared))

    from gamenight.hookspecs import hookimpl

    BadPlugin.register_games = hookimpl(BadPlugin.register_games)
    registry = load_registry(extra_plugins={"nim": NimPlugin(), "badvars": BadPlugin()}, entry_points=[])
    # the form (names, characters) is refused when the GameInfo is made, headless (`gamenight plugins`);
    # a value Textual's CSS parser refuses, when the room takes the games
    assert ("badvars" in registry.games) == (declared == {"badvars-x": "not-a-colour"})
    app = GameNightApp(registry=registry, config=Config.load(tmp_path / "c.toml"), saves_dir=tmp_path / "saves")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "badvars" not in app.registry.games and "nim" in app.registry.games
        record = next(record for record in app.registry.plugins if record.name == "badvars")
        assert record.error and "theme_variables" in record.error and record.games == []
        assert "badvars" in app.screen._notices()  # the lobby's "Plugins with problems" line

    assert NIM.theme_variables == {}  # the field is optional: a game without colours of its own


def test_every_kit_widget_is_in_the_sdk_and_documented_and_the_dice_are_yatzys() -> None:
    """gamenight.widgets holds only widgets meant for any game: each is exported by gamenight.sdk
    and named in docs/plugins.md's "Widgets"; Yatzy's dice are Yatzy's own."""
    import importlib

    import gamenight.sdk as sdk
    from textual.widget import Widget

    docs = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Widgets\n") :].split("\n## ", 1)[0]
    kit = sorted(path.stem for path in (REPO / "core" / "gamenight" / "widgets").glob("*.py"))
    kit.remove("__init__")
    assert "dice" not in kit and "score_table" in kit
    for module_name in kit:
        module = importlib.import_module(f"gamenight.widgets.{module_name}")
        widgets = [
            name
            for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, Widget) and value.__module__ == module.__name__
        ]
        assert widgets, module_name
        for name in widgets:
            if not name.startswith("_"):
                assert getattr(sdk, name) is getattr(module, name), name
                assert f"`{name}`" in section, name
    assert (REPO / "plugins" / "gamenight_yatzy" / "dice.py").is_file()


async def test_plugins_found_after_the_lobby_paints_bring_their_variables(tmp_path: Path, monkeypatch) -> None:
    """The usual start: the lobby first, the plugins from a thread; an old name in the theme still works."""
    import gamenight.plugins

    monkeypatch.setattr(gamenight.plugins, "load_registry", lambda: REGISTRY)
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "mine.toml").write_text(
        'name = "mine"\nprimary = "#225588"\ndark = true\n[variables]\nshape-s = "#123456"\n', encoding="utf-8"
    )
    app = GameNightApp(
        config=Config.load(tmp_path / "c.toml"), saves_dir=tmp_path / "saves", bot_delay=0, theme_name="mine"
    )
    assert not app.registry_loaded and "lits-shape-s" not in app.get_theme_variable_defaults()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            if app.registry_loaded:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert app.theme == "mine" and app.theme_variables["lits-shape-s"] == "#123456"
        assert "renamed or unknown" in app.screen._notices()
        await pilot.press("p")
        await settle(pilot)
        shown = " ".join(str(static.render()) for static in app.screen.query("Static"))
        assert "shape-s is deprecated" in shown
        await pilot.press("escape")
        match = Match(LITS, [SeatConfig("Ann"), SeatConfig("Ben")], {"layout": "weave"}, seed=3)
        for action in ("S:r0c1:o0", "keep"):
            match.apply(action)
        app.open_match(match)
        await settle(pilot)
        assert tuple(shape_s_colour(app).get_truecolor()) == (0x12, 0x34, 0x56)


def disc_registry(colour: str):
    """Nim, plus a third party's game whose one colour of its own is given in RGB only."""
    import dataclasses

    from gamenight.hookspecs import hookimpl

    class DiscPlugin:
        GAMENIGHT_API = "1.0"

        @hookimpl
        def register_games(self, register):
            register(dataclasses.replace(NIM, id="discs", title="Discs", theme_variables={"discs-red": colour}))

    return load_registry(extra_plugins={"nim": NimPlugin(), "discs": DiscPlugin()}, entry_points=[])


@pytest.mark.parametrize(
    ("colour", "sixteen"),
    [("#d03030", "ansi_red"), ("#1f5e3a", "ansi_green"), ("#f0f0f0", "ansi_bright_white"), ("ansi_cyan", "ansi_cyan")],
)
async def test_a_plugins_rgb_colour_falls_back_to_the_terminals_16_under_gamenight_16(
    tmp_path: Path, colour: str, sixteen: str
) -> None:
    """A plugin's own colour, declared only in RGB, comes out as one of the terminal's 16 colours under
    a 16-colour theme (never a 256- or true-colour code), and as declared under the others; switching
    themes in the room switches it too."""
    from textual.containers import Container
    from textual.screen import Screen
    from textual.widgets import Static

    class DiscScreen(Screen):
        DEFAULT_CSS = "#disc { color: $discs-red; }"

        def compose(self):
            yield Container(Static("●", id="disc"))

    app = GameNightApp(
        registry=disc_registry(colour),
        config=Config.load(tmp_path / "c.toml"),
        saves_dir=tmp_path / "saves",
        theme_name="gamenight-16",
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme_variables["discs-red"] == sixteen
        await app.push_screen(DiscScreen())
        await settle(pilot)
        drawn = app.screen.query_one("#disc").rich_style.color
        assert drawn.type.name in ("STANDARD", "DEFAULT") and drawn.number == Color.parse(sixteen).ansi
        app.theme = "gamenight"
        await settle(pilot)
        assert app.theme_variables["discs-red"] == colour
