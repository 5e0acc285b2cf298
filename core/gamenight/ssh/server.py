"""``gamenight serve-ssh``: the game room over SSH, one process per connection.

Rooms are forked from a pre-loaded room template (:mod:`gamenight.ssh.template`) when it works
here, else each is a fresh ``python -m gamenight`` (``--template``).

Each connection that authenticates (public key, or ``--guest``) and asks for
an interactive session with a pty gets its own game room process in its own
pseudo-terminal (see :mod:`gamenight.ssh.child`).  Nothing else is reachable:
exec requests, subsystems (SFTP), port forwarding, X11 and agent forwarding
are refused.  Each user's saves and settings live in
``DATA_DIR/users/<id>/`` where the id comes from the key fingerprint, or is the
one the guest's name was bound to (:mod:`gamenight.ssh.identity`,
:mod:`gamenight.ssh.guests`); where the system allows it, each room runs in
user, mount and PID namespaces that hide everything of the data dir but that
folder (:mod:`gamenight.ssh.launch`).

The parts: :mod:`~gamenight.ssh.settings` (options and their validation),
:mod:`~gamenight.ssh.log` (the structured log), :mod:`~gamenight.ssh.auth`
(keys, guests, limits and refusal caps), :mod:`~gamenight.ssh.sessions` (a
session's room on its pty), :mod:`~gamenight.ssh.sandbox` (the room's command
line); this module starts and stops the server and is its command line.

Log lines are JSON objects on stderr, one per event: ``listening``,
``connect``, ``auth_ok``, ``auth_rejected_key``, ``auth_failed``, ``refused``,
``limit``, ``session_start``, ``session_end``, ``disconnect``, ``error``,
``template`` (the room template ready, ended, restarted, replaced when plugins changed),
``stopping``.  ``listening`` says how rooms start (``rooms``: ``template`` or ``spawn``) and why
(``rooms_why``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from typing import TYPE_CHECKING

import asyncssh

from gamenight.ssh.auth import Connection, Hub, last_used
from gamenight.ssh.identity import load_or_create_host_key
from gamenight.ssh.log import EventLog
from gamenight.ssh.messages import _, client_language, client_text
from gamenight.ssh.sandbox import LAUNCH, build_command, decide_sandbox, sandbox_works
from gamenight.ssh.sessions import CRASH_LOG_NAME, _safe_term, build_environment, colour_depth, last_line
from gamenight.ssh.settings import Settings, UsageError, parser, settings_from_args
from gamenight.ssh.template import TemplateKeeper, TemplateUnavailable, ksm_state

if TYPE_CHECKING:
    from gamenight.tables.service import TableService

__all__ = [
    "CRASH_LOG_NAME",
    "LAUNCH",
    "EventLog",
    "Settings",
    "_safe_term",
    "build_command",
    "build_environment",
    "client_language",
    "client_text",
    "colour_depth",
    "last_line",
    "last_used",
    "main",
    "sandbox_works",
    "serve",
]

EXPIRY_CHECK = 3600.0
"""Seconds between two sweeps of idle guest folders."""


class TablesLog(logging.Handler):
    """The table service's warnings (a refused room, a table not restored) as ``tables`` log lines."""

    def __init__(self, log: EventLog) -> None:
        super().__init__(logging.INFO)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.log("tables", level=record.levelname.lower(), detail=record.getMessage())
        except Exception:
            self.handleError(record)


