"""The exact expected-score-maximising solitaire Yatzy strategy (dynamic programming).

Between turns a player's position is summed up by (docs/rules/yatzy.md 3 and 4):

* the set of used boxes (13 bits, bit ``b`` for box ``b`` of :data:`rules.BOXES`),
* the upper total capped at 63 (only reaching 63 matters: the 35 bonus),
* whether the Yatzy box holds 50 (the +100 bonus for every further Yatzy).

``table[mask, upper, flag]`` is the expected score of the rest of the game from
there, playing perfectly.  It is filled from the last turn back to the first;
each turn is an expectimax over the three rolls, done on multisets of dice:
462 "keeps" (0-5 dice kept) of which 252 are full rolls.  Rolling the missing
dice one at a time gives the same distribution as rolling them together, so
the value of a keep is the mean over one more die (6 terms), and the best keep
inside a roll is a max over removing one die: both run for all states of a
level at once as numpy row operations.  With ``joker`` on this gives Tom
Verhoeff's published optimum for the official rules, 254.59.

Where the table comes from (:func:`load_table`), first that works:

1. the file shipped in this package (``optimal-plain.gz`` / ``optimal-joker.gz``, 2.2 MB
   each, made by ``python -m gamenight_yatzy.build_table --ship``), checked against the
   SHA-256 of the whole table it records;
2. the user cache directory (``platformdirs``, or ``$GAMENIGHT_YATZY_CACHE`` when set);
3. a fresh build (with progress), written to that cache.

A missing or corrupt file is skipped to the next, never an error.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import os
import tempfile
import threading
import zlib
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from math import factorial
from pathlib import Path

import numpy as np

from gamenight_yatzy.rules import (
    CHANCE_BOX,
    FOUR_KIND,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    SMALL_STRAIGHT,
    THREE_KIND,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YATZY,
    YATZY_BONUS,
    YATZY_SCORE,
    base_scores,
)

__all__ = [
    "TABLE_SHAPE",
    "TurnValues",
    "build_table",
    "cache_path",
    "expected_score",
    "load_or_build",
    "load_table",
    "packaged_path",
    "reachable_mask",
    "read_packaged",
    "turn_values",
    "write_packaged",
]

TABLE_SHAPE = (1 << 13, UPPER_BONUS_THRESHOLD + 1, 2)
FULL_MASK = (1 << 13) - 1
_FORMAT_VERSION = 1
_NEG = -1e9  # stands for "this box is used": never the max

# -- dice multisets ------------------------------------------------------------

KEEPS: tuple[tuple[int, ...], ...] = tuple(
    sorted(
        (counts for counts in itertools.product(range(6), repeat=6) if sum(counts) <= 5),
        key=lambda counts: (sum(counts), sum(1 for c in counts if c), counts),
    )
)
"""Every multiset of 0-5 dice as face counts (c1..c6), by size then number of distinct faces;
the last 252 are full rolls."""
KEEP_INDEX = {counts: index for index, counts in enumerate(KEEPS)}
_SIZES = np.array([sum(counts) for counts in KEEPS])
SIZE_SLICES = [
    slice(int(np.argmax(_SIZES == s)), int(np.argmax(_SIZES == s)) + int((_SIZES == s).sum())) for s in range(6)
]
"""Rows of KEEPS holding 0, 1, ..., 5 dice."""
ROLLS = SIZE_SLICES[5]
N_KEEPS, N_ROLLS = len(KEEPS), ROLLS.stop - ROLLS.start


def _plus(counts: tuple[int, ...], face: int) -> tuple[int, ...]:
    return tuple(c + (f == face) for f, c in enumerate(counts))


def _minus(counts: tuple[int, ...], face: int) -> tuple[int, ...]:
    return tuple(c - (f == face) for f, c in enumerate(counts))


# ADD[k, f]: the keep k plus one die showing f+1 (for keeps of 0-4 dice).
ADD = np.array([[KEEP_INDEX.get(_plus(k, f), 0) for f in range(6)] for k in KEEPS], dtype=np.intp)


def _less_one_by_group() -> list[tuple[slice, np.ndarray]]:
    """For the keeps of one size and one number d of distinct faces (a slice of KEEPS):
    the d keeps with one die fewer, one column per face present."""
    groups = []
    for size in range(1, 6):
        for distinct in range(1, size + 1):
            rows = [i for i, k in enumerate(KEEPS) if sum(k) == size and sum(1 for c in k if c) == distinct]
            if rows:
                fewer = [[KEEP_INDEX[_minus(KEEPS[i], f)] for f in range(6) if KEEPS[i][f]] for i in rows]
                groups.append((slice(rows[0], rows[-1] + 1), np.array(fewer)))
    return groups


_LESS_ONE = _less_one_by_group()
ROLL_COUNTS = np.array([KEEPS[r] for r in range(ROLLS.start, ROLLS.stop)], dtype=np.intp)
ROLL_PROB = np.array([factorial(5) / np.prod([factorial(c) for c in counts]) / 6**5 for counts in ROLL_COUNTS])
ROLL_SCORES = np.array(
    [base_scores([f + 1 for f in range(6) for _ in range(counts[f])]) for counts in ROLL_COUNTS],
    dtype=np.float64,
)
"""Base score of each of the 13 boxes for each roll (252 × 13)."""
YATZY_ROWS = np.array([int(np.argmax(ROLL_COUNTS[:, f] == 5)) for f in range(6)])
"""Row of the Yatzy of face f+1 among the rolls."""
_UPPER_ROWS = [[np.flatnonzero(ROLL_COUNTS[:, f] == c) for c in range(6)] for f in range(6)]
"""Rolls showing c dice of face f+1, by (f, c)."""
_SCORING_ROWS = {
    box: np.flatnonzero(ROLL_SCORES[:, box])
    for box in (THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT)
}
"""Rolls that score in each lower box (the others score 0 there)."""
_JOKER_LOWER = {
    THREE_KIND: None,
    FOUR_KIND: None,
    FULL_HOUSE: 25,
    SMALL_STRAIGHT: 30,
    LARGE_STRAIGHT: 40,
    CHANCE_BOX: None,
}
"""Joker values of the lower boxes (None: the sum of the dice, 5 × face)."""


def _keep_expectation(values: np.ndarray) -> np.ndarray:
    """Per keep: the expected value of ``values`` (per roll) after rolling the missing dice."""
    expect = np.empty((N_KEEPS, *values.shape[1:]))
    expect[ROLLS] = values
    for size in range(4, -1, -1):
        rows = SIZE_SLICES[size]
        out = expect[rows]
        np.add(expect[ADD[rows, 0]], expect[ADD[rows, 1]], out=out)
        for face in range(2, 6):
            np.add(out, expect[ADD[rows, face]], out=out)
        out *= 1 / 6
    return expect


def _best_inside(expect: np.ndarray) -> np.ndarray:
    """Per roll: the best of ``expect`` over the keeps inside it (itself included).

    Works in place on ``expect``: by size, each keep takes the max of itself and
    its best keeps with one die fewer.
    """
    for rows, less in _LESS_ONE:
        out = expect[rows]
        for column in range(less.shape[1]):
            np.maximum(out, expect[less[:, column]], out=out)
    return expect[ROLLS]


class Positions:
    """A batch of positions (mask, upper, flag) -- the columns of the turn computation."""

    def __init__(self, masks: np.ndarray, upper: np.ndarray, flag: np.ndarray) -> None:
        self.masks, self.upper, self.flag = masks, upper, flag

    def flat_index(self) -> np.ndarray:
        """Index of each position in the flattened table."""
        return (self.masks * 64 + self.upper) * 2 + self.flag

    def used(self, box: int) -> np.ndarray:
        """True where ``box`` is already used."""
        return (self.masks >> box) & 1 == 1

    def after(
        self, flat: np.ndarray, box: int, upper: np.ndarray | None = None, flag: np.ndarray | None = None
    ) -> np.ndarray:
        """Table value after filling ``box`` (-inf where it is used)."""
        upper = self.upper if upper is None else upper
        flag = self.flag if flag is None else flag
        values = flat[((self.masks | (1 << box)) * 64 + upper) * 2 + flag]
        values[self.used(box)] = _NEG
        return values


def _scoring_values(flat: np.ndarray, at: Positions, joker: bool) -> np.ndarray:
    """Value of scoring each roll now, for each position (rolls × positions).

    Points, plus any bonus the box completes, plus the table's value afterwards,
    maximised over the boxes the roll may go in.  Scoring 0 in a box is never
    better than what a qualifying roll scores there (the table only grows with
    the upper total and the flag), so every box's zero is pooled once.
    """
    upper_by_count = []  # per face: value of scoring 0..5 dice of it
    for face in range(1, 7):
        by_count = []
        for count in range(6):
            points = face * count
            new_upper = np.minimum(at.upper + points, UPPER_BONUS_THRESHOLD)
            bonus = np.where((at.upper < UPPER_BONUS_THRESHOLD) & (new_upper == UPPER_BONUS_THRESHOLD), UPPER_BONUS, 0)
            by_count.append(points + bonus + at.after(flat, face - 1, upper=new_upper))
        upper_by_count.append(by_count)
    lower_after = {box: at.after(flat, box) for box in range(6, 13)}
    fifty = at.after(flat, YATZY, flag=np.ones_like(at.flag)) + YATZY_SCORE

    zero = np.max([by_count[0] for by_count in upper_by_count] + [lower_after[box] for box in _SCORING_ROWS], axis=0)
    best = np.empty((N_ROLLS, len(at.masks)))
    best[:] = np.maximum(zero, lower_after[YATZY])
    best[YATZY_ROWS] = np.maximum(zero, fifty)  # a Yatzy scored in its box is 50, never 0
    np.maximum(best, ROLL_SCORES[:, CHANCE_BOX : CHANCE_BOX + 1] + lower_after[CHANCE_BOX], out=best)
    for box, rows in _SCORING_ROWS.items():
        best[rows] = np.maximum(best[rows], ROLL_SCORES[rows, box : box + 1] + lower_after[box])
    for f, by_count in enumerate(upper_by_count):
        for count in range(1, 6):
            rows = _UPPER_ROWS[f][count]
            best[rows] = np.maximum(best[rows], by_count[count])
    if joker:
        _apply_forced_joker(best, at, upper_by_count, lower_after)
    # yatzy.md 4.1: a further Yatzy while the box holds 50 earns 100, whatever box it goes in.
    best[YATZY_ROWS] += np.where(at.flag == 1, YATZY_BONUS, 0)
    return best


def _apply_forced_joker(
    best: np.ndarray, at: Positions, upper_by_count: list[list[np.ndarray]], lower_after: dict[int, np.ndarray]
) -> None:
    """Rewrite the Yatzy rows under Hasbro's forced joker rule (Yatzy box already filled).

    Its upper box if open; else any open lower box (Full House 25, straights 30/40,
    the others the dice's sum); else a zero in an open upper box.
    """
    filled = at.used(YATZY)
    lower_open = ~np.all([at.used(box) for box in range(6, 13)], axis=0)
    zero_upper = np.max([by_count[0] for by_count in upper_by_count], axis=0)
    for face in range(1, 7):
        lower = np.max(
            [(5 * face if value is None else value) + lower_after[box] for box, value in _JOKER_LOWER.items()],
            axis=0,
        )
        joker_value = np.where(at.used(face - 1), np.where(lower_open, lower, zero_upper), upper_by_count[face - 1][5])
        row = YATZY_ROWS[face - 1]
        best[row] = np.where(filled, joker_value, best[row])


@cache
def reachable_uppers(upper_mask: int) -> tuple[int, ...]:
    """The capped upper totals a sheet whose used upper boxes are ``upper_mask`` can show."""
    totals = {0}
    for face in range(1, 7):
        if upper_mask >> (face - 1) & 1:
            totals = {min(total + face * count, UPPER_BONUS_THRESHOLD) for total in totals for count in range(6)}
    return tuple(sorted(totals))


def reachable_positions(masks: Sequence[int]) -> Positions:
    """Every reachable (upper, flag) of each mask, flag 1 only once the Yatzy box is used."""
    columns = [
        (mask, upper, flag)
        for mask in masks
        for upper in reachable_uppers(mask & 63)
        for flag in ((0, 1) if mask >> YATZY & 1 else (0,))
    ]
    array = np.array(columns, dtype=np.int64).reshape(-1, 3)
    return Positions(array[:, 0], array[:, 1], array[:, 2])


def turn_value(flat: np.ndarray, at: Positions, joker: bool) -> np.ndarray:
    """Expected rest-of-game score at the start of a turn, for each position."""
    scored = _scoring_values(flat, at, joker)
    second = _best_inside(_keep_expectation(scored))
    first = _best_inside(_keep_expectation(second))
    return ROLL_PROB @ first


def build_table(
    joker: bool, chunk: int = 256, lowest_level: int = 0, progress: Callable[[float], None] | None = None
) -> np.ndarray:
    """Fill the table from the last turn back; unreachable positions stay 0.

    ``lowest_level`` stops early: only positions with at least that many boxes
    used are filled (the end-game, for tests).  ``chunk`` positions are done at
    once: 256 keeps the working arrays near 1 MB, which measured fastest here.
    ``progress(fraction)`` is told how far the build is (by positions done).
    """
    flat = np.zeros(int(np.prod(TABLE_SHAPE)))
    by_level: dict[int, list[int]] = {}
    for mask in range(FULL_MASK):
        by_level.setdefault(mask.bit_count(), []).append(mask)
    levels = [
        reachable_positions(by_level[level])
        for level in sorted((level for level in by_level if level >= lowest_level), reverse=True)
    ]
    total, done = sum(len(at.masks) for at in levels), 0
    for at in levels:
        for start in range(0, len(at.masks), chunk):
            part = Positions(*(array[start : start + chunk] for array in (at.masks, at.upper, at.flag)))
            flat[part.flat_index()] = turn_value(flat, part, joker)
            done += len(part.masks)
            if progress is not None:
                progress(done / total)
    return flat.reshape(TABLE_SHAPE)


def expected_score(table: np.ndarray) -> float:
    """The expected final score of a whole game played perfectly."""
    return float(table[0, 0, 0])


# -- the cache file --------------------------------------------------------------


def cache_path(joker: bool) -> Path:
    """Where the table for this ruleset is cached."""
    override = os.environ.get("GAMENIGHT_YATZY_CACHE")
    if override:
        folder = Path(override)
    else:
        import platformdirs

        folder = Path(platformdirs.user_cache_dir("gamenight"))
    return folder / f"yatzy-optimal-v{_FORMAT_VERSION}-{'joker' if joker else 'plain'}.npy"


def _checksum(table: np.ndarray) -> str:
    return hashlib.sha256(table.tobytes()).hexdigest()


def _read(path: Path) -> np.ndarray | None:
    """The cached table, or None when missing, truncated or tampered."""
    digest_path = path.with_suffix(".sha256")
    try:
        table = np.load(path, allow_pickle=False)
        expected = digest_path.read_text().strip()
    except (OSError, ValueError, EOFError):
        return None
    if table.shape != TABLE_SHAPE or table.dtype != np.float64 or _checksum(table) != expected:
        return None
    return table


def _write(path: Path, table: np.ndarray) -> None:
    """Write atomically (temp file + rename), the checksum beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for target, save in (
        (path, lambda handle: np.save(handle, table, allow_pickle=False)),
        (path.with_suffix(".sha256"), lambda handle: handle.write(_checksum(table).encode())),
    ):
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=target.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            save(handle)
        os.replace(temp, target)


def load_or_build(path: Path, build: Callable[[], np.ndarray]) -> np.ndarray:
    """The table cached at ``path``; if missing or corrupt, ``build()`` it and cache it there."""
    table = _read(path)
    if table is None:
        table = build()
        try:
            _write(path, table)
        except OSError:
            pass  # a read-only cache dir only costs a rebuild next time
    table.flags.writeable = False
    return table


# -- the file shipped in the package ---------------------------------------------------
#
# Only the reachable positions are stored (536,320 of 1,048,576; the others are 0): their
# float64 values byte-shuffled (all first bytes, then all second bytes, ...) and gzipped,
# 2.2 MB a ruleset, behind a header with the SHA-256 of the whole table.

_PACKAGED_MAGIC = b"gamenight-yatzy-optimal-1\n"


def packaged_path(joker: bool) -> Path:
    """Where the package ships the table of this ruleset."""
    return Path(__file__).with_name(f"optimal-{'joker' if joker else 'plain'}.gz")


@cache
def reachable_mask() -> np.ndarray:
    """Boolean over the table: the positions a game can reach before its end (what the build fills)."""
    masks = np.arange(1 << 13)
    by_upper_mask = np.zeros((64, UPPER_BONUS_THRESHOLD + 1), dtype=bool)
    for upper_mask in range(64):
        by_upper_mask[upper_mask, list(reachable_uppers(upper_mask))] = True
    reachable = np.zeros(TABLE_SHAPE, dtype=bool)
    reachable[:, :, 0] = by_upper_mask[masks & 63]
    reachable[:, :, 1] = reachable[:, :, 0] & ((masks >> YATZY) & 1 == 1)[:, None]
    reachable[FULL_MASK] = False
    reachable.flags.writeable = False
    return reachable


def write_packaged(path: Path, table: np.ndarray) -> None:
    """Write ``table`` in the package's format (atomically); refuses a table it cannot store exactly."""
    table = np.ascontiguousarray(table, dtype=np.float64)
    if table.shape != TABLE_SHAPE or np.any(table[~reachable_mask()]):
        raise ValueError("not a table: wrong shape, or values at unreachable positions")
    shuffled = table[reachable_mask()].astype("<f8").view(np.uint8).reshape(-1, 8).T.tobytes()
    data = gzip.compress(_PACKAGED_MAGIC + hashlib.sha256(table.tobytes()).digest() + shuffled, 9, mtime=0)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_packaged(path: Path) -> np.ndarray | None:
    """The table in ``path`` (the package's format), or None when missing, damaged or tampered."""
    try:
        raw = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error):
        return None
    header = len(_PACKAGED_MAGIC) + 32
    reachable = reachable_mask()
    count = int(reachable.sum())
    if not raw.startswith(_PACKAGED_MAGIC) or len(raw) != header + 8 * count:
        return None
    body = np.frombuffer(raw[header:], dtype=np.uint8)
    table = np.zeros(TABLE_SHAPE)
    table[reachable] = body.reshape(8, count).T.copy().view("<f8").reshape(-1)
    if hashlib.sha256(table.tobytes()).digest() != raw[len(_PACKAGED_MAGIC) : header]:
        return None
    return table


