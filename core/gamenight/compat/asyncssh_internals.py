"""The patch of asyncssh's private internals (see :mod:`gamenight.compat`).  No Textual here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["on_refused_global_request"]


def on_refused_global_request(conn: Any, refused: Callable[[], None]) -> bool:
    """Call ``refused()`` each time ``conn`` (an ``asyncssh.SSHServerConnection``) refuses a global
    request that asyncssh knows (a port forwarding the server does not allow).

    asyncssh answers global requests itself, without asking the server object, so the count comes
    from its private ``_report_global_response`` and ``_global_request_queue`` (whose head is the
    ``(handler, packet, want_reply)`` being answered).  An unknown request -- an OpenSSH client's
    ``keepalive@openssh.com`` (``ServerAliveInterval``) -- has no handler and is not counted.
    True when the hook is in place; False, changing nothing, if those internals are not there.
    """
    respond = getattr(conn, "_report_global_response", None)
    queue = getattr(conn, "_global_request_queue", None)
    if not callable(respond) or not isinstance(queue, list):
        return False

    def global_answered(result: Any) -> None:
        head = conn._global_request_queue[0] if conn._global_request_queue else None
        known = isinstance(head, tuple) and len(head) == 3 and callable(head[0])
        respond(result)
        if result is False and known:
            refused()

    conn._report_global_response = global_answered
    return True
