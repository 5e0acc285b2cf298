"""docs/rules/mille.md 7 (safeties, extra turn, coup fourré) and 3.3 (a safety before picking)."""

from __future__ import annotations

import pytest
from gamenight.sdk import IllegalAction
from gamenight_mille.rules import EMPTY, MilleRules, hand_lines

from .conftest import card, cards, hand, seat, state


def lines(game) -> dict[str, tuple[int, int]]:
    return dict(hand_lines(game))


def hit_by(rules: MilleRules, hazard: str, victim_hand: tuple[int, ...], **victim: object):
    """Seat 1 plays ``hazard`` on a moving seat 0; returns the state with seat 0 to move."""
    attacker = seat(hand(hazard, "25", "25", "25", "25", "25"), p="25")
    victim_seat = seat(victim_hand, battle="Go", **victim)
    game = state(victim_seat, other=attacker, deck=cards(*["50"] * 10), turn=1, picked=True)
    hit = rules.apply(game, "use:1")
    assert hit.turn == 0 and not hit.picked
    return hit


def test_the_turn_starts_with_a_pick_into_the_p_slot(rules: MilleRules):
    game = state(seat(hand("25", "50", "75", "100", "Go", "Stop"), battle="Go"), deck=cards("200", "Go"))
    assert rules.legal_actions(game) == ["draw"]
    assert rules.refusal(game, "use:1") == "must pick first"
    assert rules.refusal(game, "discard:1") == "must pick first"
    drawn = rules.apply(game, "draw")
    assert drawn.seats[0].hand[0] == card("200") and drawn.picked and drawn.turn == 0
    assert drawn.deck == cards("Go")
    assert rules.refusal(drawn, "draw") == "already picked"


def test_a_played_card_is_replaced_by_the_p_card(rules: MilleRules):
    game = state(seat(hand("25", "50", "75", "100", "Go", "Stop"), p="200"), picked=True)
    after = rules.apply(game, "discard:3")
    assert after.seats[0].hand == (EMPTY, *cards("25", "50", "200", "100", "Go", "Stop"))


def test_a_safety_scores_100_protects_and_gives_another_turn(rules: MilleRules):
    game = state(seat(hand("Extra Tank", "25"), p="50", battle="Go"), picked=True)
    after = rules.apply(game, "use:1")
    me = after.seats[0]
    assert me.safeties == (True, False, False, False)
    assert after.turn == 0 and not after.picked  # again: pick, then play
    assert rules.legal_actions(after) == ["draw"]
    assert lines(after)["Each Safety"] == (100, 0)
    assert lines(after)["Each Coup Fourré"] == (0, 0)


def test_safeties_can_never_be_discarded(rules: MilleRules):
    game = state(seat(hand("Driving Ace", "25"), p="50"), picked=True)
    with pytest.raises(IllegalAction, match=r"discard a safety\?"):
        rules.apply(game, "discard:1")
    assert "discard:1" not in rules.legal_actions(game)
    empty_deck = state(seat(hand("Driving Ace", "25")), deck=())
    assert rules.refusal(empty_deck, "discard:1") == "discard a safety?"


@pytest.mark.parametrize(
    ("hazard", "safety"),
    [
        ("Out of Gas", "Extra Tank"),
        ("Flat Tire", "Puncture Proof"),
        ("Accident", "Driving Ace"),
        ("Stop", "Right of Way"),
    ],
)
def test_coup_fourre_before_the_draw_removes_the_hazard_and_scores_300_more(rules: MilleRules, hazard, safety):
    hit = hit_by(rules, hazard, hand(safety, "100", "75", "50", "25", "Go"))
    assert "use:1" in rules.legal_actions(hit)  # allowed before the pick
    coup = rules.apply(hit, "use:1")
    me = coup.seats[0]
    assert me.can_move and me.battle in (card("Go"), EMPTY)
    assert lines(coup)["Each Safety"] == (100, 0)
    assert lines(coup)["Each Coup Fourré"] == (300, 0)
    assert coup.turn == 0 and not coup.picked  # another turn


def test_after_a_coup_fourre_the_next_pick_takes_two_cards(rules: MilleRules):
    hit = hit_by(rules, "Flat Tire", hand("Puncture Proof", "100", "75", "50", "25", "Go"))
    coup = rules.apply(hit, "use:1")
    assert coup.seats[0].hand_count == 5
    drawn = rules.apply(coup, "draw")
    assert drawn.seats[0].hand_count == 7
    assert drawn.seats[0].hand[0] != EMPTY and drawn.seats[0].hand[1] != EMPTY
    assert len(coup.deck) - len(drawn.deck) == 2


