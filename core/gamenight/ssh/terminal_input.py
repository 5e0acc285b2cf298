"""What a client types, before its room reads it: control *strings* dropped whole.

A terminal's control strings -- OSC (``ESC ]``), DCS (``ESC P``), SOS
(``ESC X``), PM (``ESC ^``) and APC (``ESC _``), each up to its terminator
(BEL or ST, ``ESC \\``) -- are no keys.  Textual's key parser knows none of
them: it reads ``ESC ]`` as Alt+] and the rest of the string as typed text, so
a client that sends ``ESC ] 0 ; text BEL`` types "0;text" into whatever has
focus (a chat line, a save name).  They are dropped here, whole, also when a
string arrives over several packets; so are the 8-bit C1 controls (U+0080 to
U+009F; the 8-bit forms of the strings' introducers start a string too).

A string is cut off -- what came of it dropped, the rest read as keys again --
by CAN or SUB, by any other C0 control (a person who pressed Alt+] and went on
typing gets their Return), by an ESC that does not end it, or after
:data:`LONGEST` characters.  A lone ESC is passed on at once (it is the Escape
key), so a string whose ESC ends one packet is not recognised: the filter takes
out complete strings, as terminals and paste buffers send them.
"""

from __future__ import annotations

__all__ = ["LONGEST", "TerminalStrings"]

LONGEST = 4096
"""The most characters of one string held back before it is given up (and dropped)."""

_INTRODUCERS = frozenset("]PX^_")
_C1_INTRODUCERS = frozenset("\x90\x98\x9d\x9e\x9f")
_ENDS = frozenset("\x07\x9c")
_CANCELS = frozenset("\x18\x1a")


class TerminalStrings:
    """A filter over decoded client input that drops OSC/DCS/SOS/PM/APC strings and C1 controls."""

    def __init__(self) -> None:
        self._inside = False
        self._escape = False
        """Inside a string, the last character was ESC (``ESC \\`` ends it)."""
        self._held = 0

    def feed(self, text: str) -> str:
        """The part of ``text`` that is keys (the state carries over to the next call)."""
        if not self._inside and "\x1b" not in text and not any("\x80" <= ch <= "\x9f" for ch in text):
            return text  # the common case: plain keys
        kept: list[str] = []
        index, size = 0, len(text)
        while index < size:
            char = text[index]
            if self._inside:
                if self._escape:
                    self._escape = False
                    if char == "\\":  # ST: the string is over
                        self._inside = False
                    elif char in _INTRODUCERS:  # the next string right away
                        self._held = 0
                    else:  # an escape sequence cut the string off: it is read as keys
                        self._inside = False
                        kept.append("\x1b")
                        continue
                    index += 1
                    continue
                if char in _ENDS or char in _CANCELS:
                    self._inside = False
                elif char == "\x1b":
                    self._escape = True
                elif char < " " or "\x80" <= char <= "\x9f":
                    self._inside = False  # cut off by a control: read it as a key
                    continue
                else:
                    self._held += 1
                    if self._held > LONGEST:
                        self._inside = False
                index += 1
                continue
            if char == "\x1b" and index + 1 < size and text[index + 1] in _INTRODUCERS:
                self._inside, self._held = True, 0
                index += 2
                continue
            if char in _C1_INTRODUCERS:
                self._inside, self._held = True, 0
            elif not "\x80" <= char <= "\x9f":
                kept.append(char)
            index += 1
        return "".join(kept)
