"""Yatzy in words: what the screen and the logs say of the rules' data.

The rules module returns data (events, refusals as :class:`~gamenight.sdk.IllegalAction`
codes and values) and translates nothing; the sentences are made here, with the
game's catalogue by default or with the translator a screen passes. This module
imports neither the rules nor Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from gamenight.sdk import PublicEvent, translator

_ = translator("yatzy")

BOX_LABELS: tuple[str, ...] = (
    "Ones",
    "Twos",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Three of a kind",
    "Four of a kind",
    "Full house",
    "Small straight",
    "Large straight",
    "Yatzy",
    "Chance",
)
"""English message ids of the boxes' names, in the rules' ``BOXES`` order."""


def describe_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of :meth:`YatzyRules.public_events` as a sentence (Yatzy's log names no seat)."""
    params = event.params
    if event.kind == "dice":
        return _("The dice show {dice}.", dice=" ".join(str(face) for face in params["dice"]))
    if event.kind == "roll":
        if not params["kept"]:
            return _("Rolls all five dice.")
        kept = " ".join(str(face) for face in params["kept"])
        if params["count"] == 1:
            return _("Keeps {kept} and rolls one die.", kept=kept)
        return _("Keeps {kept} and rolls {count} dice.", kept=kept, count=params["count"])
    if event.kind == "score":
        text = _("Scores {points} in {box}.", points=params["points"], box=_(BOX_LABELS[params["index"]]))
        if params.get("bonus"):
            text += " " + _("Yatzy bonus +{points}!", points=params["bonus"])
        return text
    return event.kind


def describe_choice_event(event: PublicEvent, _: Callable[..., str] = _) -> str:
    """One of the player's own moves (:meth:`YatzyRules.public_events`) named as a choice, for the coach's
    list: "Keep 6 6, reroll 3", "Score 12 in Chance" -- not the log's "Scores 12 in Chance."."""
    params = event.params
    if event.kind == "roll":
        if params.get("first"):
            return _("Roll the dice")
        if not params["kept"]:
            return _("Reroll all five dice")
        kept = " ".join(str(face) for face in params["kept"])  # short: the panel's column is 23 cells at 80x24
        return _("Keep {kept}, reroll {count}", kept=kept, count=params["count"])
    if event.kind == "score":
        text = _("Score {points} in {box}", points=params["points"], box=_(BOX_LABELS[params["index"]]))
        if params.get("bonus"):
            text += " " + _("(Yatzy bonus +{points})", points=params["bonus"])
        return text
    return describe_event(event, _)
