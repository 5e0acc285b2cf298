"""gamenight.compat: the patches of Textual's and asyncssh's private internals still fit them.

Each upstream test below reads the installed library and fails when what a patch relies on has
changed (a renamed method, another signature, another queue); then fix the patch, and raise
``TESTED_WITH`` and the pin in pyproject.toml together.  The behaviour tests run each patch on a
stand-in (or in a process of its own), so this process's Textual is left as it was.
"""

from __future__ import annotations

import codecs
import importlib.metadata
import inspect
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest
from gamenight.compat import TESTED_WITH
from gamenight.compat.asyncssh_internals import on_refused_global_request
from gamenight.compat.textual_internals import (
    _RENDER_CHOPS_DIGEST,
    PARSE_RULES_PARAMETERS,
    RENDER_CHOPS_PARAMETERS,
    render_chops_digest,
    tolerate_undecodable_input,
)

ROOT = Path(__file__).resolve().parents[2]


def minor(version: str) -> tuple[int, int]:
    major, minor_, *_ = (int(part) for part in re.findall(r"\d+", version)[:2])
    return major, minor_


# -- the pins ------------------------------------------------------------------------------------


def requirement(name: str) -> str:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (found,) = [spec for spec in dependencies if re.match(rf"{name}(?![\w-])", spec)]
    return found


@pytest.mark.parametrize("name", sorted(TESTED_WITH))
def test_the_pin_stops_below_the_next_minor_version_than_the_tested_one(name: str):
    major, tested = TESTED_WITH[name]
    spec = requirement(name)
    assert f"<{major}.{tested + 1}" in spec.replace(" ", ""), spec
    assert minor(importlib.metadata.version(name)) == TESTED_WITH[name], (
        f"{name} {importlib.metadata.version(name)} is installed; gamenight.compat was checked with "
        f"{major}.{tested}: run this file, fix the patches, then raise TESTED_WITH and the pin"
    )


def test_the_checks_tools_are_pinned_exactly():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    tools = {"pytest", "pytest-asyncio", "pytest-timeout", "pytest-xdist", "ruff", "mypy", "import-linter"}
    pinned = {re.split(r"[<>=!~ ]", spec, maxsplit=1)[0]: spec for spec in extra}
    for tool in sorted(tools):
        assert re.fullmatch(rf"{tool}==[\d.]+", pinned[tool]), pinned[tool]
        assert pinned[tool] == f"{tool}=={importlib.metadata.version(tool)}", "the venv has another version"


# -- Textual: the parsed-CSS cache ---------------------------------------------------------------


def test_upstream_stylesheet_parse_rules_is_the_method_the_cache_wraps():
    from textual.css.stylesheet import Stylesheet

    assert tuple(inspect.signature(Stylesheet._parse_rules).parameters) == PARSE_RULES_PARAMETERS
    assert isinstance(Stylesheet(variables={"accent": "red"})._variables, dict)
    assert "self._parse_rules(" in inspect.getsource(Stylesheet.parse)  # parse() goes through it


def test_the_css_cache_parses_the_same_css_with_the_same_variables_once():
    """In a process of its own: the cache changes Textual's Stylesheet class for the whole process."""
    check = """
from textual.css.stylesheet import Stylesheet
from gamenight.compat.textual_internals import share_parsed_css
calls = []
original = Stylesheet._parse_rules
def counting(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
    calls.append(css)
    return original(self, css, read_from, is_default_rules, tie_breaker, scope)
Stylesheet._parse_rules = counting
assert share_parsed_css() and share_parsed_css()  # twice: still one layer
def parse(accent):
    sheet = Stylesheet(variables={"accent": accent})
    sheet.add_source("Label { color: $accent; }", ("x", "Label"))
    sheet.parse()
    return sheet.rules
red, red_again, blue = parse("red"), parse("red"), parse("blue")
assert len(calls) == 2, calls  # red once, blue once
assert red[0] is red_again[0] and blue[0] is not red[0]
"""
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_css_cache_leaves_a_parse_rules_of_another_shape_alone(monkeypatch):
    from gamenight.compat import textual_internals
    from textual.css.stylesheet import Stylesheet

    def other(self, css):  # what a future Textual might have
        return []

    monkeypatch.setattr(Stylesheet, "_parse_rules", other)
    assert textual_internals.share_parsed_css() is False
    assert Stylesheet._parse_rules is other


# -- Textual: wide characters kept whole over other widgets ---------------------------------------


def test_upstream_compositor_renders_chops_as_the_patch_was_written_for():
    from textual._compositor import ChopsUpdate, Compositor

    assert render_chops_digest() == _RENDER_CHOPS_DIGEST, "Compositor._render_chops changed: check the patch"
    original = getattr(Compositor._render_chops, "gamenight_original", Compositor._render_chops)
    assert tuple(inspect.signature(original).parameters) == RENDER_CHOPS_PARAMETERS
    partial = getattr(Compositor.render_partial_update, "gamenight_original", Compositor.render_partial_update)
    assert "self._render_chops(crop, is_rendered_line)" in inspect.getsource(partial)
    assert "chop_ends" in inspect.signature(ChopsUpdate).parameters


