"""docs/rules/mate.md, clause by clause."""

from __future__ import annotations

import itertools

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction, seat_token
from gamenight_mate.rules import (
    DOUBLE_DECK,
    NONE,
    SINGLE_DECK,
    MateRules,
    PlayResult,
    Variant,
    answers,
    score_for,
    stronger,
)

from .conftest import deal_action, dealt, finish, position, split_deck

# A holds all the Kings and every club; B holds no club and no King.
A_KINGS = ["AC", "10C", "KC", "QC", "7C", "KS", "QS", "7S", "KH", "KD"]


# -- mate.md 1 and 2.1: cards and deal ------------------------------------------------


def test_the_deck_is_a_10_k_q_7_of_each_suit() -> None:
    assert len(SINGLE_DECK) == 20 == len(set(SINGLE_DECK))
    assert sorted(SINGLE_DECK) == sorted(r + s for r in ("A", "10", "K", "Q", "7") for s in "CSHD")


def test_the_match_starts_with_a_deal_by_a_that_is_a_chance_action(rules: MateRules) -> None:
    state = rules.new_game(2, {})
    assert rules.to_move(state) == CHANCE
    assert state.dealer == 0


def test_the_deal_gives_ten_cards_each_five_and_five_non_dealer_first(rules: MateRules) -> None:
    order = list(SINGLE_DECK)
    state = rules.apply(rules.new_game(2, {}), " ".join(order))
    to_b = set(order[0:5] + order[10:15])
    assert set(state.hands[1]) == to_b and len(state.hands[1]) == 10
    assert set(state.hands[0]) == set(order) - to_b and len(state.hands[0]) == 10


@pytest.mark.parametrize(
    "shuffle",
    [
        " ".join(SINGLE_DECK[:19]),  # a card short
        " ".join([*SINGLE_DECK[:19], "AC"]),  # a card twice
        " ".join([*SINGLE_DECK, "AC"]),  # 21 cards
        " ".join(DOUBLE_DECK),  # the other deck
        "shuffle",
    ],
)
def test_a_deal_that_is_not_the_twenty_cards_is_refused(rules: MateRules, shuffle: str) -> None:
    state = rules.new_game(2, {})
    with pytest.raises(IllegalAction, match="twenty cards"):
        rules.apply(state, shuffle)
    assert rules.to_move(state) == CHANCE


def test_sampled_shuffles_are_valid_deals(rules: MateRules) -> None:
    import random

    for seed in range(20):
        state = rules.new_game(2, {"double_deck": seed % 2 == 1})
        after = rules.apply(state, rules.sample_chance(state, random.Random(seed)))
        assert sorted(after.hands[0] + after.hands[1]) == sorted(DOUBLE_DECK if seed % 2 else SINGLE_DECK)


# -- mate.md 2: play --------------------------------------------------------------------


