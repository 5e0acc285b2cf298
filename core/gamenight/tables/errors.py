"""The table service's refusal codes, in the person's language."""

from __future__ import annotations

from gamenight.i18n import _
from gamenight.text import safe_text

__all__ = ["refusal_text"]


def refusal_text(code: str, message: str) -> str:
    """What a refusal means, in the room's language (an unknown code: the service's own words)."""
    texts = {
        "busy": _("Leave your table first."),
        "full": _("This server has no room for another table."),
        "host-limit": _("You already host as many open tables as this server allows; finish or leave one first."),
        "address-limit": _("Your address already hosts as many open tables as this server allows."),
        "table-closed": _("The table was closed: everyone left it."),
        "bad-table": _("That table cannot be opened: {reason}", reason=safe_text(message, limit=200)),
        "no-table": _("No such table (or a wrong code)."),
        "code-limit": _("Too many wrong codes: try again in a few minutes."),
        "no-seat": _("No free seat for a person there."),
        "no-watching": _("This game cannot be watched."),
        "not-host": _("Only the host starts a waiting table."),
        "not-seated": _("You have no seat at a table."),
        "not-your-turn": _("It is not your turn."),
        "paused": _("The table is paused."),
        "store-down": _("The table waits for the server's store. Nothing is lost."),
        "store-up": _("The table goes on: the server reaches its table store again."),
        "table-moved": _("The table moved to another server: join it again from the Tables list."),
        "table-version": _(
            "That table runs on another version of gamenight or its game: {reason}",
            reason=safe_text(message, limit=200),
        ),
        "stale": _("That move came too late: the table moved on."),
        "illegal": _("That move is not allowed: {reason}", reason=safe_text(message, limit=200)),
        "chat-flood": _("You are chatting too fast."),
        "not-over": _("The game is not over yet."),
        "protocol": _("The table service refused the connection: {reason}", reason=safe_text(message, limit=200)),
        "not-recorded": _("The server did not record your game: {reason}", reason=safe_text(message, limit=200)),
        "no-records": _("This server keeps no records."),
        "record-flood": _("Too many games sent to the server's records at once."),
        "record-busy": _("The server's records are busy; this game was not recorded there."),
        "hall-flood": _("Too many hall of fame requests."),
        "solo-retired": _("This room is older than the server: play against bots from the lobby to be recorded."),
        "solo-closed": _("You keep at most five games on this server: your oldest one was closed."),
    }
    return texts.get(code) or _("The table service refused: {reason}", reason=safe_text(message, limit=200))
