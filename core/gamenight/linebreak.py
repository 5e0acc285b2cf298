"""Line breaking for Japanese (and any text with wide characters) in every widget of the room.

Rich and Textual wrap text only at spaces, and fold a longer run at the
width's edge.  Japanese has no spaces between words, so a paragraph was one
"word", cut wherever the line ended: "最" on one line and "適" on the next, a
line starting with "、", a number on its own.  Here a line may break

* after a run of spaces (as before);
* between two phrases, as `BudouX <https://github.com/google/budoux>`_ (its
  Japanese model) segments the text: "手番の|プレイヤーが|どの|ピースも";
* and only if a phrase is longer than the whole line, between any two
  characters of which one is wide;

but never (kinsoku shori) before a closing bracket, a comma or full stop, a
small kana, a prolonged sound mark, an iteration mark or a slash (``、。）」ー々ゃ…/``), nor
after an opening bracket (``（「『``), nor inside a Latin word or number, nor
between a number and the Japanese counter after it ("100 点").  Only
when no such place exists in a line's width is the text folded at the edge.

Text without a wide character is wrapped by Rich's own function, unchanged.
:func:`install` makes Rich's ``Text`` and Textual's ``Content`` use
:func:`divide_line` (they share Rich's ``divide_line``); the app calls it.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import pairwise

from rich._wrap import divide_line as _rich_divide_line
from rich.cells import get_character_cell_size

__all__ = ["NO_END", "NO_START", "break_opportunities", "divide_line", "install", "wrap"]

NO_START = frozenset(
    "、。，．,.:;?!）)]｝}〕〉》」』】〙〗〟’”｠»"
    "ゝゞヽヾ々〻ー‐゠–〜～…‥・：；？！"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"
    "%％°′″℃/"
)
"""Characters that may not start a line (JIS X 4051 classes 2-7 and small kana; "/" as Unicode's line
breaking has it).  A path shortened to "…/saves/x.toml" (:func:`gamenight.text.shown_path`) may start
one, and is not broken after its "…"."""

NO_END = frozenset("（(［[｛{〔〈《「『【〘〖〝‘“｟«")
"""Characters that may not end a line (opening brackets)."""


def _wide(ch: str) -> bool:
    return get_character_cell_size(ch) == 2


def _word_char(ch: str) -> bool:
    """A character of a Latin word or a number (no break between two of them)."""
    return ch.isascii() and (ch.isalnum() or ch in "_'%#&@$+-/=*")


@cache
def _parser():
    import budoux

    return budoux.load_default_japanese_parser()


def _phrase_ends(text: str) -> set[int]:
    """Offsets where BudouX ends a phrase (inside ``text``)."""
    ends = set()
    offset = 0
    for phrase in _parser().parse(text)[:-1]:
        offset += len(phrase)
        ends.add(offset)
    return ends


def _allowed(text: str, index: int) -> bool:
    """May a line end before ``text[index]`` (kinsoku and words aside, any place)?"""
    before, after = text[index - 1], text[index]
    if after == "…" and text[index + 1 : index + 2] == "/":
        return before not in NO_END  # a shortened path's start
    if after.isspace() or after in NO_START or before in NO_END:
        return False
    return not (_word_char(before) and _word_char(after))


def break_opportunities(text: str) -> tuple[list[int], list[int]]:
    """(preferred, last resort) offsets a line may break before.

    Preferred: after spaces and between BudouX phrases.  Last resort: between
    any two characters of which one is wide.  Both obey kinsoku.
    """
    phrases = _phrase_ends(text) if any(_wide(ch) for ch in text) else set()
    preferred, fallback = [], []
    for index in range(1, len(text)):
        if not _allowed(text, index):
            continue
        if text[index - 1].isspace() and _wide(text[index]) and text[:index].rstrip()[-1:].isdigit():
            continue  # a number keeps its counter: "100 点", "2 枚" are not split
        if text[index - 1].isspace() or index in phrases:
            preferred.append(index)
        elif _wide(text[index - 1]) or _wide(text[index]):
            fallback.append(index)
    return preferred, fallback


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """Offsets to split ``text`` at so that each line (trailing spaces dropped) fits ``width`` cells.

    The same contract as Rich's ``rich._wrap.divide_line``, which it replaces.  A screen
    wraps the same lines again at every redraw (a game's log, its help), so the answers for
    text with a wide character are remembered (the last 4,096 of them; the answer depends on
    nothing but the arguments).
    """
    if width < 2 or text.isascii() or not any(_wide(ch) for ch in text):
        return _rich_divide_line(text, width, fold=fold)
    return list(_divide_wide(text, width, fold))


@lru_cache(maxsize=4096)
def _divide_wide(text: str, width: int, fold: bool) -> tuple[int, ...]:
    preferred, fallback = break_opportunities(text)
    preferred_set, fallback_set = set(preferred), set(fallback)
    breaks: list[int] = []
    start = 0
    cells = 0  # width of text[start:index] without its trailing spaces
    pending = 0  # width of the spaces after it
    best = best_fallback = -1  # the last opportunity on this line
    index = 0
    while index < len(text):
        ch = text[index]
        if index > start:
            if index in preferred_set:
                best = index
            elif index in fallback_set:
                best_fallback = index
        if ch.isspace():
            pending += get_character_cell_size(ch) or 1
            index += 1
            continue
        size = get_character_cell_size(ch)
        if cells + pending + size <= width:
            cells += pending + size
            pending = 0
            index += 1
            continue
        # ch does not fit: break at the last good place of this line, or fold here.
        cut = best if best > start else best_fallback if best_fallback > start else -1
        if cut < 0:
            if not fold:  # the rest of this "word" is cropped by the caller
                while index < len(text) and not text[index].isspace():
                    index += 1
                continue
            # kinsoku even when folding: "ー" goes down with the character before it
            cut = next(
                (
                    c
                    for c in range(index, start, -1)
                    if not text[c].isspace() and text[c] not in NO_START and text[c - 1] not in NO_END
                ),
                index,
            )
            if cut == start:  # a single character wider than the line
                cut = index + 1
        breaks.append(cut)
        start = cut
        cells = pending = 0
        best = best_fallback = -1
        index = cut
    return tuple(breaks)


def wrap(text: str, width: int) -> list[str]:
    """``text`` cut into lines of at most ``width`` cells (trailing spaces dropped)."""
    offsets = [0, *divide_line(text, width), len(text)]
    return [text[a:b].rstrip() for a, b in pairwise(offsets)]


_installed = False


def install() -> None:
    """Make Rich's ``Text.wrap`` and Textual's ``Content`` wrap with :func:`divide_line`."""
    global _installed
    if _installed:
        return
    import rich.text
    import textual.content

    rich.text.divide_line = divide_line
    textual.content.divide_line = divide_line
    _installed = True
