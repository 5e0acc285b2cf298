"""Cost of reading the settings and themes with their schema checks.

    .venv/bin/python bench/bench_config_themes.py --runs 200

Times, in one warm interpreter: ``Config.load`` of a hand-written config
(comments, dotted names, one bad name), ``Config.save`` of one changed name
(tomlkit: re-read, edit, check, atomic write), ``load_themes([])`` of the three
built-in themes (TOML, schema, every ``[variables]`` value through Textual's
CSS parser), and the refusal of a 64 KiB file nested 32,000 levels deep.
Prints median, IQR and max in milliseconds.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from gamenight.config import Config
from gamenight.themes import load_themes
from timing import measure  # bench/timing.py: this script's own folder is on sys.path

CONFIG = """\
# settings
[general]
language = "ja"
theme = "gamenight"   # the default
bot_delay = 0.5

[default]
player.1 = "Kei"

[seven]
player.1 = "You"
player.3 = "Bell\\u0007dandy"   # bad: reported, left as it is
player.2 = "Urd"
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(CONFIG, encoding="utf-8")
        deep = Path(folder) / "deep.toml"
        deep.write_text("a = " + "[" * 32000 + "]" * 32000, encoding="utf-8")

        def save() -> None:
            config = Config.load(path)
            config.set_name("seven", 1, "Skuld" if "Urd" in path.read_text(encoding="utf-8") else "Urd")
            config.save()

        load_themes([])  # imports and Textual's CSS parser warm
        print("| step | median | IQR | max |\n|---|---|---|---|")
        print(measure("Config.load (hand-written file, 1 bad name)", lambda: Config.load(path), args.runs))
        print(measure("Config.load + set_name + save (tomlkit, atomic)", save, args.runs))
        print(measure("load_themes: the 3 built-in themes", lambda: load_themes([]), args.runs))
        print(
            measure("Config.load of a 64 KiB file nested 32,000 deep (refused)", lambda: Config.load(deep), args.runs)
        )


if __name__ == "__main__":
    main()
