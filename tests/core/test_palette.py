"""Every game key is a command-palette command too, and running it does what the key does.

Two identical rooms at 80×24 open the same seeded match.  In one a person
presses a key of the table's key bar; in the other they open the palette
(Ctrl+P), type the command's name, pick it from the list and press Return.
Both rooms must then show the same screen and hold the same game -- for
every key-bar key of every installed game, and for Mille's keys, which are
not bindings (BSD ``mille`` reads them itself) but palette commands of their
own.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.i18n import set_language
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.ui.game_screen import GameScreen
from gamenight.widgets.key_bar import KeyBar
from textual.command import CommandInput, CommandList, CommandPalette

from tests.core.tour import SIZE, english_ids, english_problems, new_match, screen_text

REGISTRY = load_registry()
GAMES = sorted(REGISTRY.games)
ROOM_TITLES = {"help": "Rules", "save": "Save game", "leave": "Leave game"}
"""The game screen's own keys, listed by the room under these names."""


def room(folder: Path) -> GameNightApp:
    return make_room(REGISTRY, folder, bot_delay=0, theme_name="gamenight")


async def open_table(app: GameNightApp, pilot, game_id: str) -> GameScreen:
    app.open_match(new_match(REGISTRY.games[game_id]))
    await settle(pilot)
    await pilot.pause()
    assert isinstance(app.screen, GameScreen)
    return app.screen


def observe(app: GameNightApp) -> tuple:
    """What a person sees (every line of the screen) and what the game holds."""
    screen = app.screen
    table = next(s for s in reversed(app.screen_stack) if isinstance(s, GameScreen))
    lines = [re.sub(r"\d{8}-\d{6}", "<time>", line) for line in screen_text(app)]  # a suggested save name
    return type(screen).__name__, lines, repr(table.match.state)


async def back_to_table(app: GameNightApp, pilot) -> None:
    while not isinstance(app.screen, GameScreen):
        app.pop_screen()
        await pilot.pause()
    await settle(pilot)


async def run_from_palette(app: GameNightApp, pilot, query: str, title: str, typed: bool = True) -> None:
    """Ctrl+P, type ``query``, move to the command titled ``title`` and press Return.

    ``typed=False`` puts the whole query in the palette's field at once (one search, as a
    paste does) instead of a key press a character: for the key-by-key comparisons below,
    whose subject is what the command does; typing itself is tested by
    ``test_the_issues_words_find_the_games_commands``."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(app.screen, CommandPalette)
    if typed:
        await pilot.press(*[("space" if ch == " " else ch) for ch in query])
    else:
        app.screen.query_one(CommandInput).value = query
    for _ in range(100):  # the palette searches in the background
        await pilot.pause(0.05)
        titles = [str(option.prompt).split("\n")[0] for option in app.screen.query_one(CommandList).options]
        if title in titles:
            break
    assert title in titles, f"typing {query!r} does not offer {title!r} (offered: {titles})"
    hits = app.screen.query_one(CommandList)
    if hits.highlighted is None:
        await pilot.press("down")  # into the list, on the first hit
    while hits.highlighted != titles.index(title):
        await pilot.press("down")
    await pilot.press("enter")
    await pilot.pause()
    await settle(pilot)
    await pilot.pause()


def key_bar_entries(screen: GameScreen) -> list[tuple[str, str]]:
    """(key, expected palette title) of every entry of the table's key bar."""
    entries = []
    for key, shown, _description, _enabled in screen.query_one(KeyBar)._items()[0]:
        binding = screen.active_bindings[key].binding
        title = ROOM_TITLES.get(binding.action) or f"{screen.palette_title(binding)} ({shown})"
        entries.append((key, title))
    return entries


