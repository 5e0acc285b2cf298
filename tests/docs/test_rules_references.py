"""Citations of docs/rules hold: every ``<game>.md N[.N]`` names a clause that exists.

The repository stands alone: the rules are cited from docs/rules (see docs/rules/README.md,
"How to cite"), never from the team's background notes outside it.  This test reads every text
file of the tree and checks

* each citation ``mille.md 3.2`` (or ``mille.md 4, 5 and 6``, ``mille.md 7.1-7.6``) names a
  section or clause of an existing page, and a quotation right after it
  (``yatzy.md 1.1: "1–8 seats"``) is found in that clause;
* no file refers to the background notes, except the note on sources in docs/rules/README.md;
* on every page, section numbers and titles and clause numbers are unique, and each clause is
  numbered inside its section.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "docs" / "rules"
SCANNED = ("README.md", "pyproject.toml", "core", "plugins", "tests", "examples", "bench", "docs", "themes")
SKIPPED_DIRS = {".venv", "__pycache__", "__snapshots__", ".pytest_cache", ".hypothesis", ".ruff_cache", "build", "dist"}

SECTION = re.compile(r"^## (\d+)\. (.+?)\s*$", re.M)
CLAUSE = re.compile(r"^\*\*(\d+)\.(\d+)\*\*\s+", re.M)
NUMBER = r"\d+(?:\.\d+)?"
CITATION = re.compile(
    r"\b([a-z][a-z0-9_-]*)\.md"  # the page
    rf"((?:(?:,\s+and\s+|\s+and\s+|,\s+|\s+|-|–){NUMBER})+)"  # 3.2 / 4, 5 and 6 / 7.1-7.6
    r"(?::\s*\"([^\"]+)\")?"  # an optional quotation
)
RULES_PATH = re.compile(r"docs/rules/([A-Za-z0-9_.-]+\.md)")

# Built from pieces so that this file does not cite what it forbids.
FORBIDDEN = re.compile(
    "|".join(
        (
            "RULES" + r"(?:\.md(?: ?§ ?\d+)?| ?§ ?\d+)",
            r"\b[A-Z]+-" + "NOTES" + r"\b",
            r"\.\./" + "shared",
            "/work/" + "shared",
            r"\bseeds?" + r"[/ ]00\d",
            "§" + r"\s*\d",
        )
    )
)
SOURCES_NOTE = re.compile(r"^## Sources\n.*?(?=^## |\Z)", re.M | re.S)


@dataclass
class Page:
    """The sections and clauses of one rules page."""

    sections: dict[str, str] = field(default_factory=dict)
    clauses: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def text_of(self, number: str) -> str | None:
        """The text of clause ``number``, or of every clause of section ``number``."""
        if "." in number:
            return self.clauses.get(number)
        if number not in self.sections:
            return None
        inside = [text for key, text in self.clauses.items() if key.split(".")[0] == number]
        return " ".join([self.sections[number], *inside])


def normalise(text: str) -> str:
    """Text without markdown emphasis or code marks, one space between words, case folded."""
    return " ".join(re.sub(r"[*`]", "", text).split()).casefold()


def parse_page(text: str) -> Page:
    """Read the numbered sections and clauses of a page, noting duplicates and misnumbering."""
    page = Page()
    titles: set[str] = set()
    section = None
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        heading = SECTION.match(block)
        if heading:
            section, title = heading.group(1), heading.group(2)
            if section in page.sections:
                page.problems.append(f"section {section} appears twice")
            if title in titles:
                page.problems.append(f"section title {title!r} appears twice")
            page.sections[section] = title
            titles.add(title)
            continue
        clause = CLAUSE.match(block)
        if not clause:
            continue
        number = f"{clause.group(1)}.{clause.group(2)}"
        if number in page.clauses:
            page.problems.append(f"clause {number} appears twice")
        if clause.group(1) != section:
            page.problems.append(f"clause {number} stands in section {section}")
        page.clauses[number] = block[clause.end() :]
    if not page.sections:
        page.problems.append("no numbered sections")
    return page


def citations(text: str) -> Iterator[tuple[int, str, list[str], str | None]]:
    """``(line, page, numbers, quotation)`` for each citation in ``text``."""
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        numbers = re.findall(NUMBER, match.group(2))
        yield line, match.group(1) + ".md", numbers, match.group(3)


def problems_in(text: str, pages: dict[str, Page], *, sources_note: bool = False) -> list[str]:
    """What is wrong with the rules citations in ``text`` (one file), as ``line: reason``."""
    found = []
    for line, name, numbers, quotation in citations(text):
        page = pages.get(name)
        if page is None:
            if name.removesuffix(".md") in {"mille", "seven", "yatzy", "lits", "mate"}:
                found.append(f"{line}: {name} does not exist in docs/rules")
            continue
        texts = []
        for number in numbers:
            clause = page.text_of(number)
            if clause is None:
                found.append(f"{line}: {name} {number} does not exist")
            else:
                texts.append(clause)
        if quotation and texts and not any(normalise(quotation) in normalise(t) for t in texts):
            found.append(f"{line}: {name} {'/'.join(numbers)} does not say {quotation!r}")
    for match in RULES_PATH.finditer(text):
        if not (RULES_DIR / match.group(1)).is_file():
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{line}: docs/rules/{match.group(1)} does not exist")
    checked = SOURCES_NOTE.sub(lambda m: "\n" * m.group(0).count("\n"), text) if sources_note else text
    for match in FORBIDDEN.finditer(checked):
        line = checked.count("\n", 0, match.start()) + 1
        found.append(f"{line}: refers to the background notes outside the repository ({match.group(0)!r})")
    return found


def rules_pages() -> dict[str, Page]:
    """Every page of docs/rules but its README, parsed."""
    return {
        path.name: parse_page(path.read_text("utf-8"))
        for path in sorted(RULES_DIR.glob("*.md"))
        if path.name != "README.md"
    }


def text_files() -> Iterator[Path]:
    """Every readable text file of the tree that may cite the rules."""
    for name in SCANNED:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            if not path.is_file() or SKIPPED_DIRS & set(path.relative_to(ROOT).parts):
                continue
            if path.suffix in {".gz", ".png", ".svg", ".pyc"} or path.stat().st_size > 1_000_000:
                continue
            yield path


# -- the repository ----------------------------------------------------------------------------


def test_there_is_a_page_per_game_and_the_index_links_them() -> None:
    index = (RULES_DIR / "README.md").read_text("utf-8")
    for game in ("mille", "seven", "yatzy", "lits", "mate"):
        assert (RULES_DIR / f"{game}.md").is_file()
        assert f"]({game}.md)" in index


@pytest.mark.parametrize("name", sorted(rules_pages()))
def test_each_page_numbers_its_sections_and_clauses_once(name: str) -> None:
    page = rules_pages()[name]
    assert page.problems == []
    assert len(page.clauses) >= 5


def test_every_rules_citation_in_the_repository_names_an_existing_clause() -> None:
    pages = rules_pages()
    found = []
    cited = 0
    for path in text_files():
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        relative = path.relative_to(ROOT).as_posix()
        cited += sum(1 for _citation in citations(text))
        sources_note = relative == "docs/rules/README.md"
        found += [f"{relative}:{problem}" for problem in problems_in(text, pages, sources_note=sources_note)]
    assert found == []
    assert cited > 100, "the walk over the tree found too few citations: is it reading the files?"


# -- the checker itself ---------------------------------------------------------------------------

PAGE = """# A game