async def serve(
    settings: Settings,
    log: EventLog,
    ready: asyncio.Future[int] | None = None,
    tables: TableService | None = None,
) -> None:
    """Run the server until SIGINT/SIGTERM (or cancellation); ``ready`` gets the bound port.

    With ``settings.tables`` the server runs one :class:`TableService` (its tables under
    ``DATA_DIR/tables``: restored at start, saved as they change and when the server stops)
    and connects every room to it; a ``tables`` service passed in is used instead (its caller
    starts and closes it).
    """
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    if settings.tables_url:  # several hosts: one shared data dir (ssh/shared_data.py)
        from gamenight.ssh.shared_data import check_shared_data_dir

        await check_shared_data_dir(settings.tables_url, settings.data_dir)
    host_key, created = load_or_create_host_key(settings.data_dir)
    sandbox_why = decide_sandbox(settings)
    hub = Hub(settings, log)
    if settings.authorized_keys is not None and hub.authorized_keys() is None:
        raise ValueError(f"cannot read authorized keys from {settings.authorized_keys}")
    templates, template_reason = await _start_template(settings, log)
    hub.templates = templates
    loop = asyncio.get_running_loop()
    own_tables = settings.tables and tables is None
    service_log = logging.getLogger("gamenight.tables")
    handler = TablesLog(log)
    if own_tables:
        # Imported here: with --tables off the server does without them and the games (5 MiB).
        from gamenight.plugins import load_registry
        from gamenight.tables.service import TableService

        service_log.addHandler(handler)
        service_log.setLevel(logging.INFO)  # a table taken over, closed, recorded, a seat to the bot
        service_log.propagate = False  # only JSON lines on stderr
        tables = TableService(
            load_registry(),
            settings.data_dir,
            away_timeout=settings.away_timeout,
            records_url=settings.records_url,
            tables_url=settings.tables_url,
        )
    hub.tables = tables if settings.tables else None
    try:
        if own_tables:
            assert tables is not None
            await tables.start()
        acceptor = await _listen(hub, host_key)
    except BaseException:
        await _stop_tables(tables if own_tables else None, service_log, handler)
        if templates is not None:
            await templates.stop()
        await hub.aclose()
        raise

    def sweep() -> None:
        hub.expire_guests()
        hub.sweeper = loop.call_later(EXPIRY_CHECK, sweep)

    sweep()
    port = acceptor.get_port()
    log(
        "listening",
        host=settings.host,
        port=port,
        data_dir=str(settings.data_dir),
        auth="guest" if settings.guest else "keys",
        host_key=host_key.get_fingerprint(),
        host_key_created=created,
        isolated=settings.isolated,
        sandbox_why=sandbox_why,
        room_uid=settings.room_uid,
        rooms="template" if templates is not None else "spawn",
        rooms_why=template_reason,
        ksm=_ksm(settings, templates),
        ksm_host=ksm_state(),
        tables=hub.tables is not None,
        records=_records_shown(settings) if hub.tables is not None else None,
        tables_store=_tables_shown(settings) if hub.tables is not None else None,
        max_sessions=settings.max_sessions,
        max_new_per_minute=settings.max_new_per_minute,
        idle_timeout=settings.idle_timeout,
        room_memory=settings.room_memory,
        max_pending=settings.max_pending,
        max_per_address=settings.max_per_address,
        max_per_user=settings.max_per_user,
        login_timeout=settings.login_timeout,
        guest_expiry_days=settings.guest_expiry_days,
    )
    if ready is not None and not ready.done():
        ready.set_result(port)
    stop = asyncio.Event()
    signals = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
            signals.append(signum)
    try:
        await stop.wait()
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
        log("stopping", open=len(hub.connections))
        if hub.sweeper is not None:
            hub.sweeper.cancel()
        acceptor.close()
        for connection in list(hub.connections):
            connection.close("shutdown", _("The server is shutting down."))
        # Each closed connection ends its room (SIGHUP/SIGTERM, SIGKILL after the grace period).
        deadline = loop.time() + settings.grace + 5
        while (hub.connections or hub.endings) and loop.time() < deadline:
            if hub.endings:
                await asyncio.wait(set(hub.endings), timeout=max(0.0, deadline - loop.time()))
            else:
                await asyncio.sleep(0.05)
        await acceptor.wait_closed()
        if templates is not None:
            await templates.stop()
        await _stop_tables(tables if own_tables else None, service_log, handler)
        await hub.aclose()


def _ksm(settings: Settings, templates: TemplateKeeper | None) -> bool | str:
    """For ``listening``: whether the rooms opted in to KSM (``--ksm on`` and forked from the
    template), else ``False`` or why not; ``ksm_host`` beside it says whether the host runs KSM."""
    if not settings.ksm:
        return False
    if templates is None or templates.current is None:
        return "spawned rooms do not opt in"
    return templates.current.ready_info.get("ksm", False)


async def _start_template(settings: Settings, log: EventLog) -> tuple[TemplateKeeper | None, str]:
    """The room template (:mod:`gamenight.ssh.template`) if it is wanted and works here, and why
    rooms are forked from it or spawned; ``--template on`` where it cannot be used is an error."""
    if settings.template == "off":
        return None, "--template off"
    if settings.template == "auto" and settings.command is not None:
        return None, "--command runs a program of its own: the template would pre-load nothing it uses"
    user = (settings.room_uid, settings.room_gid) if settings.room_uid != os.geteuid() else None
    keeper = TemplateKeeper(
        str(settings.data_dir) if settings.isolated else None, log, settings.ksm, user, settings.room_needs
    )
    try:
        template = await keeper.start()
    except TemplateUnavailable as error:
        if settings.template == "on":
            raise ValueError(_("--template on: {reason}", reason=str(error))) from None
        return None, str(error)
    return keeper, f"template ready in {template.ready_info.get('seconds')} s"


