"""Leaving says truly what becomes of the game; a save keeps how the table was shown and default names."""

from __future__ import annotations

import pytest
import tomli_w
from gamenight.app import GameNightApp
from gamenight.dialogs import YesNoDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.saves import SaveError, load_match, match_to_document, save_match
from gamenight.testing import settle
from gamenight.ui.game_screen import GameScreen

KEPT = "Leave this game? It stays in the autosave and can be resumed from the lobby."
NOTHING = "Leave this game? Nothing has been played yet, so nothing is kept."


def make_app(registry, config, tmp_path, match):
    return GameNightApp(registry=registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0, start_match=match)


async def test_leaving_before_the_first_move_does_not_promise_an_autosave(nim_registry, config, tmp_path):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 9})
    app = make_app(nim_registry, config, tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        assert isinstance(app.screen, YesNoDialog) and app.screen.question == NOTHING
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, GameScreen | YesNoDialog)  # the lobby, no "resume?" question
        assert not app.saves.autosave_path("nim").exists()


async def test_leaving_after_a_move_keeps_the_autosave_it_promises(nim_registry, config, tmp_path):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 9})
    app = make_app(nim_registry, config, tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        app.saves.autosave_path("nim").unlink()  # whatever happened to it, leaving writes it again
        await pilot.press("escape")
        assert app.screen.question == KEPT
        await pilot.press("y")
        await settle(pilot)
    assert load_match(nim_registry, app.saves.autosave_path("nim")).log == match.log


async def test_leaving_lits_before_its_first_move_tells_the_truth(config, tmp_path):
    registry = load_registry()
    game = registry.game("lits")
    match = Match(game, [SeatConfig("You"), SeatConfig("Bot", game.bots[0].id)], {})
    app = make_app(registry, config, tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert match.log == [] and match.to_move() == 0
        await pilot.press("escape")
        assert app.screen.question == NOTHING


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_dealt_game_left_before_any_move_keeps_no_autosave(config, tmp_path, language):
    """SEVEN's log starts with the deal (the table's draw): that is no one's move, so leaving
    keeps nothing and the lobby offers nothing to resume, as for Yatzy."""
    from gamenight.i18n import _

    set_language(language)
    registry = load_registry()
    game = registry.game("seven")
    match = Match(game, [SeatConfig("You"), SeatConfig("Urd", "random"), SeatConfig("Skuld", "random")], {})
    app = make_app(registry, config, tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert match.log and match.to_move() == 0  # dealt, the person to play first
        assert not app.saves.autosave_path("seven").exists()
        await pilot.press("escape")
        assert isinstance(app.screen, YesNoDialog)
        assert app.screen.question == _(
            "Leave this game? {note}", note=_("Nothing has been played yet, so nothing is kept.")
        )
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, GameScreen | YesNoDialog)
    assert not app.saves.autosave_path("seven").exists()
    again = GameNightApp(registry=registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not isinstance(again.screen, YesNoDialog)  # no "Resume it?"


def nim_match(nim_registry, **kwargs) -> Match:
    return Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 9}, **kwargs)


def test_the_display_table_round_trips_and_is_not_part_of_the_game(nim_registry, tmp_path):
    match = nim_match(nim_registry)
    match.apply("2")
    match.display = {"order": True, "zoom": 2, "mode": "compact"}
    loaded = load_match(nim_registry, save_match(match, tmp_path / "a.toml"))
    assert loaded.display == match.display and loaded.state == match.state and loaded.log == match.log
    plain = nim_match(nim_registry)
    assert "display" not in match_to_document(plain)


@pytest.mark.parametrize(
    "display",
    [
        {"order": [True]},
        {"order": {"a": 1}},
        {"order": 1.5},
        {"x" * 65: True},
        {"order": "\x1b]0;PWNED\x07"},
        {f"k{n}": True for n in range(17)},
        {"order": 2**40},
        {"order": "y" * 65},
        "order",
    ],
)
def test_a_malformed_display_table_is_refused(nim_registry, tmp_path, display):
    document = match_to_document(nim_match(nim_registry))
    document["display"] = display
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(document), encoding="utf-8")
    with pytest.raises(SaveError, match="'display'"):
        load_match(nim_registry, path)


def test_default_seat_names_are_saved_as_such_and_shown_in_todays_language(nim_registry, tmp_path, monkeypatch):
    from gamenight import i18n

    nim = nim_registry.game("nim")
    monkeypatch.setattr(i18n, "_sources", {domain: list(sources) for domain, sources in i18n._sources.items()})
    monkeypatch.setattr(i18n, "_catalogues", {})  # both restored after the test
    i18n.register_catalogue("nim", {"ja": {"Ann": "アン", "Bob": "ボブ"}})
    set_language("ja")
    match = Match(nim, [SeatConfig("アン"), SeatConfig("Zed", "first")], {"sticks": 9})
    document = match_to_document(match)
    assert document["seats"] == [{"name": "アン", "default_name": "Ann"}, {"name": "Zed", "bot": "first"}]
    path = save_match(match, tmp_path / "ja.toml")
    set_language("en")
    assert [seat.name for seat in load_match(nim_registry, path).seats] == ["Ann", "Zed"]
    document["seats"][0]["default_name"] = "Mallory"  # not one of the game's default names
    path.write_text(tomli_w.dumps(document), encoding="utf-8")
    with pytest.raises(SaveError, match="seats are malformed"):
        load_match(nim_registry, path)