## 1. Seats

**1.1** Two seats play.

**1.2** Each seat sees its own hand.

## 2. Scoring

**2.1** The first seat to empty its hand wins the deal.
"""


def cite(page: str, rest: str) -> str:
    """A citation built at run time, so that the repository scan does not see it."""
    return page + ".md " + rest


def test_the_parser_reads_sections_and_clauses() -> None:
    page = parse_page(PAGE)
    assert page.sections == {"1": "Seats", "2": "Scoring"}
    assert page.clauses["1.2"] == "Each seat sees its own hand."
    assert page.problems == []


def test_a_good_citation_passes_and_a_bad_one_is_reported() -> None:
    pages = {"mille.md": parse_page(PAGE)}
    assert problems_in("# " + cite("mille", "1.2") + " and " + cite("mille", "2"), pages) == []
    assert problems_in("x\n# " + cite("mille", "9.9"), pages) == ["2: " + cite("mille", "9.9 does not exist")]
    assert problems_in(cite("mille", "3"), pages) == ["1: mille.md 3 does not exist"]


def test_lists_and_ranges_check_every_number() -> None:
    pages = {"mille.md": parse_page(PAGE)}
    assert problems_in(cite("mille", "1.1, 1.2 and 2.1"), pages) == []
    assert problems_in(cite("mille", "1.1-1.3"), pages) == ["1: " + cite("mille", "1.3 does not exist")]
    assert problems_in(cite("mille", "1.1, 4.4"), pages) == ["1: mille.md 4.4 does not exist"]


def test_a_quotation_must_be_in_the_clause() -> None:
    pages = {"mille.md": parse_page(PAGE)}
    assert problems_in(cite("mille", '1.2: "sees its  OWN hand"'), pages) == []
    assert problems_in(cite("mille", '1.2: "sees every hand"'), pages) == [
        "1: mille.md 1.2 does not say 'sees every hand'"
    ]


def test_a_missing_page_and_a_missing_path_are_reported() -> None:
    pages = {"mille.md": parse_page(PAGE)}
    assert problems_in(cite("seven", "1.1"), pages) == ["1: seven.md does not exist in docs/rules"]
    assert problems_in("docs/rules/" + "chess.md", pages) == ["1: docs/rules/" + "chess.md does not exist"]


@pytest.mark.parametrize(
    "reference",
    [
        "RULES" + ".md " + "§" + "2",
        "RULES" + " " + "§" + "1 Scoring",
        "MILLE-" + "NOTES",
        "../" + "shared/DESIGN.md",
        "seed " + "002",
    ],
)
def test_references_to_the_background_notes_are_reported(reference: str) -> None:
    found = problems_in(f"see {reference} here", {})
    assert len(found) == 1 and "background notes" in found[0]


def test_the_note_on_sources_may_name_them_but_nothing_else_may() -> None:
    readme = "# Rules\n\n## Sources\n\nFrom " + "RULES" + ".md.\n\n## Later\n\n" + "LITS-" + "NOTES again\n"
    assert problems_in(readme, {}, sources_note=True) == [
        "9: refers to the background notes outside the repository ('LITS-" + "NOTES')"
    ]
    assert len(problems_in(readme, {})) == 2


def test_duplicate_and_misplaced_clauses_are_reported() -> None:
    bad = PAGE + "\n**2.1** Again.\n\n**1.3** Out of place.\n\n## 1. Seats\n"
    assert parse_page(bad).problems == [
        "clause 2.1 appears twice",
        "clause 1.3 stands in section 2",
        "section 1 appears twice",
        "section title 'Seats' appears twice",
    ]
