"""One translation function for every user-visible string (English and Japanese).

Message ids are the English texts themselves (as with gettext), with
``str.format`` placeholders: ``_("Seat {number}", number=3)``.  The shell's
catalogue lives in ``gamenight/locale/<lang>.toml``; a game brings its own in
``GameInfo.translations`` and translates with ``translator(game_id)``, which
looks in the game's catalogue first and the shell's second.

The language comes from the config (``[general] language``), else from
``GAMENIGHT_LANG``, ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` or ``LANG``;
anything starting with ``ja`` means Japanese, everything else English.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

__all__ = [
    "LANGUAGES",
    "detect_language",
    "get_language",
    "gettext",
    "message_id",
    "register_catalogue",
    "set_language",
    "translator",
]

LANGUAGES = ("en", "ja")
_LOCALE_DIR = Path(__file__).with_name("locale")
_language = "en"
_sources: dict[str, list[Mapping[str, Mapping[str, str]]]] = {}
"""domain -> the catalogues registered for it, in order (later ones win)."""
_catalogues: dict[str, dict[str, dict[str, str]]] = {}
"""domain -> language -> message id -> text: merged from ``_sources`` when first needed."""


def detect_language(configured: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use: the configured one if valid, else from the environment."""
    if configured:
        code = configured.strip().lower()[:2]
        if code in LANGUAGES:
            return code
    env = os.environ if environ is None else environ
    for variable in ("GAMENIGHT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


def set_language(language: str) -> None:
    """Switch every translation to ``language`` (``"en"`` or ``"ja"``)."""
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"unsupported language {language!r} (supported: {', '.join(LANGUAGES)})")
    _language = language


def get_language() -> str:
    """The current language code."""
    return _language


@cache
def _core_catalogue(language: str) -> dict[str, str]:
    path = _LOCALE_DIR / f"{language}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        return {str(key): str(value) for key, value in tomllib.load(handle).items()}


def register_catalogue(domain: str, catalogues: Mapping[str, Mapping[str, str]]) -> None:
    """Add ``{language: {message id: text}}`` for ``domain`` (a game id).

    Nothing is read here: a language's catalogue is taken from ``catalogues``
    the first time a text of ``domain`` is translated into it, so a lazy
    mapping (:func:`gamenight.sdk.read_translations`) costs nothing in English.
    """
    _sources.setdefault(domain, []).append(catalogues)
    _catalogues.pop(domain, None)


def _domain_catalogue(domain: str, language: str) -> dict[str, str]:
    merged = _catalogues.setdefault(domain, {})
    catalogue = merged.get(language)
    if catalogue is None:
        catalogue = {}
        for source in _sources.get(domain, ()):
            try:
                catalogue.update(source.get(language) or {})
            except (OSError, ValueError):  # an unreadable catalogue file: its texts stay in English
                continue
        merged[language] = catalogue
    return catalogue


def load_catalogue_file(path: Path) -> dict[str, str]:
    """Read a ``<lang>.toml`` catalogue (flat ``"English" = "translation"`` pairs)."""
    with path.open("rb") as handle:
        return {str(key): str(value) for key, value in tomllib.load(handle).items()}


_message_ids: dict[str, str] = {}
"""Each plain translation handed out -> its message id (bounded by the catalogues' size)."""


def gettext(message: str, domain: str | None = None, **values: object) -> str:
    """Translate ``message`` into the current language and fill its placeholders."""
    text = None
    if _language != "en":
        if domain is not None:
            text = _domain_catalogue(domain, _language).get(message)
        if text is None:
            text = _core_catalogue(_language).get(message)
        if text is not None and not values:
            _message_ids[text] = message
    if text is None:
        text = message
    return text.format(**values) if values else text


def message_id(text: str) -> str:
    """The message id of ``text`` if it is a translation handed out earlier, else ``text``.

    A class's key labels are translated once, when its module is imported: in a room (or a test
    process) that was in Japanese then, they are Japanese.  Translating ``message_id(label)`` gives
    the label in today's language instead of keeping the old one.
    """
    return _message_ids.get(text, text)


def translator(domain: str | None = None) -> Callable[..., str]:
    """A ``_`` function bound to ``domain``: ``_ = translator("yatzy")``."""

    def translate(message: str, **values: object) -> str:
        return gettext(message, domain, **values)

    return translate


_ = translator()
