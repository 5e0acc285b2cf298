"""The patches of Textual's private internals (see :mod:`gamenight.compat`)."""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any

__all__ = ["PARSE_RULES_PARAMETERS", "share_parsed_css", "tolerate_undecodable_input"]

PARSE_RULES_PARAMETERS = ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope")
"""``Stylesheet._parse_rules``'s parameters, as :func:`share_parsed_css` calls it."""


def share_parsed_css() -> bool:
    """Let every Textual stylesheet in this process (the template's warm-up lobby, then each forked
    room) reuse CSS already parsed with the same theme variables: a forked room with the default
    theme then parses none of it again (re-parsing was about a quarter of a forked room's first
    frame).  Textual already reuses a stylesheet's parsed rules between its own parses; this
    only widens that cache from one stylesheet to the process.

    Used by :mod:`gamenight.ssh.template` only (rooms started on their own parse as Textual does).
    True when the cache is in place; False, changing nothing, if ``_parse_rules`` is not the
    method it was written for.
    """
    from textual.cache import LRUCache
    from textual.css.stylesheet import Stylesheet

    parse = getattr(Stylesheet, "_parse_rules", None)
    if parse is None:
        return False
    if getattr(parse, "shared", False):
        return True
    try:
        parameters = tuple(inspect.signature(parse).parameters)
    except (TypeError, ValueError):
        return False
    if parameters != PARSE_RULES_PARAMETERS:
        return False
    shared: LRUCache[tuple[Any, ...], list[Any]] = LRUCache(1024)

    def _parse_rules(
        self: Any, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0, scope: str = ""
    ) -> list[Any]:
        variables = getattr(self, "_variables", None)
        if not isinstance(variables, dict):
            return parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(variables.items())))
        rules = shared.get(key)
        if rules is None:
            rules = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
            shared[key] = rules
        return rules

    _parse_rules.shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]
    return True


def tolerate_undecodable_input(driver_class: type) -> bool:
    """Make the input thread of ``driver_class`` (Textual's Linux driver) tolerant of invalid UTF-8.

    The Linux driver decodes stdin strictly, with the ``getincrementaldecoder`` its module imports
    from :mod:`codecs`: one stray byte (a terminal set to Latin-1, a pasted binary) raised in its
    input thread, which then stopped, leaving a room that no longer heard any key.  Undecodable
    bytes now become U+FFFD, which no binding uses.  True when the driver's module decodes that
    way (now or already); False, changing nothing, for a driver that decodes otherwise.
    """
    module = sys.modules.get(driver_class.__module__)
    strict = getattr(module, "getincrementaldecoder", None)
    if module is None or strict is None:
        return False
    if getattr(strict, "gamenight_tolerant", False):
        return True

    def tolerant(encoding: str) -> Any:
        return functools.partial(strict(encoding), errors="replace")

    tolerant.gamenight_tolerant = True  # type: ignore[attr-defined]
    module.getincrementaldecoder = tolerant  # type: ignore[attr-defined]
    return True
