"""The SDK's testing kit: check a game -- built-in or third-party -- with pytest.

The helpers the built-in games are tested with (:mod:`gamenight.testing` says what
each checks): ``run_conformance``, ``check_advisor`` (a game's coach), ``random_playouts``, ``check_bot_legality``,
``check_view_hiding``, ``check_observer_hiding``, ``check_public_events``,
``check_save_round_trip``, ``check_screen_mounts``,
``screen_mounts``, ``settle`` / ``wait_for_bots``, ``message_ids``,
``missing_translations``, ``declared_texts``; and what a Pilot test of a table
needs from the room: :func:`load_registry` (the installed plugins, found as the
room finds them), :func:`make_room` (a room of its own, its config and saves in
a folder you give) and :func:`set_language`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.i18n import set_language
from gamenight.plugins import Registry, load_registry
from gamenight.testing import (
    check_advisor,
    check_bot_legality,
    check_observer_hiding,
    check_public_events,
    check_save_round_trip,
    check_screen_mounts,
    check_view_hiding,
    declared_texts,
    message_ids,
    missing_translations,
    random_playouts,
    run_conformance,
    screen_mounts,
    settle,
    wait_for_bots,
)

if TYPE_CHECKING:
    from gamenight.app import GameNightApp

__all__ = [
    "Registry",
    "check_advisor",
    "check_bot_legality",
    "check_observer_hiding",
    "check_public_events",
    "check_save_round_trip",
    "check_screen_mounts",
    "check_view_hiding",
    "declared_texts",
    "load_registry",
    "make_room",
    "message_ids",
    "missing_translations",
    "random_playouts",
    "run_conformance",
    "screen_mounts",
    "set_language",
    "settle",
    "wait_for_bots",
]


def make_room(registry: Registry, folder: Path, **options: Any) -> GameNightApp:
    """A room for a Pilot test: ``registry``'s games, its config and saves under ``folder``.

    Bots move at once (``bot_delay=0``) unless ``options`` say otherwise; any other
    option of the room (``start_match=``, ``start_game=``, ``theme_name=``) passes through::

        app = make_room(registry, tmp_path, start_match=match)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_bots(pilot)
    """
    from gamenight.app import GameNightApp
    from gamenight.config import Config

    options.setdefault("bot_delay", 0)
    return GameNightApp(
        registry=registry, config=Config.load(Path(folder) / "config.toml"), saves_dir=Path(folder) / "saves", **options
    )