async def _listen(hub: Hub, host_key: asyncssh.SSHKey) -> asyncssh.SSHAcceptor:
    """Accept SSH connections: public keys or guests, one pty session each, nothing else."""
    settings = hub.settings
    return await asyncssh.create_server(
        lambda: Connection(hub),
        settings.host,
        settings.port,
        server_host_keys=[host_key],
        encoding=None,
        line_editor=False,
        allow_pty=True,
        x11_forwarding=False,
        agent_forwarding=False,
        allow_scp=False,
        sftp_factory=None,
        password_auth=False,
        kbdint_auth=settings.guest,  # a guest without a key: nothing to type (guests.py)
        host_based_auth=False,
        gss_kex=False,
        gss_auth=False,
        login_timeout=settings.login_timeout,
        keepalive_interval=30,
        keepalive_count_max=3,
    )


async def _stop_tables(tables: TableService | None, service_log: logging.Logger, handler: logging.Handler) -> None:
    """Close the server's own table service (it saves every table first: nothing is lost)."""
    try:
        if tables is not None:
            await tables.close()
    finally:
        if handler in service_log.handlers:
            service_log.removeHandler(handler)
            service_log.propagate = True


def _records_shown(settings: Settings) -> str:
    """Where the server-wide records are, as the log may show it (a database URL without its password)."""
    from gamenight.records.dialect import shown_url

    return shown_url(settings.records_url) if settings.records_url else str(settings.data_dir / "records.sqlite3")


def _tables_shown(settings: Settings) -> str:
    """Where the shared tables are: ``local`` (this process, the data dir) or the Redis, without its password."""
    if settings.tables_url is None:
        return "local"
    from gamenight.tables.redis_store import _without_password

    return _without_password(settings.tables_url)


def check_tables_url(url: str) -> str | None:
    """Why the Redis at ``url`` cannot hold the tables (one line), or ``None`` when it can."""
    from gamenight.tables.redis_store import RedisTableStore, StoreError

    async def probe() -> None:
        store = RedisTableStore.connect(url, timeout=5.0)
        try:
            await store.ping()
        finally:
            await store.close()

    try:
        asyncio.run(probe())
    except (StoreError, ValueError) as error:
        return _redacted(" ".join(str(error).split()), url)
    return None


def _redacted(text: str, url: str) -> str:
    """``text`` (an error about ``url``) without any piece of the URL's password or query.

    redis-py's own errors about a URL it cannot parse quote a piece of it: a password holding a
    ``/`` makes ``Port could not be cast to integer value as 'PART'``.  Every run of 3 or more
    characters between the separators of the URL's user part and of its query's values is taken
    out."""
    rest = url.partition("://")[2]
    secret = rest.rsplit("@", 1)[0] if "@" in rest else ""
    for pair in rest.partition("?")[2].split("&"):
        secret += " " + pair.partition("=")[2]
    for piece in sorted(set(re.split(r"[:/@?&=#\s]+", secret)), key=len, reverse=True):
        if len(piece) >= 3:
            text = text.replace(piece, "***")
    return text


def check_records_url(url: str) -> str | None:
    """Why the records database at ``url`` cannot be used (one line), or ``None`` when it can.

    Opening it runs its migrations, so every host that starts finds it at the current schema.
    """
    from gamenight.records.backends import open_records
    from gamenight.records.store import RecordsUnavailable

    try:
        open_records(url).close()
    except RecordsUnavailable as error:
        return " ".join(str(error).split())
    return None


def main(argv: list[str]) -> int:
    """Entry point of ``gamenight serve-ssh``; returns the exit status."""
    options = parser()
    try:
        settings = settings_from_args(options, options.parse_args(argv))
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    if settings.records_url is not None and settings.tables:
        problem = check_records_url(settings.records_url)
        if problem is not None:
            print(_("gamenight serve-ssh: {error}", error=problem), file=sys.stderr)
            return 2
    if settings.tables_url is not None and settings.tables:
        problem = check_tables_url(settings.tables_url)
        if problem is not None:
            print(_("gamenight serve-ssh: {error}", error=problem), file=sys.stderr)
            return 2
    log = EventLog(sys.stderr)
    try:
        asyncio.run(serve(settings, log))
    except (OSError, ValueError) as error:
        log("error", what="startup", detail=str(error))
        print(_("gamenight serve-ssh: {error}", error=error), file=sys.stderr)
        return 1
    return 0
