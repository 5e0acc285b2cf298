"""Finding and loading plugins: entry points in the group ``gamenight``.

Each entry point is loaded on its own inside ``try``: a plugin that fails to
import, or whose hook raises, is recorded with its error and the others still
load (pluggy's own ``load_setuptools_entrypoints`` stops at the first failure).
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.i18n import register_catalogue

if TYPE_CHECKING:
    import importlib.metadata

    from gamenight.sdk import BotSpec, GameInfo

# pluggy, importlib.metadata and the SDK are imported by load_registry, not here:
# the room paints its lobby first and looks for plugins after.

ENTRY_POINT_GROUP = "gamenight"

__all__ = ["ENTRY_POINT_GROUP", "PluginRecord", "Registry", "load_registry", "preload_registry"]


@dataclass
class PluginRecord:
    """One plugin as found: where it came from, what it added, what went wrong."""

    name: str
    distribution: str = ""
    version: str = ""
    games: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)
    """``game:bot`` for its games' own bots, then for those it adds to other games."""
    themes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        """All errors joined, or ``None`` when the plugin loaded cleanly."""
        return "; ".join(self.errors) if self.errors else None

    def as_json(self) -> dict[str, Any]:
        """The record as ``gamenight plugins --json`` prints it."""
        return {
            "name": self.distribution or self.name,
            "entry_point": self.name,
            "version": self.version,
            "games": self.games,
            "bots": self.bots,
            "themes": self.themes,
            "error": self.error,
        }


@dataclass
class Registry:
    """Everything the plugins registered: games (with extra bots merged) and themes."""

    games: dict[str, GameInfo] = field(default_factory=dict)
    themes: list[Any] = field(default_factory=list)
    """Theme sources: paths to TOML files or mappings, in registration order."""
    plugins: list[PluginRecord] = field(default_factory=list)

    def game(self, game_id: str) -> GameInfo:
        """The game called ``game_id``; ``KeyError`` listing the known ones otherwise."""
        try:
            return self.games[game_id]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise KeyError(f"no game {game_id!r} (installed: {known})") from None

    @property
    def failures(self) -> list[PluginRecord]:
        """Plugins that failed in any way."""
        return [record for record in self.plugins if record.errors]


def _short_error(error: BaseException) -> str:
    frame = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    where = f" ({Path(frame[0].filename).name}:{frame[0].lineno})" if frame else ""
    return f"{type(error).__name__}: {error}{where}"


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    import importlib.metadata

    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    unique: dict[str, importlib.metadata.EntryPoint] = {}
    for entry in found:  # an editable install can list the same entry point twice
        unique.setdefault(entry.name, entry)
    return sorted(unique.values(), key=lambda entry: entry.name)


class PluginAPIError(Exception):
    """A plugin was written for another version of the SDK."""


def _check_api(plugin: object) -> None:
    """Refuse a plugin whose ``GAMENIGHT_API`` this room's SDK cannot serve."""
    from gamenight.sdk import api_mismatch

    if hasattr(plugin, "GAMENIGHT_API"):
        reason = api_mismatch(plugin.GAMENIGHT_API)
        if reason is not None:
            raise PluginAPIError(reason)


MAX_PLUGIN_SOURCE = 1024 * 1024
"""A plugin module larger than this is not read for its ``GAMENIGHT_API`` after a failed import."""


def _declared_api(module_name: str) -> object | None:
    """The ``GAMENIGHT_API = "X.Y"`` that ``module_name``'s source assigns at its top level, read
    without running it (``None`` if it names none or cannot be read): for a module whose import
    failed, perhaps because it uses a name of an SDK newer than this room's."""
    import ast
    import importlib.util

    try:
        spec = importlib.util.find_spec(module_name)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(".py"):
            return None
        path = Path(origin)
        if path.stat().st_size > MAX_PLUGIN_SOURCE:
            return None
        tree = ast.parse(path.read_bytes(), filename=origin)
    except (Exception, RecursionError):  # a package that fails to import, unreadable or invalid source
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if any(isinstance(target, ast.Name) and target.id == "GAMENIGHT_API" for target in node.targets):
                return node.value.value
    return None


_preloaded: Registry | None = None
"""The registry :func:`preload_registry` loaded in this process (the room template), if it did."""


def preload_registry() -> Registry:
    """Load the plugins once for a process that forks rooms (the SSH room template): from then on
    :func:`load_registry` (without arguments) gives, in it and in every room forked from it, a copy
    of this registry instead of looking for the plugins again.  The template is replaced when the
    installed plugins change on disk, so a copy is what a fresh room would find."""
    global _preloaded
    _preloaded = None
    _preloaded = load_registry()
    return _copy(_preloaded)


def _copy(registry: Registry) -> Registry:
    """A copy a room may change (its game list, its plugins' records) without changing the original."""
    return Registry(
        games=dict(registry.games),
        themes=list(registry.themes),
        plugins=[
            dataclasses.replace(
                record,
                games=list(record.games),
                bots=list(record.bots),
                themes=list(record.themes),
                errors=list(record.errors),
            )
            for record in registry.plugins
        ],
    )


