"""Cost of the games' own theme variables at start-up.

    .venv/bin/python bench/bench_theme_variables.py --runs 200

Times, in one warm interpreter with the installed plugins: the room taking
the games' ``GameInfo.theme_variables`` (each declaration checked with
Textual's CSS parser, every registered theme looked through for old or
unknown names: ``GameNightApp._take_game_variables``), the same with a user
theme that still uses the old names (renamed, with notices), and
``load_themes([])`` of the built-in themes (whose ``[variables]`` are now
parsed in one stylesheet rather than one per value).  Prints median, IQR and
max in milliseconds.  ``load_themes`` alone also runs on older trees, for a
before/after: ``PYTHONPATH=<other checkout>/core .venv/bin/python
bench/bench_theme_variables.py --only-load``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gamenight.themes import load_themes
from timing import measure  # bench/timing.py: this script's own folder is on sys.path

OLD_THEME = """\
name = "old-names"
primary = "#225588"
dark = true
[variables]
shape-l = "#123456"
mark-x = "#ff0000"
ghost = "#eeeeee"
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--only-load", action="store_true", help="time load_themes only (runs on older trees)")
    args = parser.parse_args()
    print("| step | median | IQR | max |\n|---|---|---|---|")
    print(measure("load_themes: the built-in themes", lambda: load_themes([]), args.runs))
    if args.only_load:
        return
    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.plugins import load_registry

    registry = load_registry()
    with tempfile.TemporaryDirectory() as folder:
        app = GameNightApp(
            registry=registry, config=Config.load(Path(folder) / "c.toml"), saves_dir=Path(folder) / "saves"
        )
        print(
            measure(
                f"take the games' variables ({len(app.available_themes)} themes, "
                f"{len(app.game_theme_variables)} variables)",
                app._take_game_variables,
                args.runs,
            )
        )
        (Path(folder) / "old").mkdir()
        (Path(folder) / "old" / "themes").mkdir()
        (Path(folder) / "old" / "themes" / "old.toml").write_text(OLD_THEME, encoding="utf-8")

        def with_old_theme() -> None:  # a fresh theme each run, so its old names are there to rename
            old = load_themes([], Path(folder) / "old" / "themes").themes["old-names"]
            app.register_theme(old)
            start = time.perf_counter()
            app._take_game_variables()
            with_old_theme.spent.append((time.perf_counter() - start) * 1000)  # type: ignore[attr-defined]

        with_old_theme.spent = []  # type: ignore[attr-defined]
        for _ in range(args.runs):
            with_old_theme()
        spent = with_old_theme.spent  # type: ignore[attr-defined]
        q1, _median, q3 = statistics.quantiles(spent, n=4)
        print(
            f"| the same with a user theme using 3 old names | {statistics.median(spent):.2f} ms | "
            f"{q1:.2f}–{q3:.2f} ms | {max(spent):.2f} ms |"
        )


if __name__ == "__main__":
    main()