async def play(game_id: str, cases, by_palette: bool) -> tuple[list, list]:
    """One room: open the table, then each case by its key or from the palette; what each showed.

    Returns the cases (found on the table) and, for the table and after each
    case, what :func:`observe` saw.
    """
    with tempfile.TemporaryDirectory() as folder:
        app = room(Path(folder))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = await open_table(app, pilot, game_id)
            found = cases(screen)
            seen = [observe(app)]
            for key, query, title in found:
                table = next(s for s in reversed(app.screen_stack) if isinstance(s, GameScreen))
                if all(entry[0] != key for entry in key_bar_entries(table)):
                    # an earlier case ended what offered this key (Mate's "Keep all" ends with the
                    # foreplacing): gone from the bar in both twins alike, nothing to compare
                    seen.append(("no longer in the key bar", key))
                    continue
                if by_palette:
                    await run_from_palette(app, pilot, query, title, typed=False)
                else:
                    await pilot.press(key)
                    await pilot.pause()
                    await settle(pilot)
                    await pilot.pause()
                seen.append(observe(app))
                await back_to_table(app, pilot)
            return found, seen


async def compare(game_id: str, cases) -> None:
    """For each (key, query, title): the key in one room, the palette command in its twin, the same result."""
    found, pressed = await play(game_id, cases, by_palette=False)
    _found, chosen = await play(game_id, lambda _screen: found, by_palette=True)
    assert pressed[0] == chosen[0]
    changed = 0
    for (key, _query, title), before, after_key, after_palette in zip(
        found, pressed, pressed[1:], chosen[1:], strict=False
    ):
        assert after_key == after_palette, f"{game_id}: {title!r} from the palette differs from key {key!r}"
        changed += after_key != before
    assert changed * 2 > len(found), f"{game_id}: most keys changed nothing, so little was compared"


@pytest.mark.parametrize("game_id", GAMES)
async def test_every_key_bar_key_is_a_palette_command_that_does_what_the_key_does(game_id):
    def cases(screen: GameScreen):
        entries = key_bar_entries(screen)
        assert entries, f"{game_id}: an empty key bar"
        return [(key, re.sub(r" \(.*\)$", "", title), title) for key, title in entries]

    await compare(game_id, cases)


MILLE_KEYS = {
    "p": "Pick a card (P)",
    "o": "Order the hand (O)",
    "w": "Toggle the score window (W)",
    "q": "Quit (Q)",
    "u": "Use a card (U)",
}


async def test_mille_keys_are_palette_commands_too():
    def cases(_screen):
        # the review's words: "pick" and "order" find Mille's commands
        return [(key, {"p": "pick", "o": "order"}.get(key, title[:-4]), title) for key, title in MILLE_KEYS.items()]

    await compare("mille", cases)


@pytest.mark.parametrize(
    ("game_id", "word", "title"),
    [
        ("mille", "pick", "Pick a card (P)"),
        ("mille", "order", "Order the hand (O)"),
        ("seven", "draw", "Draw (d)"),
        ("mate", "best", "Best play (e)"),
        ("mate", "keep", "Keep all (n)"),
        ("mate", "play", "Play (⏎)"),
        ("yatzy", "hold", "Hold die 3 (3)"),
        ("lits", "rotate", "Rotate (r)"),
    ],
)
async def test_the_issues_words_find_the_games_commands(game_id, word, title):
    with tempfile.TemporaryDirectory() as folder:
        app = room(Path(folder))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await open_table(app, pilot, game_id)
            await pilot.press("ctrl+p", *word)
            for _ in range(100):
                await pilot.pause(0.05)
                titles = [str(option.prompt).split("\n")[0] for option in app.screen.query_one(CommandList).options]
                if title in titles:
                    break
            assert title in titles, titles


@pytest.mark.parametrize("game_id", GAMES)
def test_the_game_commands_are_translated(game_id):
    """In Japanese no game command's title or help is left in English (the room's own are checked too)."""

    async def run():
        set_language("ja")
        with tempfile.TemporaryDirectory() as folder:
            app = room(Path(folder))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                screen = await open_table(app, pilot, game_id)
                commands = list(app.get_system_commands(screen))
                return commands, english_ids(app)

    import asyncio

    commands, patterns = asyncio.run(run())
    texts = [line for command in commands for line in (command.title, command.help)]
    assert not english_problems(texts, patterns)
    assert all(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text) for text in texts), texts
