"""A game's styles stay on its own screens; result dialogs show their choices and the board."""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.plugins import load_registry
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.setup_screen import SetupScreen
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.ui.game_screen import GameScreen
from textual.dom import DOMNode
from textual.widgets import Button, Input

from tests.core.nim import NIM, NimScreen
from tests.core.tour import new_match, playout, screen_text

REGISTRY = load_registry()


def room(tmp_path: Path, registry=REGISTRY) -> GameNightApp:
    return make_room(registry, tmp_path, bot_delay=0, theme_name="gamenight")


async def to_lobby(app, pilot) -> None:
    while not isinstance(app.screen, LobbyScreen):
        app.pop_screen()
        await pilot.pause()


async def test_after_a_mate_table_the_setup_names_and_yatzys_dice_look_as_before(tmp_path):
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_match(new_match(REGISTRY.game("yatzy")))
        await settle(pilot)
        table_before = screen_text(app)
        await to_lobby(app, pilot)
        app.open_setup("seven")
        await pilot.pause()
        name_before = app.screen.query_one("#name-0", Input).region
        await to_lobby(app, pilot)

        app.open_match(new_match(REGISTRY.game("mate")))
        await settle(pilot)
        await to_lobby(app, pilot)

        app.open_setup("seven")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        name = app.screen.query_one("#name-0", Input)
        assert name.region == name_before and name.region.height == 3
        assert any(name.value in line for line in screen_text(app))
        await to_lobby(app, pilot)
        app.open_match(new_match(REGISTRY.game("yatzy")))
        await settle(pilot)
        assert screen_text(app) == table_before  # the same match drawn the same: dice row, sheet and all


async def test_a_third_party_css_path_is_scoped_to_its_screen(tmp_path):
    css = tmp_path / "nim.tcss"
    css.write_text(".seat-name { height: 1; }\nStatic { color: red; }\n", encoding="utf-8")

    class StyledNim(NimScreen):
        CSS_PATH = str(css)

    class Plugin:
        def register_games(self, register):
            from dataclasses import replace

            register(replace(NIM, screen=StyledNim))

    from gamenight import hookimpl

    Plugin.register_games = hookimpl(Plugin.register_games)
    registry = load_registry(extra_plugins={"styled-nim": Plugin()}, entry_points=[])
    app = room(tmp_path, registry)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_match(new_match(registry.game("nim")))
        await settle(pilot)
        assert isinstance(app.screen, StyledNim)
        title = app.screen.query_one("#title-bar")
        assert title.styles.color.rgb == (255, 0, 0)  # the rules apply on the game's own screen
        await to_lobby(app, pilot)
        app.open_setup("nim")
        await pilot.pause()
        assert app.screen.query_one("#name-0", Input).region.height == 3
        assert app.screen.query_one("#setup-title").styles.color.rgb != (255, 0, 0)


def test_no_two_games_style_a_widget_class_of_the_same_name():
    """Textual matches CSS type selectors by class name: one game's ``Board { … }`` styled another's Board."""
    import textual.widgets

    owners: dict[str, set[str]] = {}
    for game in REGISTRY.games.values():
        package = type(game.rules).__module__.rpartition(".")[0]
        importlib.import_module(f"{package}.screen")  # the screen and the widgets it uses
        for name, module in list(sys.modules.items()):
            if module is None or not (name == package or name.startswith(package + ".")):
                continue
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, DOMNode)
                    and value.__module__ == name
                    and value.__dict__.get("DEFAULT_CSS")
                ):
                    owners.setdefault(value.__name__, set()).add(package)
    shared = {name: sorted(packages) for name, packages in owners.items() if len(packages) > 1}
    assert shared == {}, f"widget classes with DEFAULT_CSS under one name in several games: {shared}"
    clashing = {name for name in owners if hasattr(textual.widgets, name)}
    assert clashing == set(), f"a game's widget is named like a Textual widget it would restyle: {clashing}"


async def open_mille_end_of_hand(app, pilot):
    match = new_match(REGISTRY.game("mille"))
    playout(match, random.Random(2), until=lambda m: m.pending_interlude() is not None)
    app.open_match(match)
    await settle(pilot)
    assert isinstance(app.screen, ResultDialog)
    return match


async def painted(pilot, app, needle: str) -> None:
    """Wait until ``needle`` is on the screen: a loaded machine may not have painted a new dialog yet."""
    for _ in range(200):
        if needle in "\n".join(screen_text(app)):
            return
        await pilot.pause(0.05)


async def test_mille_end_of_hand_shows_its_choices_at_80x24_and_80x40(tmp_path):
    for size in ((80, 24), (80, 40)):
        app = room(tmp_path)
        async with app.run_test(size=size) as pilot:
            await open_mille_end_of_hand(app, pilot)
            await painted(pilot, app, "Another hand (y)")
            dialog = app.screen
            for button_id in ("#choice-again", "#choice-leave", "#board"):
                button = dialog.query_one(button_id, Button)
                geometry = dialog.find_widget(button)
                assert geometry.visible_region == geometry.region, (size, button_id)
                assert dialog.region.contains_region(geometry.region), (size, button_id)
            body = dialog.query_one("#body")
            assert body.max_scroll_y > 0 or size == (80, 40)  # the score table scrolls, not the buttons
            text = "\n".join(screen_text(app))
            assert "Another hand (y)" in text and "Leave (n)" in text


async def test_the_finished_board_can_be_looked_at_and_left_from(tmp_path):
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        match = new_match(REGISTRY.game("lits"))
        playout(match, random.Random(3), until=lambda m: False)
        app.open_match(match)
        await settle(pilot)
        dialog = app.screen
        await painted(pilot, app, "Game over")
        assert isinstance(dialog, ResultDialog) and "Game over" in "\n".join(screen_text(app))
        await pilot.press("b")
        assert dialog.looking and dialog.query_one("#box").display is False
        text = "\n".join(screen_text(app))
        assert "Game over" not in text and "b Back to the result" in text and "l Leave" in text
        board = app.screen_stack[-2].query_one("#board")
        assert board.region.height and all(line in text for line in screen_text_of(board))
        await pilot.press("escape")
        assert not dialog.looking and "Game over" in "\n".join(screen_text(app))
        await pilot.press("b")
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


def screen_text_of(widget) -> list[str]:
    from tests.core.tour import _lines

    return [line.strip() for line in _lines(widget) if line.strip()][:3]


async def test_every_game_end_dialog_offers_the_board(tmp_path):
    app = room(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for game in REGISTRY.games.values():
            match = new_match(game)
            playout(match, random.Random(5), until=lambda m: False)
            app.open_match(match)
            await settle(pilot)
            assert isinstance(app.screen, ResultDialog), game.id
            assert isinstance(app.screen_stack[-2], GameScreen)
            assert app.screen.query_one("#board", Button).label.plain.startswith("Look at the board")
            await to_lobby(app, pilot)
