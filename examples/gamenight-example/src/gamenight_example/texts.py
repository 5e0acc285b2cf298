"""Goofspiel in words: what the screen and the logs say of the rules' data.

The rules module returns data -- public events, refusals as
:class:`~gamenight.sdk.IllegalAction` codes and values -- and translates
nothing; the sentences are made here, with the game's catalogue by default or
with the translator a screen passes (``self.t``).  This module imports neither
the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from gamenight.sdk import PublicEvent, seat_token, translator

_ = translator("goofspiel")

CARD_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def card_name(value: int) -> str:
    """``1`` -> ``"A"``, ``12`` -> ``"Q"``, other values as digits."""
    return CARD_NAMES.get(value, str(value))


def describe_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of :meth:`GoofspielRules.public_events` as a sentence (seats as :func:`~gamenight.sdk.seat_token`)."""
    params = event.params
    if event.kind == "prize":
        return _("The prize is {card}.", card=card_name(params["card"]))
    if event.kind == "bid":  # which card stays hidden until the round is shown
        return _("{player} bids face down.", player=seat_token(params["seat"]))
    if event.kind == "show":
        shown = ", ".join(card_name(bid) for bid in params["bids"])
        if params["winner"] is None:
            return _("Bids {bids}: a tie, nobody takes {worth}.", bids=shown, worth=params["worth"])
        winner = seat_token(params["winner"])
        return _("Bids {bids}: {player} takes {worth}.", bids=shown, player=winner, worth=params["worth"])
    return str(params.get("text", event.kind))
