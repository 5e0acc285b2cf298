"""The patches of Textual's private internals (see :mod:`gamenight.compat`)."""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any

__all__ = [
    "PARSE_RULES_PARAMETERS",
    "RENDER_CHOPS_PARAMETERS",
    "keep_wide_characters_whole",
    "render_chops_digest",
    "share_parsed_css",
    "tolerate_undecodable_input",
]

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


RENDER_CHOPS_PARAMETERS = ("self", "crop", "is_rendered_line")
"""``Compositor._render_chops``'s parameters, as :func:`keep_wide_characters_whole` replaces it."""

_RENDER_CHOPS_DIGEST = "ca8c3359d7afd0171bda158ab5b846fec5144539e438de5113d76f11eb357f0f"
"""The SHA-256 of ``Compositor._render_chops``'s source in the Textual this patch was written for
(8.2): a changed method is one this patch no longer knows, and it stands down."""


def render_chops_digest() -> str | None:
    """The SHA-256 of the installed ``Compositor._render_chops``'s source (None: not readable)."""
    import hashlib

    from textual._compositor import Compositor

    method = getattr(Compositor, "_render_chops", None)
    method = getattr(method, "gamenight_original", method)
    if method is None:
        return None
    try:
        return hashlib.sha256(inspect.getsource(method).encode()).hexdigest()
    except (OSError, TypeError):
        return None


def keep_wide_characters_whole() -> bool:
    """Keep a wide (2-cell) character whole where the widget it belongs to lies over other widgets.

    Textual's compositor cuts every line of the screen at each edge of every visible widget, and
    divides each widget's line at those cuts before painting front to back.  A widget on a layer
    over others (the coach panel, a toast) has its lines cut at the edges of the widgets beneath
    it too, and a Japanese character that straddles such a cut is split in two halves that rich
    turns into two spaces: the panel's Japanese lost characters.  Here a widget's line is not cut
    where the widget wins the pieces on both sides *and* a wide character straddles the cut: the
    two pieces become one, and the cut's bucket is dropped from the line.  Everything else is
    painted exactly as Textual paints it.

    Applied by the room (:class:`gamenight.app.GameNightApp`).  True when in place (now or
    already); False, changing nothing, when ``_render_chops`` or ``render_partial_update`` is not
    the method it was written for.
    """
    from rich.cells import cell_len, get_character_cell_size
    from textual._compositor import ChopsUpdate, Compositor
    from textual.strip import Strip

    render_chops = getattr(Compositor, "_render_chops", None)
    partial = getattr(Compositor, "render_partial_update", None)
    if render_chops is None or partial is None:
        return False
    if getattr(render_chops, "gamenight_original", None) is not None:
        return True
    try:
        parameters = tuple(inspect.signature(render_chops).parameters)
    except (TypeError, ValueError):
        return False
    if parameters != RENDER_CHOPS_PARAMETERS or render_chops_digest() != _RENDER_CHOPS_DIGEST:
        return False

    merged_away = Strip([], 0)
    """What a dropped cut's bucket holds while the lines are painted (so that no widget behind claims it)."""

    def straddled(strip: Strip) -> set[int]:
        """The cell offsets in ``strip`` that fall inside a wide character (its second cell)."""
        inside: set[int] = set()
        x = 0
        for segment in strip:
            text = segment.text
            width = cell_len(text)
            if width != len(text) and not segment.control:
                for character in text:
                    size = get_character_cell_size(character)
                    if size == 2:
                        inside.add(x + 1)
                    x += size
            else:
                x += width
        return inside

    def _render_chops(self: Any, crop: Any, is_rendered_line: Any) -> list[dict[int, Any]]:
        cuts = self.cuts
        chops: list[dict[int, Any]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        merged_lines: set[int] = set()
        for region, clip, strips in self._get_renders(crop):
            render_region = region.intersection(clip)
            render_x = render_region.x
            first_cut, last_cut = render_region.column_span
            for y, strip in zip(render_region.line_range, strips, strict=False):
                if not is_rendered_line(y):
                    continue
                chops_line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                keys = final_cuts[:-1]
                wins = [chops_line.get(cut) is None for cut in keys]
                dropped: set[int] = set()
                if len(keys) > 1 and any(wins[i - 1] and wins[i] for i in range(1, len(keys))):
                    inside = straddled(strip)
                    dropped = {
                        keys[i] for i in range(1, len(keys)) if wins[i - 1] and wins[i] and keys[i] - render_x in inside
                    }
                if dropped:
                    merged_lines.add(y)
                    for cut in dropped:
                        chops_line[cut] = merged_away
                    final_cuts = [cut for cut in final_cuts if cut not in dropped]
                cut_strips = strip.divide([cut - render_x for cut in final_cuts[1:]])
                for cut, piece in zip(final_cuts, cut_strips, strict=False):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece
        for y in merged_lines:
            chops[y] = {cut: piece for cut, piece in chops[y].items() if piece is not merged_away}
        self._gamenight_merged_lines = merged_lines
        return chops

    def render_partial_update(self: Any) -> Any:
        update = partial(self)
        merged = getattr(self, "_gamenight_merged_lines", ())
        if isinstance(update, ChopsUpdate) and merged:  # a merged piece ends where the next kept one starts
            ends = [list(ends) for ends in update.chop_ends]
            for y in merged:
                ends[y] = [*list(update.chops[y])[1:], self.cuts[y][-1]]
            update.chop_ends = ends
        return update

    _render_chops.gamenight_original = render_chops  # type: ignore[attr-defined]
    render_partial_update.gamenight_original = partial  # type: ignore[attr-defined]
    Compositor._render_chops = _render_chops  # type: ignore[method-assign]
    Compositor.render_partial_update = render_partial_update  # type: ignore[method-assign]
    return True
