"""Reading a TOML file a person or a plugin wrote (the config, a theme): bounded and crash-free.

``tomllib`` parses nested arrays and inline tables recursively (about 400
levels raise ``RecursionError``), turns a 5,000-digit integer into a
``ValueError`` that is not a ``TOMLDecodeError``, and reads a file of any
size.  :func:`read_toml` caps the size first, turns every one of those into
a :class:`TomlFileError` with a reason a person can act on, and refuses
tables nested deeper than a schema could want (:func:`nesting_depth` walks
without recursion, so a 10,000-level dotted key cannot crash it either).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from gamenight.i18n import _

__all__ = ["MAX_DEPTH", "TomlFileError", "nesting_depth", "parse_toml", "read_toml"]

MAX_DEPTH = 8
"""Deepest nesting of tables and arrays accepted (the config needs 3, a theme 2)."""


class TomlFileError(ValueError):
    """The file cannot be used; the message says why (without the path: callers add it)."""


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep ``value`` nests tables and arrays, counting stops just past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                return deepest
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_toml(text: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse ``text``; raises :class:`TomlFileError` (never ``RecursionError``) with the reason."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:  # its message names the line: "... (at line 3, column 9)"
        raise TomlFileError(str(error)) from None
    except ValueError as error:  # a 5,000-digit integer
        raise TomlFileError(_("a value is out of range ({reason})", reason=str(error)[:80])) from None
    except RecursionError:
        raise TomlFileError(_("it is nested too deeply")) from None
    if nesting_depth(data, max_depth) > max_depth:
        raise TomlFileError(_("it is nested too deeply (more than {levels} levels)", levels=max_depth))
    return data


def read_toml(path: Path, max_bytes: int, max_depth: int = MAX_DEPTH) -> tuple[str, dict[str, Any]]:
    """The text and the data of the TOML file at ``path``.

    Raises ``FileNotFoundError`` when it is missing, ``OSError`` when it
    cannot be read, and :class:`TomlFileError` when it is too big, not UTF-8
    or not valid TOML.
    """
    with Path(path).open("rb") as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise TomlFileError(_("it is larger than {size} KiB", size=max_bytes // 1024))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TomlFileError(_("it is not UTF-8 text")) from None
    return text, parse_toml(text, max_depth)