_TABLES: dict[bool, np.ndarray] = {}
_TABLES_LOCK = threading.Lock()


def load_table(joker: bool, progress: Callable[[float], None] | None = None) -> np.ndarray:
    """The table for this ruleset (once per process, read-only): the package's file, else the
    user cache, else built (with progress) and cached."""
    with _TABLES_LOCK:
        if joker not in _TABLES:
            table = read_packaged(packaged_path(joker))
            if table is None:
                table = load_or_build(cache_path(joker), lambda: build_table(joker, progress=progress))
            table.flags.writeable = False
            _TABLES[joker] = table
        if progress is not None:
            progress(1.0)
        return _TABLES[joker]


load_table.cache_clear = _TABLES.clear  # type: ignore[attr-defined]  # tests start from a cold process state


# -- one turn, for the bot ---------------------------------------------------------


_TRANSITION = _keep_expectation(np.eye(N_ROLLS))
_T_ROWS, _T_COLS = np.nonzero(_TRANSITION)
_T_PROBS = _TRANSITION[_T_ROWS, _T_COLS]
_T_STARTS = np.searchsorted(_T_ROWS, np.arange(N_KEEPS))
"""The transition keep -> roll (probability of completing keep ``k`` to roll ``r``), stored sparse
(4368 of 116424 entries are non-zero): a product with it is three small numpy calls."""


