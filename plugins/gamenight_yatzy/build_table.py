"""Build the optimal bot's tables afresh: ``python -m gamenight_yatzy.build_table [--ship] [--cache]``.

Prints each ruleset's expected score, build time and whether the table shipped in the
package is the same.  ``--ship`` writes the built tables into the package (what a release
ships: run it after changing the rules or the DP); ``--cache`` writes them to the user cache
(only used when the package's file is missing or damaged).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gamenight_yatzy import strategy


def main(argv: list[str] | None = None) -> None:
    """Build the tables of both rulesets (plain and joker)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ship", action="store_true", help="write the tables into the package")
    parser.add_argument("--cache", action="store_true", help="write the tables into the user cache")
    args = parser.parse_args(argv)
    for joker in (False, True):
        started = time.perf_counter()
        table = strategy.build_table(joker)
        seconds = time.perf_counter() - started
        shipped = strategy.read_packaged(strategy.packaged_path(joker))
        same = "same as shipped" if shipped is not None and np.array_equal(shipped, table) else "DIFFERS from shipped"
        label = "joker" if joker else "plain"
        print(f"{label}: expected score {strategy.expected_score(table):.4f}  {seconds:.1f} s  {same}")
        if args.ship:
            strategy.write_packaged(strategy.packaged_path(joker), table)
            print(f"  -> {strategy.packaged_path(joker)}")
        if args.cache:
            path = strategy.cache_path(joker)
            path.unlink(missing_ok=True)
            strategy.load_or_build(path, table.copy)  # writes the table just built to the cache
            print(f"  -> {path}")


if __name__ == "__main__":
    main()
