"""What Japanese line breaking (gamenight.linebreak) costs.

1. Loading BudouX's Japanese parser (once per process, on the first wrap of
   text with a wide character): a fresh interpreter per run.
2. Wrapping every built-in game's Japanese help, paragraph by paragraph, at the
   help screen's width (76 cells), with the parser loaded: CPU time per wrap
   of the whole help, against Rich's own ``divide_line`` on the same text.

Each figure: median and IQR over ``--runs`` runs.

    .venv/bin/python bench/bench_linebreak.py --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LOAD = (
    "import time; t = time.process_time(); import budoux; budoux.load_default_japanese_parser(); "
    "print(time.process_time() - t)"
)


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, median, q3 = statistics.quantiles(values, n=4)
    return median, q1, q3


def show(label: str, values: list[float]) -> None:
    median, q1, q3 = quartiles(values)
    print(f"| {label} | {median * 1000:.2f} ms | {q1 * 1000:.2f}–{q3 * 1000:.2f} ms | {min(values) * 1000:.2f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    from gamenight.linebreak import divide_line
    from gamenight.plugins import load_registry
    from gamenight.screens.help_screen import join_wide_lines
    from rich._wrap import divide_line as rich_divide_line

    loads = [
        float(subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True).stdout)
        for _ in range(args.runs)
    ]
    registry = load_registry()
    paragraphs = [
        line
        for game in ("lits", "mate", "mille", "seven", "yatzy")
        for line in join_wide_lines(registry.games[game].help["ja"]).split("\n")
        if line.strip()
    ]
    divide_line(paragraphs[0], 76)  # the parser is loaded

    def timed(function) -> list[float]:
        times = []
        for _ in range(args.runs):
            started = time.process_time()
            for paragraph in paragraphs:
                function(paragraph, 76)
            times.append(time.process_time() - started)
        return times

    print(
        f"{len(paragraphs)} paragraphs, {sum(len(p) for p in paragraphs)} characters of Japanese help; "
        f"{args.runs} runs (CPU time)\n"
    )
    print("| what | median | IQR | min |\n|---|---|---|---|")
    show("load BudouX's Japanese parser (fresh process)", loads)
    show("wrap all five Japanese helps at 76 cells: gamenight.linebreak", timed(divide_line))
    show("the same with Rich's divide_line (breaks only at spaces)", timed(rich_divide_line))


if __name__ == "__main__":
    main()