def test_the_same_safety_played_after_drawing_removes_the_hazard_but_scores_only_100(rules: MilleRules):
    hit = hit_by(rules, "Accident", hand("Driving Ace", "100", "75", "50", "25", "Go"))
    drawn = rules.apply(hit, "draw")
    late = rules.apply(drawn, "use:1")
    assert late.seats[0].battle == card("Go") and late.seats[0].can_move
    assert lines(late)["Each Safety"] == (100, 0)
    assert lines(late)["Each Coup Fourré"] == (0, 0)
    assert late.turn == 0


def test_right_of_way_against_a_fresh_speed_limit_is_a_coup_fourre(rules: MilleRules):
    hit = hit_by(rules, "Speed Limit", hand("Right of Way", "100", "75", "50", "25", "Go"))
    assert "use:1" in rules.legal_actions(hit)
    coup = rules.apply(hit, "use:1")
    assert coup.seats[0].speed == EMPTY and coup.seats[0].can_move
    assert lines(coup)["Each Coup Fourré"] == (300, 0)


def test_right_of_way_on_a_stop_clears_the_pile_and_moves_at_once(rules: MilleRules):
    hit = hit_by(rules, "Stop", hand("Right of Way", "100", "75", "50", "25", "Go"))
    coup = rules.apply(hit, "use:1")
    assert coup.seats[0].battle == EMPTY and coup.seats[0].can_move


def test_an_old_hazard_cancelled_before_drawing_is_no_coup_fourre(rules: MilleRules):
    # The Flat Tire hit a turn ago (the seat has drawn since): no longer fresh.
    game = state(seat(hand("Puncture Proof", "100", "75", "50", "25", "Go"), battle="Flat Tire"))
    assert "use:1" in rules.legal_actions(game)  # it still cancels, so it may come before the pick
    after = rules.apply(game, "use:1")
    assert after.seats[0].battle == card("Go")
    assert lines(after)["Each Coup Fourré"] == (0, 0)


def test_a_safety_that_cancels_nothing_needs_a_pick_first(rules: MilleRules):
    hit = hit_by(rules, "Flat Tire", hand("Extra Tank", "100", "75", "50", "25", "Go"))
    assert rules.legal_actions(hit) == ["draw"]
    assert rules.refusal(hit, "use:1") == "must pick first"


def test_the_original_flag_quirk_is_not_copied_right_of_way_under_an_old_limit(rules: MilleRules):
    # docs/rules/mille.md 7.7 (Ours): old Speed Limit, fresh Flat Tire.  Right of Way only lifts the
    # old limit, so ours scores no coup (the original would); Puncture Proof still does.
    hit = hit_by(
        rules, "Flat Tire", hand("Right of Way", "Puncture Proof", "75", "50", "25", "Go"), speed="Speed Limit"
    )
    row = rules.apply(hit, "use:1")
    assert lines(row)["Each Coup Fourré"] == (0, 0)
    slot = row.seats[0].hand.index(card("Puncture Proof"))
    puncture = rules.apply(row, f"use:{slot}")
    assert lines(puncture)["Each Coup Fourré"] == (300, 0)


def test_two_fresh_hazards_can_both_be_answered_by_coups_once_the_deck_is_out(rules: MilleRules):
    # With no draws the victim's flags last until it ends a turn.
    attacker = seat(hand("Speed Limit", "Flat Tire"), battle="Go")
    victim = seat(hand("Puncture Proof", "Right of Way", "25"), battle="Go")
    game = state(attacker, other=victim, deck=())
    game = rules.apply(game, "use:1")  # Speed Limit on seat 1
    assert game.turn == 1
    game = rules.apply(game, "use:3")  # seat 1 plays its 25 (turn ends, its flags clear)
    assert not game.seats[1].fresh_speed
    game = rules.apply(game, f"use:{game.seats[0].hand.index(card('Flat Tire'))}")
    assert game.seats[1].fresh_battle
    first = rules.apply(game, f"use:{game.seats[1].hand.index(card('Puncture Proof'))}")
    assert lines(first)["Each Coup Fourré"] == (0, 300)
    second = rules.apply(first, f"use:{first.seats[1].hand.index(card('Right of Way'))}")
    assert lines(second)["Each Coup Fourré"] == (0, 300)  # the limit was old: no second coup


def test_all_four_safeties_score_300_more(rules: MilleRules):
    me = seat(hand("Right of Way", "25"), p="50", battle="Go", safeties=("Extra Tank", "Puncture Proof", "Driving Ace"))
    game = state(me, picked=True)
    before = lines(game)
    assert before["Each Safety"] == (300, 0) and before["All 4 Safeties"] == (0, 0)
    after = rules.apply(game, "use:1")
    assert lines(after)["Each Safety"] == (400, 0)
    assert lines(after)["All 4 Safeties"] == (300, 0)


def test_the_hazard_flag_clears_when_the_victim_draws(rules: MilleRules):
    hit = hit_by(rules, "Stop", hand("100", "75", "50", "25", "Go", "Go"))
    assert hit.seats[0].fresh_battle
    assert not rules.apply(hit, "draw").seats[0].fresh_battle