WIDE_OVER_EDGES = """
import asyncio, sys
from textual.app import App
from textual.containers import Horizontal
from textual.widgets import Static
from gamenight.compat.textual_internals import keep_wide_characters_whole

PATCHED = sys.argv[1] == "patched"
if PATCHED:
    assert keep_wide_characters_whole() and keep_wide_characters_whole()  # twice: one layer
TEXT = "最善手順でのこのプレイの得点"

class Over(App):
    CSS = \"""
    Screen { layers: default over; }
    #left { width: 61; height: 3; } #right { width: 1fr; height: 3; }
    #over { layer: over; dock: right; width: 40; height: 3; }
    \"""
    def compose(self):
        with Horizontal():
            yield Static("a" * 61, id="left")
            yield Static("b" * 19, id="right")
        yield Static(TEXT, id="over")

def ends_fit(update):
    for y, line in enumerate(update.chops):  # every piece ends where the update says (what a terminal is sent)
        for end, (x, strip) in zip(update.chop_ends[y], line.items()):
            if strip is not None:
                assert x + strip.cell_length == end, (y, x, end, strip.text)

async def main():
    app = Over()
    async with app.run_test(size=(80, 8)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert 61 in compositor.cuts[0], compositor.cuts[0]  # #right's edge under the over widget's text
        whole = TEXT in compositor.render_strips()[0].text
        assert whole == PATCHED, compositor.render_strips()[0].text
        app.query_one("#right", Static).update("c" * 19)  # beneath the text: a partial update
        compositor._dirty_regions.add(app.query_one("#right").region)
        update = compositor.render_update()
        assert type(update).__name__ == "ChopsUpdate"
        ends_fit(update)
        assert whole == (TEXT in "".join(s.text for s in update.chops[0].values() if s is not None))

asyncio.run(main())
"""


@pytest.mark.parametrize("patched", [False, True])
def test_a_wide_character_over_another_widgets_edge_is_drawn_whole_only_with_the_patch(tmp_path, patched):
    """In a process of its own (the patch changes Textual's Compositor class for the whole process).
    The text lies on a layer over two widgets whose edge (column 61) falls inside a character."""
    script = tmp_path / "wide.py"
    script.write_text(WIDE_OVER_EDGES, encoding="utf-8")
    arguments = [sys.executable, str(script), "patched" if patched else "plain"]
    result = subprocess.run(arguments, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_wide_character_patch_leaves_a_render_chops_of_another_shape_alone(monkeypatch):
    from gamenight.compat import textual_internals
    from textual._compositor import Compositor

    def other(self, crop):  # what a future Textual might have
        return []

    monkeypatch.setattr(Compositor, "_render_chops", other)
    assert textual_internals.keep_wide_characters_whole() is False
    assert Compositor._render_chops is other


# -- Textual: the tolerant input decoder ---------------------------------------------------------


def test_upstream_linux_driver_decodes_its_input_with_its_modules_getincrementaldecoder():
    from textual.drivers import linux_driver

    assert linux_driver.getincrementaldecoder in (codecs.getincrementaldecoder,) or getattr(
        linux_driver.getincrementaldecoder, "gamenight_tolerant", False
    )
    assert 'getincrementaldecoder("utf-8")()' in inspect.getsource(linux_driver.LinuxDriver)


def test_a_tolerant_driver_module_turns_a_stray_byte_into_a_replacement_character(monkeypatch):
    module = types.ModuleType("fake_driver_module")
    module.getincrementaldecoder = codecs.getincrementaldecoder
    driver = type("FakeDriver", (), {"__module__": module.__name__})
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with pytest.raises(UnicodeDecodeError):
        module.getincrementaldecoder("utf-8")().decode(b"a\xffb")
    assert tolerate_undecodable_input(driver) and tolerate_undecodable_input(driver)  # twice: one layer
    assert module.getincrementaldecoder("utf-8")().decode(b"a\xffb") == "a\ufffdb"
    assert module.getincrementaldecoder("utf-8")().decode("é".encode()) == "é"


def test_a_driver_that_decodes_otherwise_is_left_alone(monkeypatch):
    module = types.ModuleType("other_driver_module")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert tolerate_undecodable_input(type("D", (), {"__module__": module.__name__})) is False


# -- asyncssh: the refused global requests -------------------------------------------------------


def test_upstream_asyncssh_answers_global_requests_from_the_queue_the_hook_reads():
    from asyncssh.connection import SSHConnection

    assert tuple(inspect.signature(SSHConnection._report_global_response).parameters) == ("self", "result")
    assert "self._global_request_queue: List[_GlobalRequest] = []" in inspect.getsource(SSHConnection.__init__)
    process = inspect.getsource(SSHConnection._process_global_request)
    assert "self._global_request_queue.append((handler, packet, want_reply))" in process
    report = inspect.getsource(SSHConnection._report_global_response)
    assert "self._global_request_queue.pop(0)" in report


class StandInConnection:
    """The two private members the hook uses, as asyncssh 2.24 has them."""

    def __init__(self) -> None:
        self._global_request_queue: list[tuple[object, bytes, bool]] = []
        self.answers: list[object] = []

    def _report_global_response(self, result: object) -> None:
        self._global_request_queue.pop(0)
        self.answers.append(result)


def test_a_refused_forwarding_is_counted_and_a_keepalive_is_not():
    conn, refused = StandInConnection(), []
    assert on_refused_global_request(conn, lambda: refused.append(1))
    conn._global_request_queue.append((lambda packet: None, b"", True))  # tcpip-forward: asyncssh knows it
    conn._report_global_response(False)
    conn._global_request_queue.append((None, b"", True))  # keepalive@openssh.com: no handler
    conn._report_global_response(False)
    conn._global_request_queue.append((lambda packet: None, b"", True))
    conn._report_global_response(True)  # granted
    assert conn.answers == [False, False, True] and refused == [1]


def test_a_connection_without_those_internals_is_left_alone():
    conn = types.SimpleNamespace(_report_global_response=lambda result: None)
    assert on_refused_global_request(conn, lambda: None) is False
