"""Code, tests, docs and bench results say what a thing is, not which issue of a tracker asked for it.

The tracker is not in the repository, so its numbers tell the next reader nothing; "shared tables"
does.  A reference to an upstream project's tracker says "upstream" on its line.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"\b[Ii]ssues? #?\d")


def test_no_file_names_an_issue_of_our_tracker():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    found = []
    for name in files:
        if not name.endswith((".py", ".md", ".toml", ".tcss")):
            continue
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            if REFERENCE.search(line) and "upstream" not in line:
                found.append(f"{name}:{number}: {line.strip()[:100]}")
    assert found == [], "say what, not which issue:\n" + "\n".join(found)