def test_the_dealer_leads_the_first_play_and_may_lead_any_card(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    assert rules.to_move(state) == 0
    assert sorted(rules.legal_actions(state)) == sorted(A_KINGS)


def test_the_other_seat_must_follow_suit_when_it_can(rules: MateRules) -> None:
    state = position(rules, ["AC", "QS"], ["7C", "10C"], move=9, leader=0)
    state = rules.apply(state, "AC")
    assert rules.to_move(state) == 1
    assert sorted(rules.legal_actions(state)) == ["10C", "7C"]


def test_without_the_suit_it_must_answer_with_the_same_rank(rules: MateRules) -> None:
    state = position(rules, ["AC", "QS"], ["AH", "AD", "10H"], move=8, leader=0)
    state = rules.apply(state, "AC")
    assert sorted(rules.legal_actions(state)) == ["AD", "AH"]


def test_with_neither_suit_nor_rank_it_is_mated_at_once(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    after = rules.apply(state, "KC")
    assert after.phase == "ended"
    assert after.results == (PlayResult(winner=0, move=1, card="KC", foreplaced=False),)
    assert after.results[0].score == 4


def test_rank_order_is_a_10_k_q_7_then_clubs_spades_hearts_diamonds() -> None:
    ladder = ["AC", "AS", "AH", "AD", "10C", "10D", "KC", "KS", "KH", "KD", "QC", "7C", "7D"]
    for stronger_card, weaker_card in itertools.pairwise(ladder):
        assert stronger(stronger_card, weaker_card) and not stronger(weaker_card, stronger_card)


def test_the_stronger_card_leads_the_next_move(rules: MateRules) -> None:
    state = position(rules, ["7C", "QS", "QH"], ["AC", "10S", "7D"], move=8, leader=0)
    state = finish(rules, state, ["7C", "AC"])
    assert (state.move, state.leader, rules.to_move(state)) == (9, 1, 1)
    state = finish(rules, state, ["10S", "QS"])
    assert (state.move, state.leader) == (10, 1)


def test_played_cards_stay_in_front_of_their_owner_in_order(rules: MateRules) -> None:
    state = position(rules, ["7C", "QS", "QH"], ["AC", "10S", "7D"], move=8, leader=0)
    before = state.played
    state = finish(rules, state, ["7C", "AC", "10S", "QS"])
    assert state.played == ((*before[0], "7C", "QS"), (*before[1], "AC", "10S"))


def test_ten_moves_without_a_mate_are_a_draw_and_nobody_scores(rules: MateRules) -> None:
    state = position(rules, ["7C"], ["QC"], move=10, leader=0)
    state = finish(rules, state, ["7C", "QC"])
    assert state.phase == "ended"
    assert state.results[-1] == PlayResult(None)
    assert state.results[-1].points() == (0, 0)
    assert state.totals == (0, 0)


# -- mate.md 1.4, 3, 5.1, 5.4, 5.5 and 5.7: values and score ------------------------------


@pytest.mark.parametrize(("rank", "value"), [("A", 11), ("10", 10), ("K", 4), ("Q", 3), ("7", 7)])
def test_card_values(rank: str, value: int) -> None:
    assert score_for(1, rank + "C", foreplaced=False) == value


def test_worked_example_mate_on_move_5_with_a_king_scores_20(rules: MateRules) -> None:
    a = ["KC", "QC", "AS", "10S", "7S", "QS"]
    b = ["AH", "10H", "QH", "7H", "AD", "10D"]
    state = rules.apply(position(rules, a, b, move=5, leader=0), "KC")
    result = state.results[-1]
    assert (result.winner, result.move, result.score) == (0, 5, 20)
    assert result.formula() == "5 × 4 = 20"
    assert "mate on move 5 with K♣: 5 × 4 = 20" in result.describe()


def test_worked_example_mate_on_move_7_with_a_king_scores_28(rules: MateRules) -> None:
    state = position(rules, ["AH", "7C", "QC", "10C"], ["KD", "10H", "QH", "7S"], move=7, leader=1)
    state = rules.apply(state, "KD")
    assert state.results[-1].points() == (0, 28)


def test_a_foreplacers_win_counts_one_move_more(rules: MateRules) -> None:
    a = ["KC", "QC", "AS", "10S", "7S", "QS", "7C"]  # 9 cards after foreplacing, 2 played
    b = ["AH", "10H", "QH", "7H", "AD", "10D", "QD", "7D"]
    state = position(rules, a, b, move=3, leader=0, foreplaced=("10C", None))
    result = rules.apply(state, "KC").results[-1]
    assert (result.move, result.foreplaced, result.score) == (3, True, 16)
    assert result.formula() == "(3 + 1) × 4 = 16"


def test_a_foreplacer_plays_its_move_9_card_again_on_move_10(rules: MateRules) -> None:
    state = position(rules, ["AC"], ["7C", "QH"], move=9, leader=0, foreplaced=("KD", None))
    state = finish(rules, state, ["AC", "7C"])
    assert state.hands[0] == ()
    assert rules.legal_actions(state) == ["AC"]
    state = rules.apply(state, "AC")
    assert state.played[0][-2:] == ("AC", "AC")


def test_ace_overmate_scores_242(rules: MateRules) -> None:
    state = position(rules, ["AC"], ["7C", "10D"], move=9, leader=0, foreplaced=("KD", None))
    state = finish(rules, state, ["AC", "7C", "AC"])
    result = state.results[-1]
    assert (result.winner, result.move, result.overmate, result.score) == (0, 10, True, 242)
    assert result.formula() == "(10 + 1) × 11 × 2 = 242"
    assert "overmate" in result.describe()


def test_a_mate_on_move_10_without_foreplacing_is_not_doubled(rules: MateRules) -> None:
    state = rules.apply(position(rules, ["AC"], ["10D"], move=10, leader=0), "AC")
    assert (state.results[-1].overmate, state.results[-1].score) == (False, 110)


def test_a_foreplacer_answering_on_move_10_replays_its_move_9_card(rules: MateRules) -> None:
    state = position(rules, ["QS", "KH"], ["10S"], move=9, leader=0, foreplaced=(None, "7D"))
    state = finish(rules, state, ["QS", "10S"])  # B's 10♠ wins: B leads move 10 with it again
    assert rules.to_move(state) == 1 and rules.legal_actions(state) == ["10S"]
    state = rules.apply(state, "10S")
    result = state.results[-1]
    assert (result.winner, result.move, result.score) == (1, 10, 220)


def test_when_both_foreplace_move_10_repeats_move_9_and_cannot_mate(rules: MateRules) -> None:
    state = position(rules, ["QS"], ["10S"], move=9, leader=0, foreplaced=("7D", "AC"))
    state = finish(rules, state, ["QS", "10S", "10S", "QS"])
    assert state.results[-1] == PlayResult(None)


# -- mate.md 4: round and match ---------------------------------------------------------


def _finish_play(rules: MateRules, state):
    """Play the current play out with the first legal card each time."""
    while state.phase != "ended":
        state = rules.apply(state, rules.legal_actions(state)[0])
    return state


def test_the_four_plays_follow_the_match_order(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    b_hand = split_deck(A_KINGS)
    # Play 1: A dealt and leads.
    assert (state.play, state.dealer, rules.to_move(state)) == (0, 0, 0)
    state = _finish_play(rules, state)
    # Play 2: the same hands swapped, unshuffled; B leads.
    assert rules.to_move(state) == 1
    play2 = rules.current(state)
    assert (play2.play, play2.dealer, play2.leader) == (1, 0, 1)
    assert sorted(play2.hands[0]) == sorted(b_hand) and sorted(play2.hands[1]) == sorted(A_KINGS)
    state = _finish_play(rules, play2)
    # Play 3: B shuffles and deals (chance), then leads.
    assert rules.to_move(state) == CHANCE
    play3 = rules.apply(state, deal_action(A_KINGS, b_hand))
    assert (play3.play, play3.dealer, play3.leader, rules.to_move(play3)) == (2, 1, 1, 1)
    assert sorted(play3.hands[1]) == sorted(A_KINGS)  # the dealer's half of the shuffle
    state = _finish_play(rules, play3)
    # Play 4: swapped again; A leads.
    play4 = rules.current(state)
    assert (play4.play, play4.leader, rules.to_move(play4)) == (3, 0, 0)
    assert play4.hands == (play3.hands[1], play3.hands[0])
    state = _finish_play(rules, play4)
    assert rules.to_move(state) == TERMINAL
    assert len(state.results) == 4


def test_the_outcome_is_the_match_total_with_one_line_per_play(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    state = rules.apply(state, "KC")  # A mates on move 1: 4
    state = _finish_play(rules, rules.current(state))
    state = rules.apply(state, deal_action(A_KINGS, split_deck(A_KINGS)))
    state = rules.apply(state, "KC")  # B (now holding A_KINGS, leading) mates on move 1: 4
    state = _finish_play(rules, rules.current(state))
    outcome = rules.outcome(state)
    assert outcome.scores == state.totals
    assert len(outcome.lines) == 4
    assert outcome.lines[0][1] == (4, 0) and outcome.lines[2][1] == (0, 4)
    assert outcome.lines[0][0] == "Play 1: mate on move 1 with K♣: 1 × 4 = 4"


def test_a_pause_after_each_of_the_first_three_plays_shows_the_score_formula(rules: MateRules) -> None:
    state = rules.apply(dealt(rules, A_KINGS, {"foreplacing": False}), "KC")
    pause = rules.interlude(state)
    assert pause is not None and pause.key == "play-1"
    assert "mate on move 1 with K♣: 1 × 4 = 4" in pause.title
    assert pause.scores == (4, 0) and len(pause.lines) == 1
    assert rules.interlude(rules.current(state)) is None


def test_no_pause_after_the_fourth_play_the_match_ends(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    state = _finish_play(rules, state)
    state = _finish_play(rules, rules.current(state))
    state = rules.apply(state, deal_action(A_KINGS, split_deck(A_KINGS)))
    state = _finish_play(rules, state)
    state = _finish_play(rules, rules.current(state))
    assert rules.interlude(state) is None and rules.to_move(state) == TERMINAL
    with pytest.raises(IllegalAction, match="over"):
        rules.apply(state, "AC")


# -- mate.md 5: foreplacing ----------------------------------------------------------------


def test_foreplacing_is_decided_dealer_first_then_the_other_seat(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS)
    assert state.phase == "foreplace" and rules.to_move(state) == 0
    assert rules.legal_actions(state)[0] == NONE
    state = rules.apply(state, NONE)
    assert rules.to_move(state) == 1
    state = rules.apply(state, "AH")
    assert state.phase == "play" and rules.to_move(state) == 0
    assert state.foreplaced == (None, "AH") and len(state.hands[1]) == 9


def test_in_the_second_round_b_decides_first(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS)
    state = finish(rules, state, [NONE, NONE])
    state = _finish_play(rules, state)
    play2 = rules.current(state)
    assert play2.phase == "foreplace" and rules.to_move(play2) == 0  # the round's dealer, A
    state = _finish_play(rules, finish(rules, play2, [NONE, NONE]))
    play3 = rules.apply(state, deal_action(A_KINGS, split_deck(A_KINGS)))
    assert play3.phase == "foreplace" and rules.to_move(play3) == 1


def test_the_second_card_aside_may_not_share_suit_or_rank_with_the_first(rules: MateRules) -> None:
    state = rules.apply(dealt(rules, A_KINGS), "QC")
    choices = rules.legal_actions(state)
    assert NONE in choices
    assert sorted(choices) == sorted([NONE, "AH", "10H", "7H", "AS", "10S", "AD", "10D", "7D"])
    with pytest.raises(IllegalAction, match="Q♥ shares a suit or rank with Q♣"):
        rules.apply(state, "QH")


def test_a_second_card_sharing_only_the_rank_is_refused(rules: MateRules) -> None:
    a = ["AC", "10C", "KC", "QC", "7C", "AS", "10S", "KS", "QS", "7S"]
    state = rules.apply(dealt(rules, a), "AC")
    with pytest.raises(IllegalAction, match="shares a suit or rank"):
        rules.apply(state, "AH")
    assert "10H" in rules.legal_actions(state)


def test_only_a_card_of_ones_own_hand_can_be_set_aside(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS)
    with pytest.raises(IllegalAction, match="own hand"):
        rules.apply(state, "AH")


def test_without_the_foreplacing_option_play_starts_at_once(rules: MateRules) -> None:
    state = dealt(rules, A_KINGS, {"foreplacing": False})
    assert state.phase == "play" and NONE not in rules.legal_actions(state)


# -- mate.md 6: variants -------------------------------------------------------------------


def test_double_deck_has_the_twenty_cards_of_the_variant() -> None:
    by_suit = {suit: sorted(card[:-1] for card in DOUBLE_DECK if card[-1] == suit) for suit in "CSHD"}
    assert by_suit == {
        "C": sorted(["A", "10", "K", "7", "7"]),
        "S": sorted(["A", "10", "K", "K", "7"]),
        "H": sorted(["A", "10", "10", "K", "7"]),
        "D": sorted(["A", "A", "10", "K", "7"]),
    }


def test_double_deck_of_two_identical_cards_the_first_played_is_stronger(rules: MateRules) -> None:
    options = {"double_deck": True}
    state = position(rules, ["7C", "AD"], ["7C", "KS"], move=9, leader=0, options=options)
    state = finish(rules, state, ["7C", "7C"])
    assert state.leader == 0
    state = position(rules, ["7C", "AD"], ["7C", "KS"], move=9, leader=1, options=options)
    state = finish(rules, state, ["7C", "7C"])
    assert state.leader == 1


def test_double_deck_lists_identical_cards_once(rules: MateRules) -> None:
    state = position(rules, ["7C", "7C", "AD"], ["KS", "KS", "AH"], move=8, leader=0, options={"double_deck": True})
    assert sorted(rules.legal_actions(state)) == ["7C", "AD"]
    after = rules.apply(state, "7C")
    assert after.hands[0] == ("7C", "AD")


def test_kings_privilege_a_king_led_must_be_answered_by_a_king(rules: MateRules) -> None:
    options = {"kings_privilege": True}
    state = rules.apply(position(rules, ["KC", "7S"], ["QC", "KH"], move=9, leader=0, options=options), "KC")
    assert rules.legal_actions(state) == ["KH"]
    with pytest.raises(IllegalAction, match="King's privilege"):
        rules.apply(state, "QC")


def test_kings_privilege_without_a_king_the_suit_may_be_followed(rules: MateRules) -> None:
    variant = Variant(kings_privilege=True)
    assert answers("KC", ["QC", "7H"], variant) == ("QC",)
    assert answers("QC", ["7C", "QH", "KH"], variant) == ("7C",)


def test_free_move_allows_the_same_rank_while_holding_the_suit(rules: MateRules) -> None:
    options = {"free_move": True}
    state = rules.apply(position(rules, ["QC", "7S"], ["7C", "QH"], move=9, leader=0, options=options), "QC")
    assert sorted(rules.legal_actions(state)) == ["7C", "QH"]
    assert answers("QC", ["7C", "QH"], Variant()) == ("7C",)


def test_variants_combine(rules: MateRules) -> None:
    variant = Variant(double_deck=True, kings_privilege=True, free_move=True)
    assert answers("KS", ["KS", "7S", "10H"], variant) == ("KS",)
    assert answers("7S", ["7C", "KS", "10H"], variant) == ("KS", "7C")
    state = dealt(rules, list(DOUBLE_DECK[:10]), {"double_deck": True, "kings_privilege": True, "free_move": True})
    assert state.variant == Variant(True, True, True, True)


# -- bad input -------------------------------------------------------------------------------


def test_an_illegal_card_is_refused_with_the_reason_and_changes_nothing(rules: MateRules) -> None:
    state = rules.apply(position(rules, ["AC", "QS"], ["7C", "AH"], move=9, leader=0), "AC")
    snapshot = state
    with pytest.raises(IllegalAction, match="follow suit: A♣ was led"):
        rules.apply(state, "AH")
    with pytest.raises(IllegalAction, match="not in your hand"):
        rules.apply(state, "KD")
    with pytest.raises(IllegalAction, match="'nonsense' is not in your hand"):
        rules.apply(state, "nonsense")
    assert state == snapshot and rules.legal_actions(state) == ["7C"]


def test_without_the_suit_the_reason_names_the_rank(rules: MateRules) -> None:
    state = rules.apply(position(rules, ["AC", "QS"], ["AH", "7D"], move=9, leader=0), "AC")
    with pytest.raises(IllegalAction, match="rank A"):
        rules.apply(state, "7D")


def test_log_lines_describe_deals_decisions_and_cards(rules: MateRules) -> None:
    state = rules.new_game(2, {})
    assert rules.describe_action(state, "x", CHANCE) == f"{seat_token(0)} shuffles and deals."
    state = dealt(rules, A_KINGS)
    assert rules.describe_action(state, NONE, 0) == f"{seat_token(0)} does not foreplace."
    assert rules.describe_action(state, "KC", 0) == f"{seat_token(0)} sets K♣ aside."
    state = finish(rules, state, [NONE, NONE])
    assert rules.describe_action(state, "QC", 0) == f"{seat_token(0)} leads Q♣ (move 1)."
    state = rules.apply(state, "QC")
    assert rules.describe_action(state, "QS", 1) == f"{seat_token(1)} answers Q♠."
