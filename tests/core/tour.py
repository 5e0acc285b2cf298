"""The tour: every installed game's screens, in one room at 80×24, checked as a newcomer sees them.

One app per language visits, in sequence, each game's setup screen, its table,
its help, the dialogs it raises (leave, save, hand-over, its own), an
end-of-hand pause and the end dialog with the finished board behind it -- in
one app, so that a style one game leaks into the room shows on the screens
visited after it.  Games come Mate first (the one that leaked), and the first
game is visited again at the end.  Matches are driven to the interesting
states through the public :class:`~gamenight.match.Match` API with seeded
random moves, not with hundreds of key presses.

Each screen is checked for:

* controls: every button and focusable widget lies fully inside the screen
  and is not cut by its container (unless that container scrolls and shows
  its scroll bar);
* cut text: no text widget needs more lines (or, unwrapped, more columns)
  than it has, and no line of text is cut by a container's edge -- unless
  the line ends in "…", which marks a truncation made on purpose;
* in Japanese: no English text of a catalogue entry (core or the game's) on
  the screen.

Run as a script (``python tour.py LANGUAGE [GAME ...]``) it tours the games installed
where it runs and prints the findings as JSON: the example plugin's test runs
it in a fresh venv where that plugin is pip-installed.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

SIZE = (80, 24)
FIRST = "mate"
"""Visited first: the game whose stylesheet used to leak into every later screen."""
MAX_ACTIONS = 20_000
SHOTS = os.environ.get("GAMENIGHT_TOUR_SHOTS", "")
"""A folder to save an SVG screenshot of every stop in (for a person to look at), or empty."""

Findings = dict[str, list[str]]
"""``"game/stop"`` -> problems found there (an empty list: visited and fine)."""


# -- the checks -----------------------------------------------------------------------------


def screen_text(app: Any) -> list[str]:
    """The lines of the whole screen as shown (the dialogs and what they dim)."""
    from rich.console import Console

    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        legacy_windows=False,
        safe_box=False,
        color_system=None,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text().splitlines()


def _scrolls(widget: Any, screen: Any) -> bool:
    """True if ``widget`` or an ancestor (below ``screen``) scrolls and shows that it does."""
    node = widget
    while node is not None and node is not screen:
        if getattr(node, "show_vertical_scrollbar", False) or getattr(node, "show_horizontal_scrollbar", False):
            return True
        node = node.parent
    return False


def _name(widget: Any) -> str:
    label = f"{type(widget).__name__}"
    if widget.id:
        label += f"#{widget.id}"
    return label


def _lines(widget: Any) -> list[str]:
    """The text lines ``widget`` draws in its region (borders and padding included)."""
    from textual.geometry import Region

    width, height = widget.outer_size
    try:
        return [strip.text for strip in widget.render_lines(Region(0, 0, width, height))]
    except Exception:  # a widget that cannot draw outside a paint: nothing to judge
        return []


def _needed(widget: Any, screen: Any) -> tuple[int, int]:
    """(columns, lines) the widget's content wants at its present width."""
    width = widget.content_region.width
    container = widget.parent.content_region.size if widget.parent is not None else screen.size
    try:
        wanted_width = widget.get_content_width(container, screen.size)
        wanted_height = widget.get_content_height(container, screen.size, width)
    except Exception:
        return 0, 0
    return wanted_width, wanted_height


def _ellipsised(lines: list[str]) -> bool:
    return any(line.rstrip().endswith("…") for line in lines)


def control_problems(screen: Any) -> list[str]:
    """Buttons and focusable controls outside the screen, or cut by a container that does not scroll."""
    from textual.errors import NoWidget
    from textual.widgets import Button

    problems = []
    area = screen.region
    for widget in screen.query("*"):
        if not (isinstance(widget, Button) or widget.focusable) or not widget.display:
            continue
        if not all(node.display for node in widget.ancestors_with_self if hasattr(node, "display")):
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            if not _scrolls(widget, screen):
                problems.append(f"{_name(widget)} is not on the screen")
            continue
        region = geometry.region
        if not region:
            continue
        label = str(getattr(widget, "label", "")) or _name(widget)
        if not area.contains_region(region) and not _scrolls(widget, screen):
            problems.append(f"control {label!r} at {tuple(region)} lies outside the {area.width}×{area.height} screen")
        elif geometry.visible_region != region and not _scrolls(widget, screen):
            problems.append(f"control {label!r} at {tuple(region)} is cut to {tuple(geometry.visible_region)}")
    return problems


