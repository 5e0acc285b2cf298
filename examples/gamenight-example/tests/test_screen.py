"""The Goofspiel table driven like a player: key presses and clicks through Pilot."""

from __future__ import annotations

import pytest
from gamenight.sdk import Match, MessageDialog, ResultDialog, SeatConfig
from gamenight.sdk.testing import make_room, wait_for_bots

from gamenight_example.screen import GoofspielScreen


def make_app(registry, tmp_path, **kwargs):
    return make_room(registry, tmp_path, **kwargs)


async def test_keys_and_clicks_bid_and_a_spent_card_is_refused_with_a_message(registry, tmp_path):
    match = Match(registry.game("goofspiel"), [SeatConfig("Kei"), SeatConfig("Bot", "matcher")], {}, seed=2)
    app = make_app(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        assert isinstance(screen, GoofspielScreen) and match.human_to_move()
        await pilot.press("k")  # bid the king
        await wait_for_bots(pilot)
        assert match.state.history[0].bids[0] == 13 and 13 not in screen.view.hand
        assert screen.query_one("#card-13").has_class("spent")
        assert "Last round" in str(screen.query_one("#last-round").render())
        log = list(match.log)
        await pilot.press("k")
        await wait_for_bots(pilot)
        assert match.log == log
        message = screen.query_one("#message")
        assert message.has_class("error") and "Bid one of the cards in your hand." in str(message.render())
        await pilot.click("#card-5")
        await wait_for_bots(pilot)
        assert match.state.history[1].bids[0] == 5


async def test_hot_seat_hides_the_table_between_bids(registry, tmp_path):
    match = Match(registry.game("goofspiel"), [SeatConfig("Ann"), SeatConfig("Ben")], {}, seed=1)
    app = make_app(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("j")
        await pilot.pause()
        assert isinstance(app.screen, MessageDialog)  # pass the keyboard to Ben
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GoofspielScreen) and screen.view_seat == 1
        assert "bid face down" in str(screen.query_one("#seats").render())
        assert "J" not in str(screen.query_one("#seats").render())


async def test_a_short_game_ends_in_the_result_dialog(registry, tmp_path):
    match = Match(registry.game("goofspiel"), [SeatConfig("Kei"), SeatConfig("Bot", "matcher")], {"cards": 5})
    app = make_app(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in "12345":
            await wait_for_bots(pilot)
            await pilot.press(key)
        await wait_for_bots(pilot)
        assert isinstance(app.screen, ResultDialog)


async def test_the_plugins_theme_is_offered_by_the_room(registry, tmp_path):
    app = make_app(registry, tmp_path, theme_name="example-dusk")
    async with app.run_test(size=(80, 24)):
        assert app.theme == "example-dusk"
        assert app.theme_variables["table-felt"].lower() == "#3b2458"


@pytest.mark.parametrize("theme", ["gamenight", "gamenight-16", "example-dusk"])
async def test_the_games_own_theme_variable_styles_the_pot(registry, tmp_path, theme):
    """GameInfo.theme_variables: $goofspiel-pot-style, bold unless a theme sets it."""
    match = Match(registry.game("goofspiel"), [SeatConfig("Kei"), SeatConfig("Bot", "matcher")], {"cards": 5})
    app = make_app(registry, tmp_path, start_match=match, theme_name=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        assert app.theme_variables["goofspiel-pot-style"] == "bold"
        assert app.screen.query_one("#pot").styles.text_style.bold


async def test_the_cursor_bids_and_the_coach_panel_follows_it(registry, tmp_path):
    """←/→ move the cursor over the hand, Return bids; ``?`` opens the room's coach panel (this plugin's
    advisor, no coach code in the screen), whose last line says what the card under the cursor costs."""
    match = Match(registry.game("goofspiel"), [SeatConfig("Kei"), SeatConfig("Bot", "matcher")], {}, seed=2)
    app = make_app(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        await pilot.press("right", "right", "question_mark")
        assert screen.highlighted_action() == "bid:2" and screen.query_one("#card-2").has_class("cursor")
        for _ in range(100):
            if "Bid 2" in str(screen.query_one("#coach-cost").render()):
                break
            await pilot.pause(0.02)
        assert "Bid 2" in str(screen.query_one("#coach-cost").render())
        await pilot.press("enter")
        await wait_for_bots(pilot)
        assert match.state.history[0].bids[0] == 2