def expect_over_rolls(values: np.ndarray) -> np.ndarray:
    """Per keep: the expectation of ``values`` (one per roll) after rolling the missing dice."""
    return np.add.reduceat(values[_T_COLS] * _T_PROBS, _T_STARTS)


_SUBKEEPS = np.array(
    [
        (sorted({KEEP_INDEX[sub] for sub in itertools.product(*(range(c + 1) for c in KEEPS[r]))}) * 32)[:32]
        for r in range(ROLLS.start, ROLLS.stop)
    ]
)
"""Per roll: every keep inside it (padded with repeats to 32 columns)."""


_COUNTS = np.arange(6)


def single_scoring_values(table: np.ndarray, mask: int, upper: int, flag: int, joker: bool) -> np.ndarray:
    """The value of scoring each roll now from one position (:func:`_scoring_values` for one column).

    Written with scalar lookups, as the bot asks for one position at a time.
    """

    def after(box: int, new_upper: int = upper, new_flag: int = flag) -> float:
        return float(table[mask | (1 << box), new_upper, new_flag])

    open_boxes = [box for box in range(13) if not mask >> box & 1]
    candidates = []
    upper_by_count: dict[int, np.ndarray] = {}
    for box in open_boxes:
        if box < 6:
            points = (box + 1) * _COUNTS
            new_upper = np.minimum(upper + points, UPPER_BONUS_THRESHOLD)
            bonus = UPPER_BONUS if upper < UPPER_BONUS_THRESHOLD else 0
            by_count = (
                points
                + np.where(new_upper == UPPER_BONUS_THRESHOLD, bonus, 0)
                + table[mask | (1 << box), new_upper, flag]
            )
            upper_by_count[box] = by_count
            candidates.append(by_count[ROLL_COUNTS[:, box]])
        elif box == YATZY:
            values = np.full(N_ROLLS, after(box))
            values[YATZY_ROWS] = YATZY_SCORE + after(box, new_flag=1)
            candidates.append(values)
        else:
            candidates.append(ROLL_SCORES[:, box] + after(box))
    best = np.max(candidates, axis=0)
    if joker and mask >> YATZY & 1:
        lower_open = [box for box in open_boxes if box >= 6]
        for face in range(1, 7):
            if face - 1 in upper_by_count:
                value = upper_by_count[face - 1][5]
            elif lower_open:
                value = max(
                    (5 * face if (fixed := _JOKER_LOWER[box]) is None else fixed) + after(box) for box in lower_open
                )
            else:
                value = max(by_count[0] for by_count in upper_by_count.values())
            best[YATZY_ROWS[face - 1]] = value
    if flag:
        best[YATZY_ROWS] += YATZY_BONUS
    return best


