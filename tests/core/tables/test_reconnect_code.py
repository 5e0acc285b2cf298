"""A new keyless guest's reconnect code, kept where it hides no play.

The server hands the room the guest's welcome (``GAMENIGHT_NOTICE``) and its user name with the
code (``GAMENIGHT_RECONNECT``).  The welcome was a toast of five lines for 120 s at the bottom
right: at a shared table it hid the lower lines of the move log, the newest moves.  Now the code
is in the lobby's notices, in a shared table's title bar and under "Reconnect code" in the
command palette, and no toast lies over the table.
"""

from __future__ import annotations

import pytest
from gamenight.app import reconnect_login
from gamenight.dialogs import MessageDialog
from gamenight.i18n import set_language
from gamenight.ssh.sessions import NOTICE, PUBLIC_HOST, RECONNECT, build_environment
from gamenight.text import public_host
from textual.widgets import Static

from tests.core.tables.conftest import REGISTRY
from tests.core.tables.test_shared_end import open_shared_table
from tests.core.tables.test_tables_lobby import room_for, table_screen, until
from tests.core.tour import screen_text

LOGIN = "ann+k7qxr9m2"
WELCOME = (
    "Welcome, ann: this name is now yours on this server. You connected without a key, so come back "
    f"with the user name {LOGIN}: ssh {LOGIN}@games.example.org. The code is shown only this once: note it down."
)


@pytest.fixture
def new_guest(monkeypatch):
    monkeypatch.setenv(NOTICE, WELCOME)
    monkeypatch.setenv(RECONNECT, LOGIN)
    yield
    set_language("en")


def log_lines(screen) -> list[str]:
    return [line for line in str(screen.query_one("#log", Static).render()).splitlines() if line.strip()]


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_move_logs_newest_line_shows_while_the_code_is_in_the_title(new_guest, service, tmp_path, language):
    set_language(language)
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: LOGIN in str(ann.screen.query_one("#notices", Static).render()), what="lobby")
        await open_shared_table(pilot, ann, "seven", person=False)
        screen = table_screen(ann)
        for _ in range(3):  # a few moves of Ann's, each followed by the bots': a log longer than half the screen
            # (Bounds of 30 s: four bots think in turn, and a loaded machine -- a CI worker beside
            # another suite -- once took longer than 6 s for the move to reach the log.)
            await until(
                pilot, lambda: screen.match.human_to_move() and ann.tables.snapshot.legal, 1500, what="Ann's turn"
            )
            count = len(log_lines(screen))
            assert screen.submit(ann.tables.snapshot.legal[0])
            await until(pilot, lambda count=count: len(log_lines(screen)) > count, 1500, what="the move in the log")
        await until(pilot, lambda: screen.match.human_to_move(), 1500, what="Ann's turn again")
        await pilot.pause(0.2)
        log = screen.query_one("#log", Static)
        lines = log_lines(screen)
        assert len(lines) >= 10, lines
        shown = screen_text(ann)
        newest_row = log.content_region.y + len(lines) - 1
        assert lines[-1].strip() in shown[newest_row], (lines[-1], shown[newest_row])
        assert not [toast for toast in ann.screen.query("Toast") if toast.region.overlaps(log.region)]
        assert LOGIN in str(screen.query_one("#title-bar", Static).render())  # the code: in the title bar
        # …and in the command palette, with the server's whole welcome.
        [command] = [c for c in ann.get_system_commands(ann.screen) if LOGIN in c.help]
        command.callback()
        await until(pilot, lambda: isinstance(ann.screen, MessageDialog) and ann.screen.query("#message"), what="it")
        assert WELCOME in " ".join(str(ann.screen.query_one("#message").render()).split())


def test_the_server_hands_a_new_guests_login_to_its_room_and_the_room_takes_only_a_login(tmp_path):
    env = build_environment(tmp_path, "xterm", "256", None, notice=WELCOME, reconnect=LOGIN)
    assert env[RECONNECT] == LOGIN and env[NOTICE] == WELCOME
    assert RECONNECT not in build_environment(tmp_path, "xterm", "256", None)
    told = build_environment(tmp_path, "xterm", "256", None, reconnect=LOGIN, public_host="games.example.org:2222")
    assert told[PUBLIC_HOST] == "games.example.org:2222"
    assert public_host(told[PUBLIC_HOST]) == "games.example.org:2222"  # what the room takes of it
    for bad in ("games example", "host\x1b[2J", "-oProxyCommand=x", "a" * 300):
        assert public_host(bad) == "", bad
    assert reconnect_login(LOGIN) == LOGIN
    for bad in ("", "ann", "ann+", "+k7qxr9m2", "ann k+k7qxr9m2", "ann+k7\x1b[2J", "a" * 65 + "+k7qxr9m2"):
        assert reconnect_login(bad) == "", bad


def notices_text(app) -> str:
    return " ".join(str(app.screen.query_one("#notices", Static).render()).split())


async def palette_text(pilot, app) -> str:
    [command] = [c for c in app.get_system_commands(app.screen) if LOGIN in c.help]
    command.callback()
    await until(pilot, lambda: isinstance(app.screen, MessageDialog) and app.screen.query("#message"), what="it")
    text = " ".join(str(app.screen.query_one("#message").render()).split())
    await pilot.press("escape")
    return text


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("address", ["", "games.example.org", "games.example.org:2222"])
async def test_the_way_back_names_the_servers_address_or_needs_none(monkeypatch, service, tmp_path, language, address):
    """The welcome, the lobby's notice and the palette said "ssh ann+CODE@host": a guest who copied it
    reached no server.  With the server's public host name (``--public-host``, told to the room) they
    give the real command; without one they say to log in as before, with that user name."""
    from gamenight.ssh.sessions import code_notice

    set_language(language)
    command = {
        "": None,
        "games.example.org": f"ssh {LOGIN}@games.example.org",
        "games.example.org:2222": f"ssh -p 2222 {LOGIN}@games.example.org",
    }[address]
    welcome = code_notice(language, "ann", LOGIN.split("+")[1], address or None)
    monkeypatch.setenv(RECONNECT, LOGIN)
    if address:
        monkeypatch.setenv(PUBLIC_HOST, address)
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: LOGIN in notices_text(ann), what="the lobby's notice")
        told = [welcome, notices_text(ann), await palette_text(pilot, ann)]
    set_language("en")
    for text in told:
        assert LOGIN in text, text
        assert "@host" not in text and "@ホスト" not in text, text
        if command is not None:
            assert command in text, text
        else:
            assert "@" not in text, text  # no address to copy: none made up
