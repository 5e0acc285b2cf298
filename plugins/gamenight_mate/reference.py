"""A slow, plain reference for the solver: memoised minimax over the rules' own functions.

Independent of the solver's bitmasks, windows and bounds, so the tests and the bench can
check the fast solver against it (seconds per full deal; not for play).
"""

from __future__ import annotations

from functools import cache

from gamenight_mate.rules import MOVES, MateState, answers, score_for, stronger


def plain_minimax(state: MateState, seat: int) -> int:
    """Plain minimax over (hands, leader, move) with a memo, from the rules' own functions.

    Independent of the solver's bitmasks, windows and bounds; slow (seconds a deal).
    """
    variant = state.variant
    foreplaced = tuple(card is not None for card in state.foreplaced)

    def without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
        index = cards.index(card)
        return cards[:index] + cards[index + 1 :]

    @cache
    def value(hands: tuple[tuple[str, ...], tuple[str, ...]], leader: int, move: int, nine: tuple) -> int:
        """Value for the leader."""
        other = 1 - leader

        def playable(who: int) -> tuple[str, ...]:
            return (nine[who],) if move == MOVES and foreplaced[who] else hands[who]

        best = None
        for lead in set(playable(leader)):
            replies = answers(lead, playable(other), variant)
            if not replies:
                outcome = score_for(move, lead, foreplaced[leader])
            else:
                outcome = None
                for reply in set(replies):
                    if move == MOVES:
                        child = 0
                    else:
                        left = [without(hands[leader], lead), without(hands[other], reply)]
                        new_hands = (left[0], left[1]) if leader == 0 else (left[1], left[0])
                        played = (lead, reply) if leader == 0 else (reply, lead)
                        if stronger(lead, reply):
                            child = value(new_hands, leader, move + 1, played)
                        else:
                            child = -value(new_hands, other, move + 1, played)
                    outcome = child if outcome is None else min(outcome, child)
            assert outcome is not None  # a lead is answered, or scored when it cannot be
            best = outcome if best is None else max(best, outcome)
        assert best is not None  # the leader always has a card to lead
        return best

    hands = (tuple(sorted(state.hands[0])), tuple(sorted(state.hands[1])))
    leader_value = value(hands, state.leader, state.move, (None, None))
    return leader_value if state.leader == seat else -leader_value
