"""Mate in words: what the screen and the logs say of the rules' data.

The rules module returns data (events, results, refusals as
:class:`~gamenight.sdk.IllegalAction` codes and values) and translates nothing; the
sentences are made here, with the game's catalogue by default or with the
translator a screen passes. This module imports neither the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamenight.sdk import PublicEvent, seat_token, translator

_ = translator("mate")

SUIT_SYMBOLS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}


def pretty(card: str) -> str:
    """The card with its suit symbol: ``"10H"`` -> ``"10♥"``."""
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def summarize(result: Any, _: Callable[..., str] = _) -> str:
    """A play's result (a ``PlayResult``) without the winner: "mate on move 5 with K♣: 5 × 4 = 20"."""
    if result.winner is None:
        return _("no mate: a draw")
    card, formula = pretty(result.card), result.formula()
    if result.overmate:
        return _("overmate on move {move} with {card}: {formula}", move=result.move, card=card, formula=formula)
    return _("mate on move {move} with {card}: {formula}", move=result.move, card=card, formula=formula)


def describe_result(result: Any, _: Callable[..., str] = _) -> str:
    """A play's result in one sentence: who mated (a seat token), when, with what, and the formula."""
    if result.winner is None:
        return _("no mate in ten moves: a draw, nobody scores")
    return _("{seat}: {result}", seat=seat_token(result.winner), result=summarize(result, _))


def play_line(number: int, result: Any, _: Callable[..., str] = _) -> str:
    """The match sheet's line of play ``number``."""
    return _("Play {number}: {result}", number=number, result=summarize(result, _))


def play_title(number: int, result: Any, _: Callable[..., str] = _) -> str:
    """The title of the pause after play ``number``."""
    return _("Play {number}: {result}", number=number, result=describe_result(result, _))


def describe_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of :meth:`MateRules.public_events` as a sentence, seats as :func:`~gamenight.sdk.seat_token`."""
    params = event.params
    if event.kind == "deal":
        return _("{seat} shuffles and deals.", seat=seat_token(params["dealer"]))
    letter = seat_token(params["seat"])
    if event.kind == "foreplace":
        if params["card"] is None:
            return _("{seat} does not foreplace.", seat=letter)
        return _("{seat} sets {card} aside.", seat=letter, card=pretty(params["card"]))
    if event.kind == "lead":
        return _("{seat} leads {card} (move {move}).", seat=letter, card=pretty(params["card"]), move=params["move"])
    if event.kind == "answer":
        return _("{seat} answers {card}.", seat=letter, card=pretty(params["card"]))
    return event.kind


def describe_choice_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of the player's own moves (:meth:`MateRules.public_events`) named as a choice, for the coach's
    list: "Lead 10♥", "Answer with K♣", "Set A♠ aside", "Keep all cards" -- not the log's "A leads 10♥ (move 1)."."""
    params = event.params
    if event.kind == "foreplace":
        if params["card"] is None:
            return _("Keep all cards")  # as the table's key says it ("n Keep all")
        return _("Set {card} aside", card=pretty(params["card"]))
    if event.kind == "lead":
        return _("Lead {card}", card=pretty(params["card"]))
    if event.kind == "answer":
        return _("Answer with {card}", card=pretty(params["card"]))
    return describe_event(event, _)
