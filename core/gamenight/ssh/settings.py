"""What ``serve-ssh`` is started with: the options, their defaults and their validation."""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from gamenight.ssh.messages import _
from gamenight.text import public_host

__all__ = ["ROOM_MEMORY", "URL_VARIABLES", "Settings", "UsageError", "parser", "settings_from_args"]

ROOM_MEMORY = 1024
"""Default cap on each room's address space in MiB (``RLIMIT_AS``); an idle room uses about 200."""


@dataclass
class Settings:
    """Everything ``serve-ssh`` was started with."""

    host: str
    port: int
    data_dir: Path
    authorized_keys: Path | None
    guest: bool
    max_sessions: int = 64
    max_new_per_minute: int = 20
    idle_timeout: float = 1800.0
    login_timeout: float = 10.0
    max_pending: int = 32
    """Connections still logging in, counted apart from ``max_sessions``."""
    max_per_address: int = 10
    """Connections (logging in or logged in) from one address."""
    max_per_user: int = 3
    """Logged-in connections of one user (key, or guest name)."""
    grace: float = 5.0
    guest_expiry_days: float = 30.0
    """Guest folders unused for this many days are deleted (0: kept for ever)."""
    max_new_guests_per_hour: int = 10
    """New guest names one address may bind in any hour (``--guest``): the guest book cannot be
    filled from a few addresses, which would keep every newcomer out until the names expire."""
    room_memory: int = ROOM_MEMORY
    """Cap on each room's address space in MiB (0: none)."""
    command: list[str] | None = None
    sandbox: str = "auto"
    """``auto`` (isolate each room if this system allows it), ``on`` (required) or ``off``."""
    isolated: bool = False
    """Whether rooms are isolated in this run (decided at start-up)."""
    room_user: str | None = None
    """``--room-user``: who rooms run as when the server is root (``None``: ``nobody``)."""
    room_uid: int = field(default_factory=os.geteuid)
    room_gid: int = field(default_factory=os.getegid)
    """The rooms' uid and gid in this run (decided at start-up; the server's own unless it is root)."""
    room_needs: list[str] = field(default_factory=list)
    """Folders rooms run as another user need (Python, its packages), for the sandbox to put back."""
    tables: bool = True
    """Whether the server runs the shared tables' service and connects every room to it."""
    template: str = "auto"
    """``auto`` (fork rooms from a pre-loaded template if it works here), ``on`` (required) or ``off``."""
    ksm: bool = False
    """Whether forked rooms opt in to the kernel's same-page merging (KSM; the host must run it)."""
    away_timeout: float = 300.0
    """Seconds a shared table's seat waits for a player whose connection dropped, then the bot plays it."""
    records_url: str | None = None
    """``--records-url``: the PostgreSQL database of the server-wide records and hall of fame
    (``postgresql://USER@HOST:PORT/DB``); ``None``: ``DATA_DIR/records.sqlite3``."""
    tables_url: str | None = None
    """``--tables-url``: the Redis that holds the shared tables (``redis://HOST:6379/0``), shared by every
    host of one game room; ``None``: the tables live in this process and under the data dir."""
    public_host: str | None = None
    """``--public-host``: the address players reach the server at (``HOST`` or ``HOST:PORT``), for the
    command a new guest is shown to come back with; ``None``: the notice says it in words."""


URL_VARIABLES = {"records_url": "GAMENIGHT_RECORDS_URL", "tables_url": "GAMENIGHT_TABLES_URL"}
"""The environment variables ``--records-url`` and ``--tables-url`` are read from when not given:
a URL holding a password stays out of the command line, which ``ps`` shows to every local user
(the environment of a process only to its own user and root)."""

TABLES_URL_SCHEMES = ("redis://", "rediss://", "unix://")
"""What ``--tables-url`` may name: Redis over TCP, over TLS, or on a Unix socket."""


class UsageError(Exception):
    """The command line cannot start a server; the text says why (exit status 2)."""