class TurnValues:
    """The expectimax of one turn from one position (mask, upper, flag).

    ``scored[r]`` is the value of scoring roll ``r`` now; ``after_one[k]`` /
    ``after_two[k]`` the value of keeping ``k`` and rolling the rest when one /
    two rolls have been made.
    """

    def __init__(self, table: np.ndarray, mask: int, upper: int, flag: int, joker: bool) -> None:
        self.scored = single_scoring_values(table, mask, upper, flag, joker)
        self.after_two = expect_over_rolls(self.scored)
        self.after_one = expect_over_rolls(self.after_two[_SUBKEEPS].max(axis=1))


@lru_cache(maxsize=4096)
def _cached_turn(joker: bool, mask: int, upper: int, flag: int) -> TurnValues:
    return TurnValues(load_table(joker), mask, upper, flag, joker)


def turn_values(joker: bool, mask: int, upper: int, flag: int) -> TurnValues:
    """The (memoised) turn values of a position, for the current ruleset's table."""
    return _cached_turn(joker, mask, min(upper, UPPER_BONUS_THRESHOLD), flag)


def keep_index(dice: Sequence[int]) -> int:
    """Index in :data:`KEEPS` of a multiset of dice faces."""
    counts = [0] * 6
    for face in dice:
        counts[face - 1] += 1
    return KEEP_INDEX[tuple(counts)]
