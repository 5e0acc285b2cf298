"""Helpers for the Mille Bornes tests: crafted positions from card names."""

from __future__ import annotations

import pytest
from gamenight_mille.rules import (
    CARD_NAMES,
    DECK_COUNTS,
    EMPTY,
    PLAY,
    SAFETIES,
    MilleRules,
    MilleState,
    Seat,
    accounted_cards,
)

RULES = MilleRules()
_BY_NAME = {name: index for index, name in enumerate(CARD_NAMES)}


def card(name: str) -> int:
    """The card code of a card name ("Stop", "200", ...)."""
    return _BY_NAME[name]


def cards(*names: str) -> tuple[int, ...]:
    """Card codes of ``names``."""
    return tuple(card(name) for name in names)


def hand(*names: str, p: str | None = None) -> tuple[int, ...]:
    """A 7-slot hand: ``p`` in the P slot and ``names`` in slots 1-6 (the rest empty)."""
    slots = [EMPTY] * 7
    slots[0] = EMPTY if p is None else card(p)
    for index, name in enumerate(names, start=1):
        slots[index] = card(name)
    return tuple(slots)


def seat(
    hand_cards: tuple[int, ...] = (EMPTY,) * 7,
    battle: str | None = None,
    speed: str | None = None,
    mileage: int = 0,
    two_hundreds: int = 0,
    safeties: tuple[str, ...] = (),
    coups: tuple[str, ...] = (),
    fresh_battle: bool = False,
    fresh_speed: bool = False,
    table: tuple[int, ...] | None = None,
    p: str | None = None,
) -> Seat:
    """A seat from readable arguments (``p``: the card in the P slot); its table holds the piles' cards."""
    if p is not None:
        hand_cards = (card(p), *hand_cards[1:])
    played = [card(name) for name in safeties]
    if battle is not None:
        played.append(card(battle))
    if speed is not None:
        played.append(card(speed))
    return Seat(
        hand=hand_cards,
        battle=EMPTY if battle is None else card(battle),
        speed=EMPTY if speed is None else card(speed),
        mileage=mileage,
        two_hundreds=two_hundreds,
        safeties=tuple(s in {card(n) for n in safeties} for s in SAFETIES),
        coups=tuple(s in {card(n) for n in coups} for s in SAFETIES),
        fresh_battle=fresh_battle,
        fresh_speed=fresh_speed,
        table=tuple(played) if table is None else table,
    )


def state(
    me: Seat,
    other: Seat | None = None,
    deck: tuple[int, ...] | None = None,
    turn: int = 0,
    picked: bool = False,
    **fields: object,
) -> MilleState:
    """A PLAY state with seat 0 = ``me`` and seat 1 = ``other``; the deck defaults to 20 Go cards."""
    other = other if other is not None else seat(hand("25", "25", "25", "25", "25", "25"))
    return MilleState(
        phase=PLAY,
        seats=(me, other),
        deck=cards(*["Go"] * 20) if deck is None else deck,
        turn=turn,
        picked=picked,
        **fields,
    )


def assert_all_cards_accounted(game_state: MilleState) -> None:
    """All 101 cards are somewhere: deck, discards, hands or tables."""
    assert tuple(accounted_cards(game_state)) == DECK_COUNTS


@pytest.fixture
def rules() -> MilleRules:
    """The Mille Bornes rules object."""
    return RULES
