"""Who a connection is, and where that person's files live.

Nothing the client sends is used raw as a path.  A user's directory name is
derived from the authenticated key (keys mode), or made when a guest name was
bound (guest mode, :mod:`gamenight.ssh.guests`), and only ever contains ``[a-z0-9-]``.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import asyncssh

__all__ = ["guest_user_id", "key_user_id", "load_or_create_host_key", "user_dir"]

_NAME_PART = re.compile(r"[^a-z0-9]+")
_SAFE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
HOST_KEY_NAME = "ssh_host_ed25519_key"


def key_user_id(key: asyncssh.SSHKey) -> str:
    """``k-`` and 32 hex digits of the SHA-256 of the public key blob."""
    return "k-" + hashlib.sha256(key.public_data).hexdigest()[:32]


def guest_user_id(name: str) -> str:
    """``g-<readable part>-<hash>``: a lower-cased ASCII hint plus a hash of the exact name (a
    guest's folder before guest names were bound; now only the first to bind the name gets it).

    Two names that differ in any way (case, accents, punctuation) get different
    ids because the hash covers the raw UTF-8 bytes.
    """
    hint = _NAME_PART.sub("", name.lower())[:16] or "user"
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return f"g-{hint}-{digest}"


def user_dir(data_dir: Path, user_id: str) -> Path:
    """``DATA_DIR/users/<id>`` (created 0700, with ``saves/`` inside)."""
    if not _SAFE_ID.match(user_id):
        raise ValueError(f"not a safe user id: {user_id!r}")
    users = data_dir / "users"
    users.mkdir(mode=0o700, parents=True, exist_ok=True)
    home = users / user_id
    home.mkdir(mode=0o700, exist_ok=True)
    (home / "saves").mkdir(mode=0o700, exist_ok=True)
    return home


def load_or_create_host_key(data_dir: Path) -> tuple[asyncssh.SSHKey, bool]:
    """The server's host key from the data dir, generated (0600) on first start.

    Returns the key and whether it was created now.
    """
    path = data_dir / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path)), False
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.export_private_key())
    fd = os.open(path.with_name(HOST_KEY_NAME + ".pub"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.export_public_key())
    return key, True
