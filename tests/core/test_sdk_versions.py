"""The SDK's version is honest: what each version added is in CHANGELOG.md, the room refuses a
plugin written for a newer SDK with a clear reason (even when the plugin cannot be imported on
it), and ``gamenight`` and ``gamenight.sdk`` are one list of public names, not two."""

from __future__ import annotations

import re
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import gamenight.sdk as sdk
import gamenight.sdk.testing as kit
from gamenight.plugins import load_registry

from tests.core.nim import NimPlugin

ROOT = Path(__file__).resolve().parents[2]


def changelog_names() -> dict[str, set[str]]:
    """``{"1.1": {names in backticks under "## [SDK 1.1]"}, ...}`` from CHANGELOG.md."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.split(r"^## \[SDK (\d+\.\d+)\][^\n]*$", text, flags=re.MULTILINE)
    return {
        version: set(re.findall(r"`([A-Za-z_][\w.]*)`", body))
        for version, body in zip(sections[1::2], sections[2::2], strict=True)
    }


def version_key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def nim_wanting(version: str) -> NimPlugin:
    plugin = NimPlugin()
    plugin.GAMENIGHT_API = version  # type: ignore[attr-defined]
    return plugin


def test_the_newest_version_in_the_changelog_is_the_sdks_and_every_public_name_is_in_it():
    names = changelog_names()
    assert max(names, key=version_key) == sdk.API_VERSION
    listed = set().union(*names.values())
    missing = sorted((set(sdk.__all__) | set(kit.__all__)) - listed)
    assert missing == [], f"public names of the SDK that CHANGELOG.md does not list: {missing}"


def test_what_the_sdk_added_after_1_0_is_a_minor_version_of_its_own():
    """PublicEvent, Rules.public_events and IllegalAction.because came after 1.0: a plugin that uses
    them must be able to say so, so the SDK that has them is not 1.0."""
    assert version_key(sdk.API_VERSION) >= (1, 1)
    assert {"PublicEvent", "Rules.public_events", "IllegalAction.because"} <= changelog_names()["1.1"]
    assert hasattr(sdk, "PublicEvent") and hasattr(sdk.Rules, "public_events")
    assert hasattr(sdk.IllegalAction, "because")


def test_the_gate_both_ways(monkeypatch):
    """A 1.1 plugin on a 1.0 room is refused with the reason; on a 1.1 room it loads, as a 1.0 one does."""
    here = load_registry(extra_plugins={"new": nim_wanting("1.1")}, entry_points=[])
    assert [record.error for record in here.plugins] == [None] and "nim" in here.games

    monkeypatch.setattr(sdk, "API_VERSION", "1.0")  # a room of SDK 1.0
    older = load_registry(extra_plugins={"new": nim_wanting("1.1")}, entry_points=[])
    assert [record.error for record in older.plugins] == [
        "not loaded: it needs gamenight SDK 1.1; this room has SDK 1.0"
    ]
    assert "nim" not in older.games
    old_plugin = load_registry(extra_plugins={"old": nim_wanting("1.0")}, entry_points=[])
    assert [record.error for record in old_plugin.plugins] == [None] and "nim" in old_plugin.games


def write_plugin(folder: Path, name: str, source: str) -> EntryPoint:
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return EntryPoint(name=name, value=name, group="gamenight")


def test_a_plugin_that_cannot_even_be_imported_on_an_older_sdk_gets_the_clean_refusal(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    uses_events = write_plugin(
        tmp_path,
        "gn_uses_events",
        """
        GAMENIGHT_API = "1.1"
        from gamenight.sdk import PublicEvent
        """,
    )
    just_broken = write_plugin(
        tmp_path,
        "gn_just_broken",
        """
        GAMENIGHT_API = "1.0"
        raise RuntimeError("a bug of its own")
        """,
    )
    monkeypatch.setattr(sdk, "API_VERSION", "1.0")  # a room of SDK 1.0, which has no PublicEvent
    monkeypatch.delattr(sdk, "PublicEvent")
    registry = load_registry(extra_plugins={}, entry_points=[uses_events, just_broken])
    errors = {record.name: record.error for record in registry.plugins}
    assert errors["gn_uses_events"] == "not loaded: it needs gamenight SDK 1.1; this room has SDK 1.0"
    assert errors["gn_just_broken"].startswith("failed to load: RuntimeError: a bug of its own")


def test_gamenight_reaches_exactly_the_sdks_public_names():
    import gamenight

    for name in sdk.__all__:
        assert getattr(gamenight, name) is getattr(sdk, name), name
    for private in ("Registry", "load_registry", "GameNightApp", "_LAZY"):
        assert not hasattr(gamenight, private), private


def test_what_the_guide_recommends_for_a_screen_is_in_the_sdk():
    from gamenight.widgets.key_bar import KeyBar
    from gamenight.widgets.score_table import ScoreTable

    assert sdk.KeyBar is KeyBar and sdk.ScoreTable is ScoreTable
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    migration = re.search(r"\*\*Moving a plugin to SDK 1\.0\.\*\*.*?\n\n", guide, flags=re.DOTALL)
    assert migration is not None
    advice = guide.replace(migration.group(0), "")  # the paragraph naming the old paths to replace
    outside = sorted(set(re.findall(r"gamenight\.(?!sdk\b)[a-z_]+(?:\.[A-Za-z_]+)*", advice)))
    assert outside == [], f"the guide sends plugin authors outside gamenight.sdk: {outside}"
    assert "gamenight_yatzy/dice.py" not in advice
