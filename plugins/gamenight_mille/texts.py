"""Mille Bornes in words: what the screen and the logs say of the rules' data.

The rules module returns data (events, refusals as :class:`~gamenight.sdk.IllegalAction`
codes and values) and translates nothing; the sentences are made here, with the
game's catalogue by default or with the translator a screen passes. This module
imports neither the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from gamenight.sdk import IllegalAction, PublicEvent, seat_token, translator

_ = translator("mille")

CARD_NAMES = (
    "25", "50", "75", "100", "200",
    "Out of Gas", "Flat Tire", "Accident", "Stop", "Speed Limit",
    "Gasoline", "Spare Tire", "Repairs", "Go", "End of Limit",
    "Extra Tank", "Puncture Proof", "Driving Ace", "Right of Way",
)  # fmt: skip
"""The cards' English names (message ids), in the rules' card order."""


def card_name(card: int, _: Callable[..., str] = _) -> str:
    """The translated name of ``card`` (an empty string for an empty slot, -1)."""
    return "" if card < 0 else _(CARD_NAMES[card])


def end_of_hand(number: int, _: Callable[..., str] = _) -> str:
    """The title of the pause after hand ``number``."""
    return _("End of hand {number}", number=number)


def say_refusal(error: IllegalAction, _: Callable[..., str] = _) -> str:
    """A refusal in the reader's language; a card it names (``{card}``, an English name) is translated too."""
    if "card" in error.params and error.template:
        return _(error.template, **{**error.params, "card": _(error.params["card"])})
    return error.say(_)


def describe_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of :meth:`MilleRules.public_events` as a sentence, translated, seats as seat tokens."""
    params = event.params
    name = seat_token(params["seat"]) if "seat" in params else ""
    kind = event.kind
    if kind == "deal":
        return _("Hand {number} is dealt.", number=params["hand"])
    if kind == "draw":
        return _("{name} drew a card.", name=name)
    if kind == "extend":
        return _("{name} went for an extension to 1000!", name=name)
    if kind == "stop":
        return _("{name} stopped at 700.", name=name)
    if kind == "discard":
        return _("{name} discarded {card}.", name=name, card=card_name(params["card"], _))
    if kind == "play":
        card = card_name(params["card"], _)
        if "on" in params:
            return _("{name} played {card} on {other}.", name=name, card=card, other=seat_token(params["on"]))
        if params.get("coup_fourre"):
            return _("{name} played {card}: Coup Fourré!", name=name, card=card)
        return _("{name} played {card}.", name=name, card=card)
    return kind


def describe_choice_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of the player's own moves (:meth:`MilleRules.public_events`) named as a choice, for the coach's
    list: "Draw a card", "Play 25", "Play Stop on {seat token}" -- not the log's "You drew a card."."""
    params = event.params
    kind = event.kind
    if kind == "draw":
        return _("Draw a card")
    if kind == "extend":
        return _("Go for an extension to 1000")
    if kind == "stop":
        return _("Stop at 700")
    if kind == "discard":
        return _("Discard {card}", card=card_name(params["card"], _))
    if kind == "play":
        card = card_name(params["card"], _)
        if "on" in params:
            return _("Play {card} on {other}", card=card, other=seat_token(params["on"]))
        if params.get("coup_fourre"):
            return _("Play {card}: Coup Fourré!", card=card)
        return _("Play {card}", card=card)
    return describe_event(event, _)
