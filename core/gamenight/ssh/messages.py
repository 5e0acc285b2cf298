"""Texts of ``serve-ssh``: the operator's in the server's language, a client's in its own."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

from gamenight.i18n import LANGUAGES, detect_language, load_catalogue_file, register_catalogue, translator

__all__ = ["DOMAIN", "client_language", "client_text"]

DOMAIN = "gamenight.ssh"


@cache
def _catalogue(language: str) -> dict[str, str]:
    path = Path(__file__).with_name("locale") / f"{language}.toml"
    return load_catalogue_file(path) if path.exists() else {}


register_catalogue(DOMAIN, {language: _catalogue(language) for language in LANGUAGES if language != "en"})
_ = translator(DOMAIN)


def client_text(language: str, message: str, **values: object) -> str:
    """``message`` translated for one client (the room's global language is not touched)."""
    text = _catalogue(language).get(message, message) if language != "en" else message
    return text.format(**values) if values else text


def client_language(env: Mapping[str, str]) -> str | None:
    """The language the client asked for with ``LANG``/``LC_*``/``LANGUAGE``, if it sent any."""
    wanted = {name: env[name] for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)}
    if not wanted:
        return None
    language = detect_language(environ=wanted)
    return language if language in LANGUAGES else None