def text_problems(screen: Any) -> list[str]:
    """Text cut by its widget's own size or by a container's edge (a line ending in "…" is by design)."""
    from textual.errors import NoWidget

    problems = []
    for widget in screen.query("*"):
        if widget.children or not widget.display or not widget.size.area:
            continue
        if not all(node.display for node in widget.ancestors_with_self if hasattr(node, "display")):
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            continue
        lines = _lines(widget)
        if not any(line.strip() for line in lines):
            continue
        name = _name(widget)
        wanted_width, wanted_height = _needed(widget, screen)
        has_width, has_height = widget.content_region.width, widget.content_region.height
        if wanted_height > has_height and not getattr(widget, "is_scrollable", False):
            problems.append(f"{name} needs {wanted_height} lines, has {has_height}: {_shown(lines)!r}")
        elif (
            wanted_width > has_width
            and widget.styles.text_wrap == "nowrap"
            and not _ellipsised(lines)
            and not getattr(widget, "is_scrollable", False)
        ):
            problems.append(f"{name} needs {wanted_width} columns, has {has_width}: {_shown(lines)!r}")
        visible = geometry.visible_region
        region = geometry.region
        if visible != region and not _scrolls(widget, screen):
            top = visible.y - region.y
            left = visible.x - region.x
            hidden = [line for row, line in enumerate(lines) if not top <= row < top + visible.height]
            cut = [
                line
                for row, line in enumerate(lines)
                if top <= row < top + visible.height and (line[:left].strip() or line[left + visible.width :].strip())
            ]
            if any(line.strip() for line in hidden) or cut:
                problems.append(
                    f"{name} is cut by its container at {tuple(visible)} of {tuple(region)}: {_shown(hidden + cut)!r}"
                )
    return problems


def _shown(lines: list[str]) -> str:
    text = " / ".join(line.strip() for line in lines if line.strip())
    return text if len(text) <= 100 else text[:99] + "…"


def english_ids(app: Any) -> list[tuple[str, re.Pattern[str]]]:
    """The English texts of the catalogue entries (core and every game's), as patterns.

    A text the Japanese itself quotes -- in a translation ("引く (Draw)") or
    in a Japanese help page (a book's title) -- is meant to show, and left out.
    """
    from gamenight.i18n import load_catalogue_file

    core = Path(sys.modules["gamenight"].__file__).parent / "locale" / "ja.toml"
    entries = dict(load_catalogue_file(core))
    japanese_texts = list(entries.values())
    for game in app.registry.games.values():
        catalogue = game.translations.get("ja")
        if catalogue:
            entries.update(dict(catalogue))
            japanese_texts += list(dict(catalogue).values())
        japanese_texts.append(str(game.help.get("ja", "")))
    japanese = "\n".join(japanese_texts)
    patterns = []
    for english in entries:
        for fragment in re.split(r"\{[^}]*\}|\n", english):
            fragment = fragment.strip(" :.,()!?…")
            if len(re.findall(r"[A-Za-z]", fragment)) < 3:
                continue
            pattern = re.compile(rf"(?<![A-Za-z]){re.escape(fragment)}(?![A-Za-z])")
            if not pattern.search(japanese):
                patterns.append((english, pattern))
    return patterns


