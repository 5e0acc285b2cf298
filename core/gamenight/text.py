"""Text from outside -- a file, a plugin, a client -- made safe to show.

Two rules, used everywhere such text reaches the screen:

* :func:`validate_name` says why a player name is not acceptable (typed in
  setup, read from the config or from a save): no control, format or bidi
  characters (they rewrite the terminal or reorder what others see), no
  invisible characters, no ``[`` (names end up inside the games' Rich
  markup, where ``[/]`` is an error and ``[b]`` a style), a bounded run of
  combining marks, and at most :data:`MAX_NAME_CELLS` cells.
* :func:`safe_text` turns any other outside text (an error a plugin raised, a
  file name, a message quoting a save) into something harmless to print: the
  same characters are dropped, runs of combining marks are cut, and the text
  is bounded in length.

Terminals act on ESC, C1 controls and the like even inside text a program
means to print, so every widget that shows outside text gets it through here.
"""

from __future__ import annotations

import os
import re
import unicodedata

from rich.cells import cell_len, set_cell_size

from gamenight.i18n import _

__all__ = [
    "MAX_COMBINING_RUN",
    "MAX_NAME_CELLS",
    "MAX_NAME_CHARS",
    "MAX_TEXT_CHARS",
    "public_host",
    "reconnect_command",
    "safe_text",
    "seat_count",
    "validate_name",
]

MAX_NAME_CELLS = 16
"""Longest player name, in terminal cells (a Japanese character takes two)."""

MAX_NAME_CHARS = 32
"""Longest player name in code points (combining marks take no cell, but do take memory)."""

MAX_COMBINING_RUN = 2
"""Most combining marks in a row: enough for Vietnamese or a kana with a voicing mark."""

MAX_TEXT_CHARS = 500
"""Longest outside text :func:`safe_text` lets through (longer ends in "…")."""

_UNSHOWABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (zero-width, bidi: U+200B-U+200F, U+202A-U+202E, U+2066-U+2069),
surrogates, private use, unassigned, line and paragraph separators."""

_COMBINING = frozenset({"Mn", "Mc", "Me"})

_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
"""Characters that are letters or symbols to Unicode but print as nothing: the Hangul fillers,
the blank Braille pattern and the Khmer inherent vowels."""


def _unshowable(ch: str) -> bool:
    return unicodedata.category(ch) in _UNSHOWABLE


def _longest_combining_run(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in _COMBINING else 0
        longest = max(longest, run)
    return longest


def validate_name(name: object) -> str | None:
    """Why ``name`` is not a usable player name, or ``None`` when it is fine."""
    if not isinstance(name, str):
        return _("A name must be text.")
    if not name.strip():
        return _("A name cannot be empty.")
    too_wide = _("A name can be at most {cells} cells wide (a Japanese character takes two).", cells=MAX_NAME_CELLS)
    head = name[: 4 * MAX_NAME_CHARS]  # the reason shows early; a huge name is not scanned to its end
    if any(_unshowable(ch) for ch in head):
        return _("A name cannot contain control characters.")
    if any(ch in _BLANK_LETTERS for ch in head):
        return _("A name cannot contain invisible characters.")
    if "[" in head or "]" in head:  # names are shown inside the games' markup: "[/]" is an error, "[b]" a style
        return _("A name cannot contain square brackets.")
    if unicodedata.category(name.lstrip()[0]) in _COMBINING or _longest_combining_run(head) > MAX_COMBINING_RUN:
        return _("A name cannot pile up combining marks.")
    if len(name) > MAX_NAME_CHARS or cell_len(name) > MAX_NAME_CELLS:
        return too_wide
    return None


def safe_text(text: object, limit: int = MAX_TEXT_CHARS, multiline: bool = False) -> str:
    """``text`` with everything a terminal could act on removed, at most ``limit`` characters.

    Control, format, bidi, private-use and unassigned characters are dropped
    (a tab becomes a space; with ``multiline`` a newline stays), no more than
    :data:`MAX_COMBINING_RUN` combining marks stay in a row, and a longer
    text is cut with "…".
    """
    kept: list[str] = []
    run = 0
    for ch in str(text):
        if ch == "\n" and multiline:
            kept.append(ch)
            run = 0
            continue
        if ch == "\t":
            ch = " "
        category = unicodedata.category(ch)
        if category in _UNSHOWABLE:
            continue
        run = run + 1 if category in _COMBINING else 0
        if run > MAX_COMBINING_RUN:
            continue
        kept.append(ch)
        if len(kept) > limit:
            return "".join(kept[: max(limit - 1, 0)]) + "…"
    return "".join(kept)


def seat_count(low: int, high: int) -> str:
    """How many seats a game takes, as a phrase: "2 seats", "1 seat", "2–5 seats"."""
    if low == high:
        return _("1 seat") if low == 1 else _("{count} seats", count=low)
    return _("{low}–{high} seats", low=low, high=high)


def hosted() -> bool:
    """True in a room of ``gamenight serve-ssh`` (the person at the keys is not on this machine)."""
    return os.environ.get("GAMENIGHT_HOSTED") == "1"


NOTICE_PATH_CELLS = 32
"""A path in a notice is shortened to this many cells (see :func:`shown_path`): a notice is 37 cells
wide inside at 80 columns, less room for what follows the path on its line ("config.toml:", "… に");
a path folded in the middle of its file name was hard to read."""


def shown_path(path: object, fit: int | None = None) -> str:
    """A file path as it may be shown on screen: safe text (a file name can hold terminal
    controls) and, in a hosted room, only the file's name -- the server's folders are no
    business of a visitor's.

    With ``fit``, a path wider than ``fit`` cells loses its first folders to "…/": the file's
    name and the folders nearest it stay whole (a notice folded a long path mid-name)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    shown = safe_text(os.path.basename(text) if hosted() else text, limit=200)
    if fit is None or cell_len(shown) <= fit:
        return shown
    *folders, kept = shown.split(os.sep)
    for folder in reversed(folders):
        if cell_len(f"…{os.sep}{folder}{os.sep}{kept}") > fit:
            break
        kept = f"{folder}{os.sep}{kept}"
    return f"…{os.sep}{kept}"


def pad_cells(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells (wide characters count 2)."""
    return text + " " * max(0, width - cell_len(text))


def fit_cells(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` terminal cells (wide characters count 2), ending in … if cut
    (a wide character that would straddle the cut gives way to a space)."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    cut = set_cell_size(text, width - 1)
    if cut.endswith(" ") and not text.startswith(cut):  # the space that stood in for a wide character
        cut = cut[:-1]
    return cut + "…"


_PUBLIC_HOST = re.compile(
    r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::(?P<port>[0-9]{1,5}))?"
)


def public_host(value: str) -> str:
    """``value`` when it is an address players can type after ``ssh NAME@`` -- a host name or IP
    address, an IPv6 one in brackets, with an optional ``:PORT`` ("games.example.org",
    "games.example.org:2222", "[2001:db8::1]:2222") -- else ""."""
    value = value.strip()
    match = _PUBLIC_HOST.fullmatch(value)
    if match is None or (match["port"] is not None and not 0 < int(match["port"]) < 65536):
        return ""
    return value


def reconnect_command(login: str, address: str) -> str:
    """The command that brings a guest back to the server at ``address`` (:func:`public_host`):
    ``ssh ann+k7qxr9m2@games.example.org``, with ``-p PORT`` for a port other than 22."""
    match = _PUBLIC_HOST.fullmatch(address)
    assert match is not None, address
    port = match["port"]
    option = f"-p {int(port)} " if port is not None and int(port) != 22 else ""
    return f"ssh {option}{login}@{match['host'].strip('[]')}"  # (ssh takes an IPv6 address bare)
