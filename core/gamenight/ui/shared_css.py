"""A process-wide cache of parsed Textual CSS, for ``serve-ssh``'s room template.

Used by :mod:`gamenight.ssh.template` only (rooms started on their own parse as Textual does).
"""

from __future__ import annotations

from typing import Any

__all__ = ["share_parsed_css"]


def share_parsed_css() -> None:
    """Let every Textual stylesheet in this process (the template's warm-up lobby, then each forked
    room) reuse CSS already parsed with the same theme variables: a forked room with the default
    theme then parses none of it again (re-parsing was about a quarter of a forked room's first
    frame).  Textual already reuses a stylesheet's parsed rules between its own parses; this
    only widens that cache from one stylesheet to the process.  Skipped if Textual changed."""
    from textual.cache import LRUCache
    from textual.css.stylesheet import Stylesheet

    parse = getattr(Stylesheet, "_parse_rules", None)
    if parse is None or getattr(parse, "shared", False):
        return
    shared: LRUCache[tuple, list[Any]] = LRUCache(1024)

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