def name_problems(lines: list[str], names: list[str]) -> list[str]:
    """Seat names shown cut short ("コンピュ" for "コンピュータ", "プ…"): each must show in full."""
    problems = []
    for name in dict.fromkeys(names):
        for row in lines:
            for keep in range(len(name) - 1, max(2, (len(name) + 1) // 2) - 1, -1):  # at least half the name
                cut = name[:keep]
                at = row.find(cut)
                while at >= 0:
                    before = row[at - 1 : at]
                    after = row[at + keep : at + keep + 1]
                    starts = not before or not before.isalnum()
                    if starts and row[at : at + len(name)] != name and (not after or after in " …│┃║|"):
                        problems.append(
                            f"seat name {name!r} cut to {row[at : at + keep + 1].strip()!r}: {row.strip()[:60]!r}"
                        )
                        break
                    at = row.find(cut, at + 1)
                else:
                    continue
                break
    return list(dict.fromkeys(problems))


def english_problems(lines: list[str], patterns: list[tuple[str, re.Pattern[str]]]) -> list[str]:
    """Catalogue texts left in English on a Japanese screen."""
    text = "\n".join(lines)
    found = sorted({english for english, pattern in patterns if pattern.search(text)})
    return [f"untranslated: {english!r}" for english in found]


# -- the tour ---------------------------------------------------------------------------------


class Tour:
    """One room, one language: visits screens and files what each check finds."""

    def __init__(self, app: Any, pilot: Any, language: str) -> None:
        self.app = app
        self.pilot = pilot
        self.language = language
        self.findings: Findings = {}
        self.patterns = english_ids(app) if language != "en" else []
        self.names: list[str] = []
        """The seat names of the match on the table (checked for being cut short)."""

    async def settle(self) -> None:
        from gamenight.testing import settle

        await settle(self.pilot)
        await self.pilot.pause()

    def check(self, game_id: str, stop: str, expect: type | None = None) -> None:
        """File what the checks find on the screen on top as ``game/stop``."""
        from gamenight.screens.help_screen import HelpScreen

        screen = self.app.screen
        problems = []
        if expect is not None and not isinstance(screen, expect):
            problems.append(f"expected a {expect.__name__}, found {type(screen).__name__}")
        problems += control_problems(screen) + text_problems(screen)
        lines = screen_text(self.app)
        if self.names and not isinstance(screen, HelpScreen):  # help text wraps where it must
            problems += name_problems(self._own_lines(screen, lines), self.names)
        if self.patterns:
            problems += english_problems(lines, self.patterns)
        key = f"{game_id}/{stop}"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.app.save_screenshot(f"{self.language}-{game_id}-{stop}.svg", SHOTS)
            text = "\n".join(screen_text(self.app))
            (Path(SHOTS) / f"{self.language}-{game_id}-{stop}.txt").write_text(text, encoding="utf-8")
        known = self.findings.setdefault(key, [])
        known += [problem for problem in problems if problem not in known]

    @staticmethod
    def _own_lines(screen: Any, lines: list[str]) -> list[str]:
        """The text a dialog draws itself (a name under its box is hidden, not cut); else the whole screen."""
        from textual.screen import ModalScreen

        if not isinstance(screen, ModalScreen) or getattr(screen, "looking", False):
            return lines
        return [line for widget in screen.query("*") if not widget.children for line in _lines(widget)]

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.settle()

    async def to_lobby(self) -> None:
        from gamenight.screens.lobby_screen import LobbyScreen

        while not isinstance(self.app.screen, LobbyScreen):
            self.app.pop_screen()
            await self.pilot.pause()
        self.names = []
        await self.settle()

    async def records(self) -> None:
        """The records screen after the tour's games ended (each one recorded), then its plot."""
        from gamenight.screens.records_screen import RecordsScreen

        await self.to_lobby()
        await self.press("c")
        screen = self.app.screen
        for _ in range(500):
            if not isinstance(screen, RecordsScreen) or (screen.loaded and screen.figures is not None):
                break
            await self.pilot.pause(0.01)
        self.check("room", "records", RecordsScreen)
        await self.press("g")
        self.check("room", "records-plot", RecordsScreen)
        await self.to_lobby()

    async def room_stops(self, folder: Path) -> None:
        """The room's own screens with something to say: notifications of each severity, the
        settings and the setup with an error message, the plugins list, a save that cannot be
        resumed (written to ``folder``)."""
        from gamenight.dialogs import MessageDialog
        from gamenight.screens.plugins_screen import PluginsScreen
        from gamenight.screens.settings_screen import SettingsScreen
        from gamenight.screens.setup_screen import SetupScreen

        app = self.app
        for severity in ("information", "warning", "error"):
            app.notify(f"A {severity} message", severity=severity, timeout=30)
        await self.settle()
        self.check("room", "notifications")
        app.clear_notifications()
        app.open_settings()
        await self.settle()
        field = app.screen.query_one("#bot-delay")
        field.focus()
        await self.press("end", "9", "ctrl+s")  # an error message
        assert isinstance(app.screen, SettingsScreen) and "error" in app.screen.query_one("#settings-message").classes
        self.check("room", "settings-error", SettingsScreen)
        await self.to_lobby()
        app.open_setup("yatzy")
        await self.settle()
        app.screen.query_one("#name-0").value = "A\tB"
        await self.press("ctrl+r")
        assert isinstance(app.screen, SetupScreen) and str(app.screen.query_one("#setup-error").render()).strip()
        self.check("room", "setup-error", SetupScreen)
        await self.to_lobby()
        await self.press("p")
        self.check("room", "plugins", PluginsScreen)
        await self.to_lobby()
        broken = folder / "broken.toml"
        broken.write_text("format = [", encoding="utf-8")
        app.resume(broken)
        await self.settle()
        self.check("room", "cannot-resume", MessageDialog)
        await self.to_lobby()

    async def open(self, match: Any) -> None:
        self.names = [seat.name for seat in match.seats]
        self.app.open_match(match)
        await self.settle()

    async def visit(self, game: Any, again: bool = False) -> None:
        from gamenight.dialogs import MessageDialog, ResultDialog, TextPrompt, YesNoDialog
        from gamenight.screens.help_screen import HelpScreen
        from gamenight.screens.setup_screen import SetupScreen
        from gamenight.ui.game_screen import GameScreen

        gid = game.id
        self.app.open_setup(gid)
        await self.settle()
        self.check(gid, "setup", SetupScreen)
        await self.to_lobby()
        await self.open(new_match(game))
        self.check(gid, "table", GameScreen)
        if again:
            await self.to_lobby()
            return
        await self.press("f1")
        self.check(gid, "help", HelpScreen)
        await self.press("escape")
        await self.press("escape")
        self.check(gid, "leave", YesNoDialog)
        await self.press("n")
        await self.press("ctrl+s")
        self.check(gid, "save", TextPrompt)
        await self.press("escape")
        extra = EXTRAS.get(gid)
        if extra is not None:
            await extra(self, game)
        await self.to_lobby()
        if not game.perfect_information and game.max_seats >= 2:
            match = new_match(game, humans=2)
            playout(match, random.Random(1), until=lambda m: m.to_move() == 1 or m.pending_interlude() is not None)
            if match.to_move() == 1:
                await self.open(match)
                self.check(gid, "handover", MessageDialog)
                await self.to_lobby()
        match = new_match(game)
        playout(match, random.Random(2), until=lambda m: m.pending_interlude() is not None)
        if not match.over:
            await self.open(match)
            if isinstance(self.app.screen, ResultDialog):
                self.check(gid, "interlude", ResultDialog)
            else:  # a game that shows its pause on the table (Mate)
                self.check(gid, "interlude", GameScreen)
            await self.to_lobby()
        match = new_match(game)
        playout(match, random.Random(3), until=lambda m: False)
        await self.open(match)
        self.check(gid, "end", ResultDialog)
        if isinstance(self.app.screen, ResultDialog):
            await self.press(ResultDialog.BOARD_KEY)
            self.check(gid, "board")
            await self.press(ResultDialog.BOARD_KEY)
        await self.to_lobby()


async def _mille_really(tour: Tour, game: Any) -> None:
    from gamenight.dialogs import YesNoDialog

    await tour.press("q")
    tour.check(game.id, "really", YesNoDialog)
    await tour.press("n")


async def _seven_suit(tour: Tour, game: Any) -> None:
    from gamenight.ui.game_screen import GameScreen

    await tour.to_lobby()
    match = new_match(game)
    playout(match, random.Random(4), until=lambda m: m.to_move() == 0 and any(":" in a for a in m.legal_actions()))
    if match.over:
        return
    await tour.open(match)
    screen = tour.app.screen
    assert isinstance(screen, GameScreen)
    queen = next(a for a in match.legal_actions() if ":" in a).partition(":")[0]
    screen.choose(queen)
    await tour.settle()
    tour.check(game.id, "suit")
    await tour.press("escape")


EXTRAS: dict[str, Callable[[Tour, Any], Awaitable[None]]] = {"mille": _mille_really, "seven": _seven_suit}
"""Dialogs of a game's own, reached from its table."""


def new_match(game: Any, humans: int = 1) -> Any:
    """A match at the game's default seats, named as setup names them: people first, the weakest bot after."""
    from gamenight.i18n import translator
    from gamenight.match import Match, SeatConfig

    t = translator(game.id)
    weakest = min(game.bots, key=lambda bot: bot.strength).id if game.bots else None
    seats = [
        SeatConfig(
            t(game.seat_names[seat]) if seat < len(game.seat_names) else f"P{seat + 1}",
            None if seat < humans or weakest is None else weakest,
        )
        for seat in range(game.default_seats)
    ]
    return Match(game, seats, {}, seed=11)


def playout(match: Any, rng: random.Random, until: Callable[[Any], bool]) -> None:
    """Random legal moves (and chance) until ``until(match)`` or the end; other pauses are acknowledged."""
    from gamenight.sdk import CHANCE

    for _step in range(MAX_ACTIONS):
        if match.over or until(match):
            return
        interlude = match.pending_interlude()
        if interlude is not None:
            match.acknowledge(interlude)
        elif match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(rng.choice(match.legal_actions()))
    raise AssertionError(f"{match.game.id}: no end after {MAX_ACTIONS} random moves")


def game_order(registry: Any) -> list[Any]:
    """Mate first (if installed), then the others by id."""
    return sorted(registry.games.values(), key=lambda game: (game.id != FIRST, game.id))


async def walk(
    language: str,
    registry: Any = None,
    only: list[str] | None = None,
    make: Callable[[Any, Any, str], Tour] = Tour,
    theme: Any = None,
    room_stops: bool = False,
) -> Tour:
    """One room's tour in ``language`` (``make`` builds the :class:`Tour`, whose checks file the
    findings); with ``theme`` (a Textual theme) the room wears it; with ``room_stops`` it also
    visits the room's own messages and dialogs (:meth:`Tour.room_stops`) before the games."""
    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.i18n import get_language, set_language
    from gamenight.plugins import load_registry
    from gamenight.screens.lobby_screen import LobbyScreen

    registry = registry if registry is not None else load_registry()
    previous = get_language()
    set_language(language)
    try:
        with tempfile.TemporaryDirectory() as folder:
            app = GameNightApp(
                registry=registry,
                config=Config.load(Path(folder) / "config.toml"),
                saves_dir=Path(folder) / "saves",
                bot_delay=0,
                theme_name="gamenight",
            )
            if theme is not None:
                app.register_theme(theme)
                app.theme = theme.name
            async with app.run_test(size=SIZE) as pilot:
                tour = make(app, pilot, language)
                await tour.settle()
                tour.check("room", "lobby", LobbyScreen)
                if room_stops:
                    await tour.room_stops(Path(folder))
                games = [game for game in game_order(registry) if not only or game.id in only]
                for game in games:
                    await tour.visit(game)
                if games:
                    await tour.visit(games[0], again=True)
                await tour.records()
                return tour
    finally:
        set_language(previous)


async def run_tour(language: str, registry: Any = None, only: list[str] | None = None) -> Findings:
    """Tour every game of ``registry`` (default: every installed plugin) in ``language``, or the games ``only``."""
    return (await walk(language, registry, only)).findings


if __name__ == "__main__":
    # python tour.py [LANGUAGE [GAME ...]]
    print(json.dumps(asyncio.run(run_tour(sys.argv[1] if len(sys.argv) > 1 else "en", only=sys.argv[2:] or None))))