def _number_options() -> list[tuple[str, type, str, str]]:
    """The numeric options: name, type, metavar and help, in the order ``--help`` shows them."""
    return [
        ("max_sessions", int, "N", _("most logged-in connections at once (default %(default)s)")),
        (
            "max_pending",
            int,
            "N",
            _("most connections still logging in at once, apart from the sessions (default %(default)s)"),
        ),
        ("max_per_address", int, "N", _("most connections at once from one address (default %(default)s)")),
        (
            "max_per_user",
            int,
            "N",
            _("most sessions at once of one user: a key, or a guest name (default %(default)s)"),
        ),
        (
            "login_timeout",
            float,
            "SECONDS",
            _("close a connection that has not logged in after this many seconds (default %(default)s)"),
        ),
        ("max_new_per_minute", int, "N", _("most new connections per minute from one address (default %(default)s)")),
        (
            "max_new_guests_per_hour",
            int,
            "N",
            _("with --guest: most new guest names one address may take per hour (default %(default)s)"),
        ),
        (
            "idle_timeout",
            float,
            "SECONDS",
            _("disconnect after this many seconds without input (default %(default)s; 0 = never)"),
        ),
        (
            "away_timeout",
            float,
            "SECONDS",
            _(
                "a shared table's seat waits this many seconds for a player whose connection dropped, "
                "then the table's bot plays it until the player returns (default %(default)s)"
            ),
        ),
        (
            "guest_expiry_days",
            float,
            "DAYS",
            _("delete a guest's saves and settings after this many days unused (default %(default)s; 0 = never)"),
        ),
        (
            "room_memory",
            int,
            "MIB",
            _(
                "cap each room's address space at this many MiB; a room that needs more ends, "
                "its autosave kept (default %(default)s; 0 = no cap)"
            ),
        ),
    ]


COUNT_OPTIONS = (
    "max_sessions",
    "max_pending",
    "max_per_address",
    "max_per_user",
    "max_new_per_minute",
    "max_new_guests_per_hour",
)
"""Options that must be at least 1."""


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def parser() -> argparse.ArgumentParser:
    """The command line of ``gamenight serve-ssh`` (defaults from :class:`Settings`)."""
    parser = argparse.ArgumentParser(
        prog="gamenight serve-ssh",
        description=_("Host the game room over SSH: every connection gets its own room in a terminal."),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", metavar="ADDRESS", help=_("address to listen on (default %(default)s)")
    )
    parser.add_argument(
        "--port", type=int, default=2222, metavar="PORT", help=_("port to listen on (default %(default)s)")
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=_("host key and per-user saves and settings (default: the user data dir)"),
    )
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help=_("admit the public keys in FILE (OpenSSH authorized_keys format)"),
    )
    auth.add_argument(
        "--guest",
        action="store_true",
        help=_("admit anyone, without a password; a name belongs to the first key (or code) it is used with"),
    )
    for name, kind, metavar, text in _number_options():
        parser.add_argument(_option(name), type=kind, default=getattr(Settings, name), metavar=metavar, help=text)
    parser.add_argument(
        "--sandbox",
        choices=("auto", "on", "off"),
        default="auto",
        help=_(
            "run each room in a sandbox: only its user's folder of the data dir visible, no network, "
            "no other terminal, no capability (namespaces, seccomp): auto = when the system allows it "
            "(default); off = trusted players only (as root: with --room-user root only)"
        ),
    )
    parser.add_argument(
        "--room-user",
        metavar="USER",
        default=None,
        help=_("when the server runs as root: the unprivileged user rooms run as (default: nobody)"),
    )
    parser.add_argument(
        "--tables",
        choices=("on", "off"),
        default="on",
        help=_("shared tables: rooms on this server can sit at one table together (default %(default)s)"),
    )
    parser.add_argument(
        "--template",
        choices=("auto", "on", "off"),
        default="auto",
        help=_(
            "fork each room from one pre-loaded room process (a first frame in a blink, memory shared); "
            "off = start a fresh Python for each room; auto = when it works here (default)"
        ),
    )
    parser.add_argument(
        "--ksm",
        choices=("on", "off"),
        default="off",
        help=_(
            "let the kernel merge forked rooms' identical memory pages (KSM, when the host runs it; "
            "see docs/hosting.md for what it saves and its side channel) (default %(default)s)"
        ),
    )
    parser.add_argument(
        "--records-url",
        metavar="URL",
        default=None,
        help=_(
            "keep the server-wide records and hall of fame in this PostgreSQL database "
            "(postgresql://USER@HOST:PORT/DB; several servers may share it) instead of the data dir's "
            "records.sqlite3; it must be reachable at start; default: $GAMENIGHT_RECORDS_URL"
        ),
    )
    parser.add_argument(
        "--tables-url",
        metavar="URL",
        default=None,
        help=_(
            "keep the shared tables in this Redis (redis://HOST:6379/0, rediss:// for TLS, unix:///PATH): "
            "every server started with the same one runs one game room, each table on one of them at a time; "
            "default: $GAMENIGHT_TABLES_URL, which keeps a password out of ps"
        ),
    )
    parser.add_argument(
        "--public-host",
        metavar="HOST[:PORT]",
        default=None,
        help=_(
            "the address players connect to (a host name, with :PORT when it is not 22): a new guest "
            "without a key is shown the whole command to come back (ssh NAME+CODE@HOST); default: "
            "the notice says to log in as before, with the new user name"
        ),
    )
    parser.add_argument("--command", help=argparse.SUPPRESS)
    parser.add_argument("--grace", type=float, default=Settings.grace, help=argparse.SUPPRESS)
    return parser


