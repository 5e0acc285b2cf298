"""Battle of LITS in words: what the screen and the logs say of the rules' data.

The rules module returns data (events, refusals as :class:`~gamenight.sdk.IllegalAction`
codes and values) and translates nothing; the sentences are made here, with the
game's catalogue by default or with the translator a screen passes. This module
imports neither the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from gamenight.sdk import IllegalAction, PublicEvent, seat_token, translator

_ = translator("lits")

COLUMNS = "abcdefghij"
"""The board's column letters, left to right."""


def cell_name(row: int, col: int) -> str:
    """A cell as players name it: column letter, row number from 1 ("c5")."""
    return f"{COLUMNS[col]}{row + 1}"


def describe_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of :meth:`LitsRules.public_events` as a sentence (seats as :func:`~gamenight.sdk.seat_token`)."""
    params = event.params
    if event.kind == "layout":
        return _("A random layout is dealt.")
    if event.kind == "swap":
        return _("{player} swaps sides and takes ×.", player=seat_token(params["seat"]))
    if event.kind == "keep":
        return _("{player} keeps ○.", player=seat_token(params["seat"]))
    if event.kind == "place":
        return _(
            "{player} places {shape} on {cell}.",
            player=seat_token(params["seat"]),
            shape=params["shape"],
            cell=cell_name(params["row"], params["col"]),
        )
    return str(params.get("text", event.kind))


def say(error: IllegalAction, _: Callable[..., str] = _) -> str:
    """Why a move is refused, as a sentence."""
    return error.say(_)


def describe_choice_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of the player's own moves (:meth:`LitsRules.public_events`) named as a choice, for the coach's
    list: "Place L on e4 e5 e6 f6", "Keep ○" -- not the log's "Kei places L on e4."."""
    params = event.params
    if event.kind == "swap":
        return _("Swap sides and take ×")
    if event.kind == "keep":
        return _("Keep ○")
    if event.kind == "place":  # every cell it covers: one anchor has up to eight orientations
        cells = params.get("cells") or [(params["row"], params["col"])]
        return _("Place {shape} on {cells}", shape=params["shape"], cells=" ".join(cell_name(*cell) for cell in cells))
    return describe_event(event, _)
