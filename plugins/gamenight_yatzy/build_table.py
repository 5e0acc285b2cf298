"""Build (or rebuild) the optimal bot's tables into the cache: ``python -m gamenight_yatzy.build_table``.

Prints each ruleset's expected score and build time.  ``--force`` rebuilds even
when a valid cached table exists.
"""

from __future__ import annotations

import argparse
import time

from gamenight_yatzy import strategy


def main(argv: list[str] | None = None) -> None:
    """Build the tables of both rulesets (plain and joker)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the cache is valid")
    args = parser.parse_args(argv)
    for joker in (False, True):
        path = strategy.cache_path(joker)
        if args.force:
            path.unlink(missing_ok=True)
        started = time.perf_counter()
        table = strategy.load_or_build(path, lambda joker=joker: strategy.build_table(joker))
        seconds = time.perf_counter() - started
        label = "joker" if joker else "plain"
        print(f"{label}: expected score {strategy.expected_score(table):.4f}  {seconds:.1f} s  -> {path}")


if __name__ == "__main__":
    main()
