"""Where saves live: a folder of TOML files plus one autosave per game."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gamenight.match import Match

# gamenight.saves (and through it the SDK and tomli-w) is imported when a save is
# read or written, so the lobby's first frame does not wait for it.

__all__ = ["SaveStore"]

AUTOSAVE_PREFIX = "autosave-"


@dataclass
class SaveStore:
    """A save folder.  Names given by people are reduced to safe file names."""

    folder: Path

    def path_for(self, name: str) -> Path:
        """The file in this folder that a save name refers to.

        Whatever a person types (``/etc/passwd``, ``../x``) becomes a plain
        file name inside the folder: saves never land anywhere else.
        """
        from gamenight.saves import safe_file_name

        return self.folder / safe_file_name(Path(name).name if name else name)

    def suggest_name(self, match: Match) -> str:
        """A fresh default name for ``match``."""
        from gamenight.saves import default_save_name

        return default_save_name(match.game.id)

    def save(self, match: Match, name: str) -> Path:
        """Save ``match`` under ``name`` in this folder; returns the path written."""
        from gamenight.saves import save_match

        return save_match(match, self.path_for(name))

    def save_to(self, match: Match, path: Path) -> Path:
        """Save ``match`` back to the file it was resumed from (a path the player gave)."""
        from gamenight.saves import save_match

        return save_match(match, Path(path))

    def autosave_path(self, game_id: str) -> Path:
        """The autosave file of ``game_id``."""
        from gamenight.saves import safe_file_name

        return self.folder / f"{AUTOSAVE_PREFIX}{safe_file_name(game_id)}"

    def autosave(self, match: Match) -> None:
        """Write the autosave of ``match`` (atomically)."""
        from gamenight.saves import save_match

        save_match(match, self.autosave_path(match.game.id))

    def clear_autosave(self, game_id: str) -> None:
        """Remove the autosave of a finished game."""
        self.autosave_path(game_id).unlink(missing_ok=True)

    def keep_shared(self, registry, table_id: str, text: str) -> Path:
        """Keep a finished shared table's game (the service's save document) among these saves.

        The document is checked as any save is -- every field, every move
        replayed by the installed rules -- before it is written under a name of
        the room's choosing; anything wrong raises :class:`~gamenight.saves.SaveError`
        and nothing stays behind.
        """
        import os
        import tempfile
        import time

        from gamenight.saves import MAX_SAVE_BYTES, SaveError, load_match, safe_file_name, save_match

        data = text.encode("utf-8")
        if len(data) > MAX_SAVE_BYTES:
            raise SaveError("the shared game's save is too large")
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=self.folder, prefix=".shared-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            match = load_match(registry, Path(name))
        finally:
            Path(name).unlink(missing_ok=True)
        match.table = match.table or table_id  # a record of the table's game: replayed, never resumed
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return save_match(match, self.folder / safe_file_name(f"{match.game.id}-table-{table_id[:16]}-{stamp}"))

    def list(self) -> list[Path]:
        """Save files, newest first (autosaves included)."""
        if not self.folder.is_dir():
            return []
        files = [path for path in self.folder.glob("*.toml") if path.is_file()]
        return sorted(files, key=lambda path: path.stat().st_mtime, reverse=True)

    def load(self, registry, path: Path) -> Match:
        """Load a save (see :func:`gamenight.saves.load_match`)."""
        from gamenight.saves import load_match

        return load_match(registry, path)
