"""A shared table's save is a record of what was played there: the lobby's Resume and
``gamenight GAME FILE`` open it in the replay viewer, never as a local game from its position."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig, new_seed
from gamenight.saves import load_match, match_to_document
from gamenight.screens.replay_screen import ReplayBehaviour
from gamenight.sdk import CHANCE
from gamenight.sdk.testing import make_room
from gamenight.ui.game_screen import GameScreen

from .conftest import REGISTRY


def half_played(table: str = "") -> Match:
    """A Yatzy game some moves in, as a shared table (``table``) or a local game sends or saves it."""
    match = Match(REGISTRY.game("yatzy"), [SeatConfig("Ann"), SeatConfig("Bob", "greedy")], {}, seed=new_seed())
    match.table = table
    while len(match.log) < 12:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.bot_to_move():
            match.apply(match.bot_choice())
        else:
            match.apply(match.legal_actions()[0])
    return match


def kept_shared(tmp_path) -> object:
    """The save a room keeps of a shared table's game (the service's Finished document, checked and written)."""
    import tomli_w
    from gamenight.save_store import SaveStore

    text = tomli_w.dumps(match_to_document(half_played("a1b2c3d4")))
    return SaveStore(tmp_path / "saves").keep_shared(REGISTRY, "a1b2c3d4", text)


async def until(pilot, condition) -> None:
    for _ in range(3000):
        await pilot.pause(0.01)
        if condition():
            return


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_r_return_on_a_shared_tables_save_opens_the_replay(tmp_path, language):
    set_language(language)
    path = kept_shared(tmp_path)
    assert load_match(REGISTRY, path).table == "a1b2c3d4"
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await until(pilot, lambda: type(app.screen).__name__ == "SavesScreen")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayBehaviour))
        assert isinstance(app.screen, ReplayBehaviour)  # a replay: no move can be made from the position
        assert app.screen.replay.steps == 12


async def test_gamenight_game_file_opens_a_shared_save_as_a_replay_and_a_local_one_as_a_game(tmp_path):
    set_language("en")
    shared = kept_shared(tmp_path)
    app = make_room(REGISTRY, tmp_path, start_save=shared)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ReplayBehaviour))
        assert isinstance(app.screen, ReplayBehaviour)
    from gamenight.saves import save_match

    local = save_match(half_played(), tmp_path / "local.toml")
    app = make_room(REGISTRY, tmp_path, start_save=local)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert isinstance(app.screen, GameScreen) and not isinstance(app.screen, ReplayBehaviour)
        saved = load_match(REGISTRY, local).log
        assert app.screen.match.log[: len(saved)] == saved  # resumed from its position (the bot may move on)


def test_a_malformed_table_field_is_refused(tmp_path):
    import tomli_w
    from gamenight.saves import SaveError

    document = match_to_document(half_played("a1b2"))
    document["table"] = "../../etc"
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(document))
    with pytest.raises(SaveError, match="table"):
        load_match(REGISTRY, path)
