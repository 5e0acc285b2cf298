"""The table played with the original's keys (Pilot), and SVG snapshots at 80×24."""

from __future__ import annotations

from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.dialogs import ResultDialog, TextPrompt, YesNoDialog
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.saves import SaveError, load_match, save_match
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight_mille.rules import EXTENSION, GO, HAND_OVER, PLAY, SLOT_INDEX, MilleRules
from gamenight_mille.screen import MilleScreen
from gamenight_mille.widgets import ScoreWindow

from .conftest import card, cards, hand, seat, state

REGISTRY = load_registry()
GAME = REGISTRY.game("mille")
RULES = MilleRules()


def room(tmp_path: Path, match: Match) -> GameNightApp:
    return make_room(REGISTRY, tmp_path, bot_delay=0, theme_name="gamenight", start_match=match)


def human_vs_expert(seed: int = 1) -> Match:
    return Match(GAME, [SeatConfig("You"), SeatConfig("Computer", "expert")], {}, seed=seed)


class Bells:
    """Counts the bell."""

    def __init__(self, app: GameNightApp) -> None:
        self.count = 0
        app.bell = self.ring  # type: ignore[method-assign]

    def ring(self) -> None:
        self.count += 1


def status(app: GameNightApp) -> str:
    return str(app.screen.query_one("StatusLine #message").render())


async def test_p_picks_and_u_slot_space_uses_the_card(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MilleScreen) and match.to_move() == 0
        await pilot.press("p")
        assert match.state.picked and len(match.state.deck) == 88
        go_slot = match.state.seats[0].hand.index(GO)
        await pilot.press("u", str(go_slot), "space")
        await settle(pilot)
        assert match.state.seats[0].table[0] == GO  # (the computer may have answered it already)
        assert [entry.action for entry in match.log if entry.seat == 0] == ["draw", f"use:{go_slot}"]