def load_registry(
    extra_plugins: Mapping[str, object] | None = None,
    entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
) -> Registry:
    """Load every plugin and collect what it registers.

    ``extra_plugins`` (name -> module or object with hookimpls) are registered
    after the entry points; tests use it to add a plugin without installing.
    In a process that called :func:`preload_registry`, a copy of that registry.
    """
    if _preloaded is not None and extra_plugins is None and entry_points is None:
        return _copy(_preloaded)
    import pluggy

    from gamenight import hookspecs
    from gamenight.sdk import BotSpec, GameInfo, api_mismatch

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    records: dict[str, PluginRecord] = {}

    for entry in _entry_points() if entry_points is None else entry_points:
        dist = getattr(entry, "dist", None)
        record = PluginRecord(
            name=entry.name,
            distribution=dist.metadata["Name"] if dist is not None else "",
            version=dist.version if dist is not None else "",
        )
        records[entry.name] = record
        try:
            plugin = entry.load()
            _check_api(plugin)
            manager.register(plugin, name=entry.name)
        except PluginAPIError as error:
            record.errors.append(f"not loaded: {error}")
        except Exception as error:
            # A plugin written for a newer SDK may fail on import (a name this SDK lacks): say so.
            module = getattr(entry, "module", None)
            wanted = _declared_api(module) if isinstance(module, str) else None
            reason = api_mismatch(wanted) if wanted is not None else None
            if reason is not None:
                record.errors.append(f"not loaded: {reason}")
            else:
                record.errors.append(f"failed to load: {_short_error(error)}")
    for name, plugin in (extra_plugins or {}).items():
        records[name] = PluginRecord(name=name, distribution=name)
        try:
            _check_api(plugin)
            manager.register(plugin, name=name)
        except PluginAPIError as error:
            records[name].errors.append(f"not loaded: {error}")
        except Exception as error:
            records[name].errors.append(f"failed to register: {_short_error(error)}")

    try:
        manager.check_pending()
    except pluggy.PluginValidationError as error:
        plugin_name = manager.get_name(error.plugin) if error.plugin else None
        if plugin_name in records:
            records[plugin_name].errors.append(f"unknown hook: {error}")
            manager.unregister(name=plugin_name)

    registry = Registry(plugins=list(records.values()))
    extra_bots: list[tuple[str, str, BotSpec]] = []

    def call(hook_name: str, register_for) -> None:
        hook = getattr(manager.hook, hook_name)
        for impl in reversed(hook.get_hookimpls()):  # registration order
            record = records.get(impl.plugin_name) or PluginRecord(name=impl.plugin_name)
            try:
                impl.function(register=register_for(record))
            except Exception as error:
                record.errors.append(f"{hook_name} failed: {_short_error(error)}")

    def game_registrar(record: PluginRecord):
        def register(info: GameInfo) -> None:
            if not isinstance(info, GameInfo):
                raise TypeError(f"register_games expects a GameInfo, got {type(info).__name__}")
            if info.id in registry.games:
                raise ValueError(f"game id {info.id!r} is already registered")
            registry.games[info.id] = info
            register_catalogue(info.id, info.translations)
            record.games.append(info.id)
            # The game's own bots too ("gamenight plugins" showed only bots added to other games:
            # a plugin whose game has two bots had an empty Bots column).
            record.bots.extend(f"{info.id}:{bot.id}" for bot in info.bots)

        return register

    def bot_registrar(record: PluginRecord):
        def register(game_id: str, spec: BotSpec) -> None:
            if not isinstance(spec, BotSpec):
                raise TypeError(f"register_bots expects a BotSpec, got {type(spec).__name__}")
            extra_bots.append((record.name, game_id, spec))
            register_catalogue(game_id, spec.translations)
            record.bots.append(f"{game_id}:{spec.id}")

        return register

    def theme_registrar(record: PluginRecord):
        def register(source: Path | str | Mapping[str, Any]) -> None:
            registry.themes.append(source)
            if isinstance(source, Mapping):
                record.themes.append(str(source.get("name", "?")))
            else:
                record.themes.append(Path(source).stem)

        return register

    call("register_games", game_registrar)
    call("register_bots", bot_registrar)
    call("register_themes", theme_registrar)

    for plugin_name, game_id, spec in extra_bots:
        bots_record = records.get(plugin_name)
        info = registry.games.get(game_id)
        if info is None:
            if bots_record is not None:
                bots_record.errors.append(f"bot {spec.id!r} is for unknown game {game_id!r}")
            continue
        if any(bot.id == spec.id for bot in info.bots):
            if bots_record is not None:
                bots_record.errors.append(f"bot {spec.id!r} already exists for {game_id!r}")
            continue
        registry.games[game_id] = dataclasses.replace(info, bots=(*info.bots, spec))
    return registry
