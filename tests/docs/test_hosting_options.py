"""docs/hosting.md's Options table lists every option of ``gamenight serve-ssh --help``.

An operator reads the table, not the parser: ``--public-host`` was in the help and the README
but not in the table, so a guest server set up from the guide showed "log in as before, with
the new user name" instead of the command to come back with.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from gamenight.ssh.settings import parser

HOSTING = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"


def options_table(text: str) -> str:
    """The rows of the table under "## Options" (up to the next blank line after it starts)."""
    section = text.split("\n## Options\n", 1)[1]
    rows = re.search(r"^\| option \|.*?(?=\n\n)", section, flags=re.DOTALL | re.MULTILINE)
    assert rows is not None, "docs/hosting.md: no table under ## Options"
    return rows.group(0)


def test_every_option_of_the_help_is_in_the_hosting_guides_table() -> None:
    table = options_table(HOSTING.read_text(encoding="utf-8"))
    shown = [
        option
        for action in parser()._actions
        if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)
        for option in action.option_strings
    ]
    assert len(shown) > 20
    missing = [option for option in shown if not re.search(rf"`{re.escape(option)}[` ]", table)]
    assert missing == []