def settings_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> Settings:
    """Check the parsed options and make the :class:`Settings`.

    ``--records-url`` and ``--tables-url`` not given are read from ``environ`` (the process's
    environment by default): :data:`URL_VARIABLES`; an empty variable counts as unset.

    Raises :class:`UsageError` when nobody could connect; an option out of range ends the
    program through ``parser.error`` (exit status 2), as argparse does for its own checks.
    """
    if not args.guest and args.authorized_keys is None:
        raise UsageError(
            _(
                "gamenight serve-ssh: choose who may connect: --authorized-keys FILE (public keys) "
                "or --guest (anyone, no password)."
            )
        )
    if args.authorized_keys is not None and not args.authorized_keys.is_file():
        raise UsageError(_("gamenight serve-ssh: no authorized keys file at {path}.", path=args.authorized_keys))
    for name in COUNT_OPTIONS:
        if getattr(args, name) < 1:
            parser.error(_("--{option} must be at least 1", option=name.replace("_", "-")))
    environ = os.environ if environ is None else environ
    for name, variable in URL_VARIABLES.items():
        if getattr(args, name) is None and environ.get(variable):
            setattr(args, name, environ[variable])
    if args.login_timeout <= 0:
        parser.error(_("--{option} must be at least 1", option="login-timeout"))
    if args.away_timeout < 0:
        parser.error(_("--{option} must be at least 0", option="away-timeout"))
    if args.records_url is not None:
        if not args.records_url.lower().startswith(("postgresql://", "postgres://")):
            parser.error(_("--records-url must be a postgresql:// URL"))
        if args.tables == "off":
            parser.error(_("--records-url keeps the shared tables' records: it needs --tables on"))
    if args.tables_url is not None:
        if not args.tables_url.lower().startswith(TABLES_URL_SCHEMES) or len(args.tables_url) > 2048:
            parser.error(_("--tables-url must be a redis://, rediss:// or unix:// URL"))
        if args.tables == "off":
            parser.error(_("--tables-url keeps the shared tables: it needs --tables on"))
    if args.public_host is not None and not public_host(args.public_host):
        parser.error(_("--public-host must be a host name or address, with :PORT if it is not 22"))
    data_dir = args.data_dir or Path(platformdirs.user_data_dir("gamenight")) / "ssh"
    return Settings(
        host=args.host,
        port=args.port,
        data_dir=data_dir.resolve(),
        authorized_keys=args.authorized_keys,
        guest=args.guest,
        max_sessions=args.max_sessions,
        max_new_per_minute=args.max_new_per_minute,
        max_new_guests_per_hour=args.max_new_guests_per_hour,
        max_pending=args.max_pending,
        max_per_address=args.max_per_address,
        max_per_user=args.max_per_user,
        login_timeout=args.login_timeout,
        guest_expiry_days=args.guest_expiry_days,
        idle_timeout=args.idle_timeout,
        grace=args.grace,
        sandbox=args.sandbox,
        room_user=args.room_user,
        room_memory=args.room_memory,
        tables=args.tables == "on",
        template=args.template,
        ksm=args.ksm == "on",
        away_timeout=args.away_timeout,
        records_url=args.records_url,
        tables_url=args.tables_url,
        public_host=args.public_host.strip() if args.public_host else None,
        command=shlex.split(args.command) if args.command else None,
    )