async def test_d_p_return_discards_the_picked_card(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        picked = match.state.seats[0].hand[0]
        await pilot.press("d", "p", "enter")
        await settle(pilot)
        assert match.log[2].action == "discard:P"
        assert picked in match.state.discards


async def test_the_confirmation_is_required_and_escape_abandons(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p", "d", "1")
        before = match.state
        await pilot.pause()
        assert match.state is before and app.screen.selected == 1
        await pilot.press("backspace")  # re-opens the card
        assert app.screen.selected is None and app.screen.command == "discard"
        await pilot.press("2", "escape")
        assert app.screen.command is None and match.state is before
        assert isinstance(app.screen, MilleScreen)  # Escape abandoned the command, it did not leave


async def test_an_illegal_command_shows_the_original_message_with_a_bell_and_changes_nothing(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bells = Bells(app)
        await pilot.press("u", "1", "space")
        assert status(app) == "must pick first" and bells.count == 1
        await pilot.press("p")
        before = match.state
        await pilot.press("p")
        assert status(app) == "already picked" and match.state is before
        await pilot.press("x")
        assert status(app) == "unknown command: x" and bells.count == 3
        await pilot.press("u", "z")  # a key that is not a card beeps
        assert bells.count == 4 and match.state is before


async def test_o_orders_the_hand_and_the_card_number_follows_the_display(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o", "p")
        screen = app.screen
        slots = screen.display_slots(screen.view)
        shown = [match.state.seats[0].hand[slot] for slot in slots[1:]]
        assert shown == sorted(shown)
        first_shown = match.state.seats[0].hand[slots[1]]
        await pilot.press("d", "1", "space")
        await settle(pilot)
        assert match.state.discards[0] == first_shown


async def test_w_toggles_the_full_score_window(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        window = app.screen.query_one(ScoreWindow)
        assert "Trip Completed" not in str(window.render())
        await pilot.press("w")
        assert "Trip Completed" in str(window.render()) and "Shut-Out" in str(window.render())
        await pilot.press("w")
        assert "Trip Completed" not in str(window.render())


async def test_clicking_a_card_selects_it_and_space_confirms(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        go_slot = match.state.seats[0].hand.index(GO)
        await pilot.click("#board", offset=(3, 6 + go_slot))
        assert app.screen.selected == go_slot and match.state.seats[0].table == ()
        await pilot.press("space")
        await settle(pilot)
        assert match.state.seats[0].table[0] == GO


async def test_q_asks_really_before_leaving(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, YesNoDialog)
        await pilot.press("n")
        assert isinstance(app.screen, MilleScreen)
        await pilot.press("delete")
        assert isinstance(app.screen, YesNoDialog)
        await pilot.press("n", "q", "y")
        assert not isinstance(app.screen, MilleScreen)


async def test_s_asks_for_a_file_name_and_the_save_resumes_to_the_identical_position(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await pilot.press("s")
        assert isinstance(app.screen, TextPrompt)
        await pilot.press("ctrl+a", *"mid-hand", "enter")
        await pilot.pause()
        assert isinstance(app.screen, MilleScreen)
        path = app.screen.save_path
    assert path is not None and path.exists()
    loaded = load_match(REGISTRY, path)
    assert loaded.state == match.state and loaded.log == match.log


def test_a_corrupt_save_is_refused_and_left_untouched(tmp_path):
    match = human_vs_expert()
    match.apply_chance()
    match.apply("draw")
    path = save_match(match, tmp_path / "game.toml")
    text = path.read_text(encoding="utf-8")
    bad = text.replace("deal:", "deal:a", 1)
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(SaveError):
        load_match(REGISTRY, path)
    assert path.read_text(encoding="utf-8") == bad


def _at_extension() -> Match:
    match = human_vs_expert()
    me = seat(hand("25", "Go", "Stop"), battle="Go", mileage=700)
    match.state = state(me, other=seat(hand("25"), mileage=100), hand_number=1)._replace(phase=EXTENSION)
    return match


async def test_reaching_700_asks_about_the_extension(tmp_path):
    match = _at_extension()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, YesNoDialog)
        await pilot.press("y")
        await settle(pilot)
        assert match.state.trip == 1000 and match.log[0].action == "extend"


def _at_end_of_hand() -> Match:
    match = human_vs_expert()
    me = seat(
        hand("25", "Go", "Stop"), p="100", battle="Go", mileage=600, safeties=("Extra Tank",), coups=("Extra Tank",)
    )
    crafted = state(me, other=seat(hand("25"), mileage=150), picked=True, hand_number=1, totals=(1200, 900))
    match.state = RULES.apply(RULES.apply(crafted, "use:P"), "stop")
    assert match.state.phase == HAND_OVER
    return match


async def test_the_end_of_a_hand_shows_the_score_window_and_asks_another_hand(tmp_path):
    match = _at_end_of_hand()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press("y")
        await settle(pilot)
        assert match.state.hand_number == 2 and match.state.totals == (1200 + 700 + 100 + 300 + 400 + 300, 1050)


# -- snapshots ---------------------------------------------------------------------------


def test_snapshot_the_table(snap_compare, tmp_path):
    async def play(pilot):
        await settle(pilot)
        await pilot.press("p")
        await pilot.press("u", str(pilot.app.screen.match.state.seats[0].hand.index(GO)), "space")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(room(tmp_path, human_vs_expert()), run_before=play, terminal_size=(80, 24))


def test_snapshot_the_full_score_window(snap_compare, tmp_path):
    async def play(pilot):
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(room(tmp_path, human_vs_expert()), run_before=play, terminal_size=(80, 24))


def test_snapshot_the_end_of_hand_prompt(snap_compare, tmp_path):
    async def wait(pilot):
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(room(tmp_path, _at_end_of_hand()), run_before=wait, terminal_size=(80, 24))


def test_cards_in_the_crafted_positions_are_real_cards():
    assert card("Go") == GO


async def test_a_resumed_game_saves_to_its_own_file_without_asking(tmp_path):
    match = human_vs_expert()
    match.apply_chance()
    path = save_match(match, tmp_path / "resumed.toml")
    app = GameNightApp(
        registry=REGISTRY,
        config=Config.load(tmp_path / "config.toml"),
        saves_dir=tmp_path,
        bot_delay=0,
        theme_name="gamenight",
        start_save=path,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MilleScreen) and screen.save_path == path
        assert status(app).startswith("Resumed “resumed”, saved ")  # as the original: the save and its time
        await pilot.press("p", "s")
        await pilot.pause()
        assert isinstance(app.screen, MilleScreen)  # no file prompt
        resumed = screen.match
    assert load_match(REGISTRY, path).log == resumed.log


async def test_hot_seat_hides_the_table_until_the_next_person_is_ready(tmp_path):
    match = Match(GAME, [SeatConfig("Ann"), SeatConfig("Bob")], {}, seed=2)
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.view_seat == 0
        await pilot.press("p", "d", "p", "space")
        await pilot.pause()
        assert screen.view_seat == 1 and not isinstance(app.screen, MilleScreen)  # the hand-over notice


async def test_the_end_of_a_hand_played_with_the_original_keys_reaches_the_another_hand_prompt(tmp_path):
    """From 500 miles with a short deck: each turn ``P`` then ``U``+card+Space, to 700 and the prompts."""
    match = Match(GAME, [SeatConfig("You"), SeatConfig("Computer", "greedy")], {}, seed=5)
    me = seat(hand("100", "Go", "Stop", "25", "50", "Gasoline"), battle="Go", mileage=500)
    other = seat(hand("25", "25", "25", "25", "25", "25"), battle="Stop", mileage=100)
    match.state = state(me, other=other, deck=cards("75", "25", "Go", "Go", "Go", "Go"), hand_number=1)
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _turn in range(6):
            if match.state.phase != PLAY:
                break
            await pilot.press("p")
            mine = match.state.seats[0]
            need = 700 - mine.mileage
            value = {card("25"): 25, card("50"): 50, card("75"): 75, card("100"): 100}
            best = max(
                (slot for slot, c in enumerate(mine.hand) if value.get(c, 999) <= need),
                key=lambda slot: value[mine.hand[slot]],
            )
            await pilot.press("u", "p" if best == 0 else str(best), "space")
            await settle(pilot)
        assert match.state.seats[0].mileage == 700 and match.state.phase == EXTENSION
        assert isinstance(app.screen, YesNoDialog)  # Extension?
        await pilot.press("n")
        await settle(pilot)
        assert match.state.phase == HAND_OVER and isinstance(app.screen, ResultDialog)  # Another hand?
        await pilot.press("n")
        assert isinstance(app.screen, YesNoDialog)  # Save game?


async def test_a_won_game_counts_on_the_games_line_and_play_again_keeps_it(tmp_path):
    match = human_vs_expert()
    me = seat(hand("25", "Go", "Stop"), p="100", battle="Go", mileage=600)
    match.state = state(me, other=seat(hand("25"), mileage=150), picked=True, hand_number=3, totals=(4500, 3000))
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("u", "p", "space")
        await settle(pilot)
        assert isinstance(app.screen, YesNoDialog)  # Extension?
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)  # the game is over
        assert match.games_played == 1
        await pilot.press("a")  # play again
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MilleScreen) and match.wins == [1.0, 0.0]
        window = str(screen.query_one(ScoreWindow).render())
        games_line = next(line for line in window.splitlines() if "Games" in line)
        assert games_line.split()[-2:] == ["1", "0"]


async def test_two_bots_play_a_hand_on_the_table_to_the_end_of_hand_prompt(tmp_path):
    match = Match(GAME, [SeatConfig("Greedy", "greedy"), SeatConfig("Expert", "expert")], {}, seed=4)
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        for _round in range(60):
            await settle(pilot)
            if isinstance(app.screen, ResultDialog):
                break
            if isinstance(app.screen, YesNoDialog):  # never asked: bots decide extensions themselves
                raise AssertionError("a prompt was shown to bots")
            await pilot.pause(0.05)
        assert isinstance(app.screen, ResultDialog)
        assert match.state.phase == HAND_OVER


class ViewOnlyMatch(Match):
    """A match whose full state the Mille screen may not read (as at a shared table)."""

    @property
    def state(self):
        import sys

        caller = sys._getframe(1).f_globals.get("__name__", "")
        assert caller != "gamenight_mille.screen", "the Mille screen read the full state"
        return self.__dict__["_state"]

    @state.setter
    def state(self, value):
        self.__dict__["_state"] = value


async def test_the_screen_draws_from_views_only_and_still_shows_the_opponents_play(tmp_path):
    match = ViewOnlyMatch(GAME, [SeatConfig("You"), SeatConfig("Computer", "expert")], {}, seed=3)
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MilleScreen)
        for _turn in range(12):
            if match.over or match.pending_interlude() is not None:
                break
            legal = match.legal_actions()
            if "draw" in legal:
                await pilot.press("p")
            else:
                discard = next(action for action in legal if action.startswith("discard:"))
                await pilot.press("d", discard.split(":")[1], "space")
            await settle(pilot)
            plays = [number for number, entry in enumerate(match.log) if entry.seat == 1 and entry.action != "draw"]
            if plays and screen.last_play is not None:
                break
        assert plays, "the computer never played a card"
        number = plays[-1]
        verb, _sep, slot = match.log[number].action.partition(":")
        before = Match(GAME, [SeatConfig("You"), SeatConfig("Computer", "expert")], {}, seed=3)
        before.replay(match.log[:number])
        # the card the screen names is the one the computer played (found without reading its hand)
        played = before.state.seats[1].hand[SLOT_INDEX[slot]]
        assert screen.last_play == ("PLAY" if verb == "use" else "DISCARD", played)


async def test_the_rooms_keys_read_as_in_every_other_game_in_japanese(tmp_path):
    """Mille's catalogue says "Leave" = "やめる" for its another-hand choice; that word had renamed
    the room's Esc key too ("esc やめる", where every other game says "esc 退出")."""
    from gamenight.i18n import set_language
    from gamenight.widgets.key_bar import KeyBar

    set_language("ja")
    try:
        app = room(tmp_path, human_vs_expert())
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            bar = str(app.screen.query_one(KeyBar).render())
            assert "f1 ヘルプ  ^s 保存  esc 退出" in bar, bar
            assert app.screen.t("Leave") == "やめる"  # the game's own sentence keeps its word
    finally:
        set_language("en")
