"""Key labels in the current language, whenever a screen is made.

Class-level ``BINDINGS`` are evaluated once, when their module is imported;
a screen built later (after the language was chosen or changed) calls
:func:`translate_bindings` so its footer shows labels in today's language.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from textual.dom import DOMNode

from gamenight.i18n import _, message_id

__all__ = ["translate_bindings"]


def translate_bindings(
    node: DOMNode, translate: Callable[[str], str], room_actions: frozenset[str] = frozenset()
) -> None:
    """Translate the descriptions and tooltips of ``node``'s own key bindings (this instance only).

    The tooltip is the help line of the key's command-palette entry.  The bindings of
    ``room_actions`` (a game screen's Help, Save, Leave ...) are said in the room's words, not
    ``translate``'s: a game's catalogue may give the same English another sense (Mille's
    "Leave" is a dialog's choice, "やめる"), and the room's keys read the same in every game.
    """
    table = node._bindings.key_to_bindings  # the per-instance copy of the class bindings
    for key, bindings in table.items():
        table[key] = [
            dataclasses.replace(
                binding,
                description=words(message_id(binding.description)) if binding.description else "",
                tooltip=words(message_id(binding.tooltip)) if binding.tooltip else "",
            )
            for binding in bindings
            for words in [_ if binding.action in room_actions else translate]
        ]
