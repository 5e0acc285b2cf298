"""SEVEN in words: what the screen and the logs say of the rules' data.

The rules module returns data (events, refusals as :class:`~gamenight.sdk.IllegalAction`
codes and values) and translates nothing; the sentences are made here, with the
game's catalogue by default or with the translator a screen passes. This module
imports neither the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from gamenight.sdk import PublicEvent, seat_token, translator

from .cards import SUIT_SYMBOLS, card_label

_ = translator("seven")


def describe_event(event: PublicEvent, who: str | None = None, _: Callable[..., str] = _) -> str:
    """One of :meth:`SevenRules.public_events` as a sentence; the seat as ``who`` or its seat token."""
    params = event.params
    if who is None:
        who = seat_token(params["seat"]) if "seat" in params else ""
    kind = event.kind
    if kind == "deal":
        return _("The cards are dealt.")
    if kind == "shuffle":
        return _("Table: Shuffling")
    if kind == "pass":
        return _("{who} passed.", who=who)
    if kind == "draw":
        if params.get("penalty"):
            return _("{who} took the 7 penalty of {count}.", who=who, count=params["penalty"])
        return _("{who} drew a card.", who=who)
    if kind == "play":
        card, call = params["card"], params.get("call", -1)
        if call >= 0:
            return _("{who} played {card} and called {suit}.", who=who, card=card_label(card), suit=SUIT_SYMBOLS[call])
        return _("{who} played {card}.", who=who, card=card_label(card))
    return kind


def describe_choice_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of the player's own moves (:meth:`SevenRules.public_events`) named as a choice, for the coach's
    list: "Draw a card", "Play 7♠", "Pass" -- not the log's "You drew a card."."""
    params = event.params
    kind = event.kind
    if kind == "pass":
        return _("Pass")
    if kind == "draw":
        if params.get("penalty"):
            return _("Draw {count} (take the 7 penalty)", count=params["penalty"])
        return _("Draw a card")
    if kind == "play":
        card, call = params["card"], params.get("call", -1)
        if call >= 0:
            return _("Play {card} and call {suit}", card=card_label(card), suit=SUIT_SYMBOLS[call])
        return _("Play {card}", card=card_label(card))
    return describe_event(event, None, _)
