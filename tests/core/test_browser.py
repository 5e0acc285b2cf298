"""The room in a real browser: ``gamenight serve-web`` driven by Playwright in Debian's chromium.

Playwright's own browser download is not available here, so the test uses the system's
``chromium`` (``.ci/run`` installs it, with a Japanese font). Without it the test is skipped,
unless ``GAMENIGHT_REQUIRE_BROWSER=1`` (as in CI) makes a missing browser a failure.

The page draws the terminal on a canvas, so what the room shows is read the way the browser
gets it: every byte the page's websocket receives is kept (an init script wraps WebSocket)
and fed to a pyte terminal of the same size.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyte
import pytest

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("GAMENIGHT_REQUIRE_BROWSER") == "1":
        raise RuntimeError("GAMENIGHT_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
    pytest.skip("no chromium on PATH (apt-get install chromium)", allow_module_level=True)

CAPTURE = """
(() => {
  const Native = window.WebSocket;
  window.__roomBytes = [];
  window.WebSocket = function (url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    const send = socket.send.bind(socket);
    socket.send = (data) => {
      if (typeof data === "string" && data.startsWith('["resize"')) window.__roomSize = JSON.parse(data)[1];
      return send(data);
    };
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") window.__roomBytes.push(...new Uint8Array(event.data));
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
})();
"""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

VIEWPORT = {"width": 1000, "height": 640}
"""A room of about 111×35 cells in chromium here: more than the 80×24 the room is made for, with room
to spare for another font's metrics.  Drawing costs by the cell (the room composes, chromium paints
its canvas in software, pyte reads every byte): at 1400×900 this file cost 28.5 CPU-s, at this
23.2 (bench/RESULTS.md)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Tab:
    """One browser tab on the room, with what it received replayed into a pyte screen."""

    def __init__(self, page) -> None:
        self.page = page
        self.seen = 0
        self.screen: pyte.Screen | None = None
        self.stream: pyte.ByteStream | None = None

    def text(self) -> str:
        received = self.page.evaluate("window.__roomBytes.length")
        if self.screen is None:
            size = self.page.evaluate("window.__roomSize || null")
            if size is None:
                return ""
            self.screen = pyte.Screen(size["width"], size["height"])
            self.stream = pyte.ByteStream(self.screen)
        if received > self.seen:
            chunk = self.page.evaluate(f"window.__roomBytes.slice({self.seen})")
            self.seen = received
            try:
                self.stream.feed(bytes(chunk))
            except Exception:  # a sequence pyte does not know: carry on with a fresh parser
                self.stream = pyte.ByteStream(self.screen)
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text()
            if needle in text:
                return text
            self.page.wait_for_timeout(100)
        raise AssertionError(f"{needle!r} never showed; the tab shows:\n{self.text()}")


@pytest.fixture
def web_room(tmp_path: Path):
    port = free_port()
    env = {**os.environ, "GAMENIGHT_LANG": "en", "LANG": "C.UTF-8"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gamenight",
            "serve-web",
            "--port",
            str(port),
            "--lang",
            "en",
            "--bot-delay",
            "0",
            "--saves",
            str(tmp_path / "saves"),
            "--config",
            str(tmp_path / "config.toml"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        if server.poll() is not None:
            raise AssertionError(server.stdout.read().decode())
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/", server
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


def room_processes(server: subprocess.Popen) -> list[int]:
    """The room processes textual-serve started (children of the server: a shell, then Python)."""
    found = subprocess.run(["pgrep", "-f", "-P", str(server.pid), "gamenight"], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def test_a_browser_tab_plays_a_yatzy_turn_and_two_tabs_are_two_rooms_asking_nothing_outside_the_server(web_room):
    """One browser, one server: a tab plays, a second tab is a room of its own, and nothing either
    tab asks for (page, scripts, fonts, websockets) is outside the server (that check had a browser
    and a server of its own, which cost about 10 CPU-s for a page load this test also makes)."""
    url, server = web_room
    asked: list[str] = []
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=VIEWPORT)
        context.on("request", lambda request: asked.append(request.url))
        context.add_init_script(CAPTURE)
        page = context.new_page()
        page.goto(url)
        first = Tab(page)
        first.wait_for("choose a game")
        size = page.evaluate("window.__roomSize")
        assert size["width"] >= 80 and size["height"] >= 24, f"VIEWPORT makes a room of {size} only"
        # No click on the page: keys must reach the room at once.
        page.keyboard.press("End")
        page.keyboard.press("Enter")
        first.wait_for("Seats")
        assert "Yatzy" in first.text()
        page.keyboard.press("Enter")
        first.wait_for("Roll")
        page.keyboard.press("Space")  # roll
        first.wait_for("Roll 1 of 3")
        page.keyboard.press("Enter")  # score the box the sheet has chosen
        first.wait_for("Round 2/13")  # scored; the bot played its turn too

        second_page = context.new_page()
        second_page.goto(url)
        second = Tab(second_page)
        second.wait_for("choose a game")
        assert len(room_processes(server)) >= 2  # one room per tab
        second_page.close()
        deadline = time.monotonic() + 20
        while len(room_processes(server)) > 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(room_processes(server)) == 1  # closing a tab ends its room, the other plays on
        page.keyboard.press("Control+p")
        first.wait_for("Search for commands")
        browser.close()
    assert asked and all(
        address.startswith(url.rstrip("/")) or address.startswith("ws://127.0.0.1") for address in asked
    ), asked


def test_return_answers_the_startup_resume_question(web_room, tmp_path):
    from gamenight.match import Match, SeatConfig, play_headless
    from gamenight.plugins import load_registry
    from gamenight.saves import save_match

    game = load_registry().game("yatzy")
    whole = play_headless(game, [SeatConfig("A", "random"), SeatConfig("B", "random")], seed=1)
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "random")], {}, seed=1)
    match.replay(whole.log[:6], check_chance=True)
    (tmp_path / "saves").mkdir(exist_ok=True)
    save_match(match, tmp_path / "saves" / "autosave-yatzy.toml")
    url, _server = web_room
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(CAPTURE)
        page = context.new_page()
        page.goto(url)
        tab = Tab(page)
        tab.wait_for("Resume it?")
        page.keyboard.press("Enter")  # no click first: Return takes the first choice, as in a terminal
        text = tab.wait_for("Upper total")  # Yatzy's sheet: the game resumed
        assert "Resume it?" not in text
        browser.close()
