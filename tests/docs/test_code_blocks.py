"""Every ```python block in README.md and docs/**/*.md runs.

Each block is executed on its own, in a fresh namespace and a temporary working directory,
exactly as printed: what it uses it must import. A block that needs a running terminal or a
network may be marked in the markdown with ``<!-- not-run: reason -->`` on the line right
before its fence; the reason is required, and such a block must still compile.
"""

from __future__ import annotations

import re
import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path

import pytest
from gamenight.sdk import API_VERSION
from gamenight.sdk.testing import run_conformance
from gamenight.testing import random_playouts

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^([ \t]*)```(\S*)[ \t]*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:(.*?)-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its code and why it is not run."""

    source: str
    line: int
    language: str
    code: str
    not_run: str | None = None

    @property
    def name(self) -> str:
        return f"{self.source}:{self.line}"


def code_blocks(text: str, source: str = "<text>") -> list[Block]:
    """The fenced blocks of a markdown text, with the ``not-run`` reason given just before each."""
    blocks = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, language = opening.group(1), opening.group(2)
        end = index + 1
        while end < len(lines) and not (FENCE.match(lines[end]) and FENCE.match(lines[end]).group(2) == ""):
            end += 1
        code = textwrap.dedent("\n".join(line.removeprefix(indent) for line in lines[index + 1 : end])) + "\n"
        before = next((lines[k] for k in range(index - 1, -1, -1) if lines[k].strip()), "")
        marker = NOT_RUN.match(before)
        blocks.append(Block(source, index + 1, language, code, marker.group(1).strip() if marker else None))
        index = end + 1
    return blocks


def documents() -> list[Path]:
    """README.md and every markdown file under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def python_blocks() -> list[Block]:
    found = []
    for path in documents():
        source = path.relative_to(ROOT).as_posix()
        found += [block for block in code_blocks(path.read_text("utf-8"), source) if block.language == "python"]
    return found


def run_block(block: Block) -> dict:
    """Execute ``block`` as a fresh module (so dataclasses and the like work); return its namespace."""
    name = "docs_block_" + re.sub(r"\W", "_", block.name)
    module = types.ModuleType(name)
    module.__file__ = str(Path.cwd() / f"{name}.py")  # as if the block were saved as a file here
    sys.modules[name] = module
    try:
        exec(compile(block.code, block.name, "exec"), module.__dict__)  # the docs are ours to run
    finally:
        del sys.modules[name]
    return module.__dict__


BLOCKS = python_blocks()


def test_the_documents_have_python_blocks_to_run() -> None:
    names = {block.source for block in BLOCKS}
    assert {"README.md", "docs/plugins.md"} <= names
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_each_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if block.not_run is not None:
        assert len(block.not_run.split()) >= 3, f"{block.name}: say why the block is not run"
        compile(block.code, block.name, "exec")
        pytest.skip(f"not run: {block.not_run}")
    run_block(block)


def test_the_readme_plugin_is_a_game_that_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in BLOCKS if b.source == "README.md" and "GameInfo(" in b.code]
    game = run_block(block)["GAME"]
    matches = random_playouts(game, games=5, seed=3)
    assert len(matches) == 5 and all(match.over and sum(match.outcome().scores) == 1 for match in matches)


def test_the_readme_plugin_passes_the_conformance_kit_it_points_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer copies the README's Sticks and runs ``run_conformance(game)``, as its Testing line says:
    a game that hides nothing must say so (``perfect_information``), or the kit asks for ``perturb=``."""
    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in BLOCKS if b.source == "README.md" and "GameInfo(" in b.code]
    run_conformance(run_block(block)["GAME"], games=4, screen=False)  # (its screen module is the reader's to write)


def test_the_readme_names_the_sdk_version_of_today() -> None:
    """The README said "start there; SDK 1.1" while the SDK went on to 1.4: it names the current one."""
    named = re.findall(r"start there; SDK (\d+\.\d+)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert named == [API_VERSION]


# -- the extractor itself --------------------------------------------------------------------

SAMPLE = """# Doc

```python
print("a")
```

<!-- not-run: it opens a terminal -->

```python
App().run()
```

- a list item:

  ```python
  x = 1
  ```

```sh
echo hi
```
"""


def test_blocks_are_found_with_their_language_line_and_marker() -> None:
    blocks = code_blocks(SAMPLE, "sample.md")
    assert [(b.line, b.language, b.not_run) for b in blocks] == [
        (3, "python", None),
        (9, "python", "it opens a terminal"),
        (15, "python", None),
        (19, "sh", None),
    ]
    assert blocks[2].code == "x = 1\n"


def test_a_failing_block_fails_and_a_marker_needs_a_reason(tmp_path: Path) -> None:
    (bad,) = code_blocks("```python\nTERMINAL\n```\n", "bad.md")
    with pytest.raises(NameError, match="TERMINAL"):
        run_block(bad)
    (unexplained,) = code_blocks("<!-- not-run: -->\n```python\nx\n```\n", "bad.md")
    assert unexplained.not_run == ""
