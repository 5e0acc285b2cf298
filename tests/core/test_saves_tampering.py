"""The guard of honest saves: tampering with any field of a real save is refused or harmless.

For a real session of each of the five games and the example's Goofspiel
(one finished game in the history, the next under way), every field of the
document -- every number, text, seat, option, and a seeded sample of log lines
in every game -- is mutated in several ways.  Each mutated file must either be
refused with a :class:`SaveError` (never another exception, and not "the
game's rules failed"), the file left as it was, or be provably harmless
(:data:`ALLOWED`): never forged chance, never other finished games or totals.

A second test fuzzes with Hypothesis -- a field changed, or the TOML text
itself edited (bytes inserted, deleted, replaced, lines doubled or dropped) --
with the same verdicts.
"""

from __future__ import annotations

import copy
import math
import random
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import tomli_w
from gamenight.saves import SaveError, load_match
from gamenight.sdk import CHANCE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.real_saves import GAME_IDS, registry, save_of

Path_ = tuple[Any, ...]
"""A path into the document: keys and list indexes."""

LOG_LINES_PER_GAME = 3
"""Log lines mutated per game log (a seeded sample, plus the first and the last)."""


def leaves(value: Any, path: Path_ = (), rng: random.Random | None = None) -> Iterator[Path_]:
    """Every path in the document, with log lines sampled."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key), rng)
    elif isinstance(value, list):
        indexes = range(len(value))
        if path and path[0] in ("log", "history") and isinstance(value[0] if value else None, str):
            picked = {0, len(value) - 1, *rng.sample(indexes, min(LOG_LINES_PER_GAME, len(value)))}
            indexes = sorted(picked)
        for index in indexes:
            yield from leaves(value[index], (*path, index), rng)


def get(document: Any, path: Path_) -> Any:
    for step in path:
        document = document[step]
    return document


def put(document: Any, path: Path_, value: Any) -> None:
    get(document, path[:-1])[path[-1]] = value


def delete(document: Any, path: Path_) -> None:
    del get(document, path[:-1])[path[-1]]


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


LOG_LINE_MUTATIONS = ("empty", "append", "cut", "escape", "seat", "int")
"""The string mutations tried on log lines (the others are tried on every other text)."""


def mutations(value: Any, in_log: bool = False) -> list[tuple[str, Callable[[Any], Any]]]:
    """Ways to change one value (each returns the new value)."""
    if in_log and isinstance(value, str):
        return [(name, change) for name, change in mutations(value) if name in LOG_LINE_MUTATIONS]
    common = [
        ("bool", lambda v: True),
        ("text", lambda v: "1"),
        ("table", lambda v: {"a": 1}),
        ("nested", lambda v: deep(60)),
    ]
    if isinstance(value, bool):
        return [("flip", lambda v: not v), ("int", lambda v: 1), *common[1:]]
    if isinstance(value, int):
        return [
            ("+1", lambda v: v + 1),
            ("-1", lambda v: v - 1),
            ("neg", lambda v: -v - 1),
            ("huge", lambda v: 2**63 - 1),
            ("float", lambda v: v + 0.5),
            *common,
        ]
    if isinstance(value, float):
        return [
            ("+1", lambda v: v + 1.0),
            ("-1", lambda v: v - 1.0),
            ("nan", lambda v: math.nan),
            ("inf", lambda v: math.inf),
            ("-inf", lambda v: -math.inf),
            ("tiny", lambda v: v + 1e-9),
            *common,
        ]
    if isinstance(value, str):
        return [
            ("empty", lambda v: ""),
            ("append", lambda v: v + "x"),
            ("cut", lambda v: v[:-1]),
            ("escape", lambda v: v[:1] + "\x1b]0;PWNED\x07" + v[1:]),
            ("rlo", lambda v: "\u202e" + v),
            ("markup", lambda v: v + "[/]"),
            ("long", lambda v: v * (10_000 // max(len(v), 1) + 1)),
            ("filler", lambda v: "\u3164"),
            ("seat", lambda v: ("0" if v[:1] != "0" else "1") + v[1:]),
            ("int", lambda v: 0),
            ("nested", common[3][1]),
        ]
    if isinstance(value, list):
        return [
            ("clear", lambda v: []),
            ("drop-last", lambda v: v[:-1]),
            ("duplicate", lambda v: [*v, *v[-1:]]),
            ("reverse", lambda v: v[::-1]),
            ("swap", lambda v: [*v[1:2], *v[:1], *v[2:]]),
            ("add-text", lambda v: [*v, "0 x"]),
            ("text", common[1][1]),
            ("nested", lambda v: [*v, deep(60)]),
        ]
    if isinstance(value, dict):
        return [
            ("clear", lambda v: {}),
            ("unknown-key", lambda v: {**v, "zz": 1}),
            ("drop-first", lambda v: dict(list(v.items())[1:])),
            ("text", common[1][1]),
        ]
    return []


def verdict(game_id: str, original, path, text: bytes) -> str:
    """Load ``text`` from a file and say what happened; see :data:`ALLOWED`."""
    path.write_bytes(text)
    try:
        loaded = load_match(registry(), path)
    except SaveError as error:
        if "rules failed" in str(error):
            return f"the rules crashed: {error}"
        if path.read_bytes() != text:
            return "the file was changed"
        return "refused"
    except Exception as error:  # the point of the test: nothing else may escape
        return f"crashed: {type(error).__name__}: {error}"
    counts_kept = (
        loaded.history == original.history
        and loaded.totals == original.totals
        and loaded.wins == original.wins
        and loaded.games_played == original.games_played
    )
    if not counts_kept:
        return "accepted other finished games or totals"
    if loaded.state == original.state and loaded.log == original.log:
        return "harmless"
    if loaded.options != original.options and loaded.log == original.log:
        return "another variant"
    differs = next(
        (i for i, (a, b) in enumerate(zip(loaded.log, original.log, strict=False)) if a != b),
        min(len(loaded.log), len(original.log)),
    )
    if differs < len(loaded.log) and loaded.log[differs].seat == CHANCE:
        return "accepted forged chance"  # a chance outcome in place of another entry, or added
    if differs < min(len(loaded.log), len(original.log)) and original.log[differs].seat == CHANCE:
        return "accepted forged chance"  # a move in place of a chance outcome
    return "other moves"


ALLOWED = {
    "refused": "a SaveError with the reason, the file untouched",
    "harmless": "the same state, logs, totals, wins and games played (a name, a bot, the seed of a game "
    "without chance, a version string changed)",
    "another variant": "different options under which every recorded game replays exactly as before",
    "other moves": "the game in progress with other (or fewer, or more) person or bot moves: the record of a "
    "game that could have been played -- every chance outcome still the seed's, the finished "
    "games and totals unchanged.  An unsigned file cannot tell this from play (and copying an "
    "autosave back rewinds a game just the same)",
}
"""What a mutated save may do.  Not allowed: any crash, forged chance, other finished games or totals."""


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_field_of_a_real_save_mutated_is_refused_or_harmless(tmp_path, game_id):
    original, path = save_of(game_id, tmp_path)
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    rng = random.Random(f"tamper:{game_id}")
    wrong: list[str] = []
    tried = 0
    for where in list(leaves(document, rng=rng)):
        value = get(document, where)
        changes = mutations(value, in_log=len(where) > 1 and where[0] in ("log", "history"))
        if where:
            changes.append(("delete", None))
        for name, change in changes:
            mutated = copy.deepcopy(document)
            if change is None:
                delete(mutated, where)
            elif where:
                put(mutated, where, change(value))
            else:
                continue  # the document itself: covered by the fuzzer below
            tried += 1
            result = verdict(game_id, original, tmp_path / "mutated.toml", tomli_w.dumps(mutated).encode())
            if result not in ALLOWED:
                wrong.append(f"{'.'.join(map(str, where))} {name}: {result}")
    assert tried > 200
    assert wrong == [], "\n".join(wrong)


# -- the text fuzzer -----------------------------------------------------------------------------

PIECES = [
    "0",
    "9",
    "-",
    ".",
    '"',
    "[",
    "]",
    "{",
    ",",
    "\n",
    "=",
    " ",
    "x",
    "\x1b",
    "\u202e",
    "nan",
    "inf",
    "true",
    "1e999",
    "\\u0000",
    "[[[[[[",
    "'",
    "\u3164",
]
"""What the text fuzzer inserts: bytes that TOML, numbers and terminals each treat specially."""

_EDITS = st.lists(
    st.tuples(
        st.sampled_from(["insert", "delete", "replace", "duplicate-line", "drop-line"]),
        st.floats(0, 1, exclude_max=True),
        st.sampled_from(PIECES),
    ),
    min_size=1,
    max_size=4,
)


def apply_edits(text: str, edits) -> str:
    for kind, where, piece in edits:
        at = int(where * len(text))
        lines = text.split("\n")
        line = int(where * len(lines))
        if kind == "insert":
            text = text[:at] + piece + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + len(piece) :]
        elif kind == "replace":
            text = text[:at] + piece + text[at + 1 :]
        elif kind == "duplicate-line":
            text = "\n".join([*lines[: line + 1], *lines[line:]])
        else:
            text = "\n".join([*lines[:line], *lines[line + 1 :]])
    return text


@pytest.fixture(scope="module")
def fuzz_saves(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    return {game_id: save_of(game_id, folder) for game_id in ("mille", "seven", "yatzy", "mate")}


def field_mutation(document: dict, pick: int, choice: int) -> dict:
    """The document with field number ``pick`` (of every path, log lines sampled) changed by mutation ``choice``."""
    paths = [path for path in leaves(document, rng=random.Random(pick)) if path]
    where = paths[pick % len(paths)]
    value = get(document, where)
    changes = [*mutations(value, in_log=len(where) > 1 and where[0] in ("log", "history")), ("delete", None)]
    mutated = copy.deepcopy(document)
    change = changes[choice % len(changes)][1]
    if change is None:
        delete(mutated, where)
    else:
        put(mutated, where, change(value))
    return mutated


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    game_id=st.sampled_from(["mille", "seven", "yatzy", "mate"]),
    edits=_EDITS,
    field=st.none() | st.tuples(st.integers(0, 10**6), st.integers(0, 100)),
)
def test_fuzzed_saves_are_refused_or_harmless(fuzz_saves, tmp_path, game_id, edits, field):
    """Hypothesis: a field mutated, or the TOML text edited (bytes, lines) -- never a crash or a forgery."""
    original, path = fuzz_saves[game_id]
    text = path.read_text(encoding="utf-8")
    if field is None:
        data = apply_edits(text, edits).encode("utf-8", "surrogatepass")
    else:
        data = tomli_w.dumps(field_mutation(tomllib.loads(text), *field)).encode()
    result = verdict(game_id, original, tmp_path / "fuzzed.toml", data)
    assert result in ALLOWED, result
