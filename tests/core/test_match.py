import pytest
from gamenight.match import LogEntry, Match, SeatConfig, play_headless
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction

from tests.core.nim import NIM


def seats(*bots):
    return [SeatConfig(f"s{i}", bot) for i, bot in enumerate(bots)]


def test_illegal_action_changes_nothing():
    match = Match(NIM, seats(None, None), {})
    before = match.state
    with pytest.raises(IllegalAction, match="1 to 3"):
        match.apply("4")
    assert match.state is before and match.log == []


def test_chance_is_logged_and_reproducible_from_the_seed():
    one = play_headless(NIM, seats("first", "first"), {"dice": True}, seed=5)
    two = play_headless(NIM, seats("first", "first"), {"dice": True}, seed=5)
    assert one.log[0].seat == CHANCE and one.log[0].action.startswith("die:")
    assert one.log == two.log


def test_replay_rebuilds_the_same_state():
    played = play_headless(NIM, seats("first", "perfect"), {"dice": True}, seed=3)
    copy = Match(NIM, seats("first", "perfect"), {"dice": True}, seed=99)
    copy.replay(played.log)
    assert copy.state == played.state and copy.to_move() == TERMINAL


def test_replay_names_the_bad_move():
    match = Match(NIM, seats(None, None), {})
    with pytest.raises(IllegalAction, match="move 2"):
        match.replay([LogEntry(0, "1"), LogEntry(1, "9")])


def test_bots_get_only_their_seats_view():
    seen = []

    class Spy:
        def choose(self, view, legal, ctx):
            seen.append((ctx.seat, view["secret"]))
            return legal[0]

    game = NIM.__class__(**{**NIM.__dict__, "bots": (NIM.bots[0].__class__("spy", "Spy", lambda r, s, o: Spy()),)})
    play_headless(game, seats("spy", "spy"), {}, seed=1)
    assert {secret for seat, secret in seen if seat == 1} == {None}
    assert {secret for seat, secret in seen if seat == 0} == {7}


def test_running_totals_add_up_over_games():
    match = play_headless(NIM, seats("perfect", "first"), {}, seed=1)
    match.record_result()
    match.start_game()
    while not match.over:
        match.apply(match.bot_choice())
    match.record_result()
    assert match.games_played == 2 and sum(match.totals) == 2


def test_seat_count_is_checked():
    with pytest.raises(ValueError, match="nim takes 2–3 seats, not 1"):
        Match(NIM, seats(None), {})


def test_each_new_game_of_a_match_is_told_its_number():
    from gamenight.sdk import Rules

    numbers = []

    class Counting(type(NIM.rules)):
        def new_game_in_match(self, seats, options, game_number):
            numbers.append(game_number)
            return self.new_game(seats, options)

    assert isinstance(NIM.rules, Rules)
    import dataclasses

    game = dataclasses.replace(NIM, rules=Counting())
    match = play_headless(game, seats("first", "first"), {}, seed=1, game_number=4)
    assert numbers == [4] and match.games_played == 4
    match.record_result()
    match.start_game()
    assert numbers == [4, 5]


def test_a_rules_object_without_new_game_in_match_still_starts():
    import dataclasses

    class DuckRules:  # does not subclass sdk.Rules
        def __init__(self):
            self.inner = NIM.rules

        def __getattr__(self, name):
            if name == "new_game_in_match":
                raise AttributeError(name)
            return getattr(self.inner, name)

    game = dataclasses.replace(NIM, rules=DuckRules())
    match = Match(game, seats(None, None), {}, games_played=3)
    assert match.state == NIM.rules.new_game(2, match.options)
