"""Where the room keeps its files by default (used by the app and the command line)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from gamenight.config import Config

__all__ = ["default_saves_dir"]


def default_saves_dir(config: Config | None = None) -> Path:
    """``[general] saves`` from the config, the checkout's ``saves/``, or the user data dir."""
    if config is not None and isinstance(config.general("saves"), str):
        return Path(config.general("saves")).expanduser()
    checkout = Path(__file__).resolve().parents[2] / "saves"
    if checkout.is_dir():
        return checkout
    return Path(platformdirs.user_data_dir("gamenight")) / "saves"
