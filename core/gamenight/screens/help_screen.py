"""A game's rules, rendered from its Markdown in the current language."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import MarkdownViewer, Static

from gamenight.i18n import _, get_language, translator
from gamenight.sdk import GameInfo
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar


def help_markdown(game: GameInfo, language: str | None = None) -> str:
    """The game's rules in ``language`` (falling back to English), or a notice."""
    language = language or get_language()
    text = game.help.get(language) or game.help.get("en")
    if text:
        return text
    return _("# {title}\n\nThis game has no rules text.", title=translator(game.id)(game.title))


class HelpScreen(Screen):
    """Scrollable rules; Escape, q or F1 closes it."""

    BINDINGS = [
        Binding("escape,q,f1", "app.pop_screen", _("Close")),
    ]

    DEFAULT_CSS = """
    HelpScreen #help-title { dock: top; height: 1; background: $primary; padding: 0 1; }
    HelpScreen MarkdownViewer { height: 1fr; }
    """

    def __init__(self, game: GameInfo, extra: str = "") -> None:
        super().__init__()
        self.game = game
        self.extra = extra
        translate_bindings(self, _)

    def compose(self) -> ComposeResult:
        yield Static(_("Rules: {title}", title=translator(self.game.id)(self.game.title)), id="help-title")
        text = help_markdown(self.game)
        if self.extra:
            text = f"{text}\n\n{self.extra}"
        yield MarkdownViewer(text, show_table_of_contents=False)
        yield KeyBar()
