"""Properties over any shuffle and any variant (hypothesis)."""

from __future__ import annotations

from gamenight_mate.rules import DOUBLE_DECK, SINGLE_DECK, VALUES, MateRules, card_rank, card_suit
from hypothesis import given, settings
from hypothesis import strategies as st

RULES = MateRules()


def expected_answers(lead: str, cards: tuple[str, ...], kings_privilege: bool, free_move: bool) -> set[str]:
    """docs/rules/mate.md 2.2, 6.2 and 6.3 read literally, independently of the engine's code."""
    if kings_privilege and card_rank(lead) == "K" and any(card_rank(c) == "K" for c in cards):
        return {c for c in cards if card_rank(c) == "K"}
    suit = {c for c in cards if card_suit(c) == card_suit(lead)}
    rank = {c for c in cards if card_rank(c) == card_rank(lead)}
    if free_move:
        return suit | rank
    return suit or rank


@settings(max_examples=25, deadline=None)
@given(
    double=st.booleans(),
    kings_privilege=st.booleans(),
    free_move=st.booleans(),
    shuffle=st.randoms(use_true_random=False),
    choices=st.randoms(use_true_random=False),
)
def test_any_shuffle_deals_ten_each_and_every_play_follows_the_rules(
    double: bool, kings_privilege: bool, free_move: bool, shuffle, choices
) -> None:
    options = {"double_deck": double, "kings_privilege": kings_privilege, "free_move": free_move}
    deck = list(DOUBLE_DECK if double else SINGLE_DECK)
    shuffle.shuffle(deck)
    state = RULES.apply(RULES.new_game(2, options), " ".join(deck))
    assert len(state.hands[0]) == len(state.hands[1]) == 10
    assert sorted(state.hands[0] + state.hands[1]) == sorted(deck)
    while state.phase != "ended":
        if state.phase == "play" and state.lead is not None:
            seat = state.to_act()
            allowed = expected_answers(state.lead, state.available(seat), kings_privilege, free_move)
            assert set(RULES.legal_actions(state)) == allowed and allowed
        action = choices.choice(RULES.legal_actions(state))
        before = state
        state = RULES.apply(state, action)
        if state.phase == "ended" and state.results[-1].winner is not None:
            result = state.results[-1]
            mated = 1 - result.winner
            assert before.lead is None  # a mate happens on a lead, never on an answer
            assert not expected_answers(result.card, before.available(mated), kings_privilege, free_move)
            moves = result.move + (1 if before.foreplaced[result.winner] is not None else 0)
            double_score = 2 if result.overmate else 1
            assert result.score == moves * VALUES[card_rank(result.card)] * double_score
