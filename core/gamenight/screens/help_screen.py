"""A game's rules, rendered from its Markdown in the current language."""

from __future__ import annotations

from rich.cells import cell_len
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


def join_wide_lines(markdown: str) -> str:
    """Join a paragraph's source lines where both sides of the break are wide (CJK) characters.

    Markdown turns a line break inside a paragraph into a space, and the
    renderer wraps only at spaces, so a Japanese paragraph written in short
    source lines came out as ragged short lines with stray gaps.  Joined, the
    text flows to the full width.  Headings, tables, list markers, quotes and
    code blocks are left alone; lines broken beside a Latin word stay broken.
    A list item's indented continuation line joins it too ("障害が" + "  乗っていない"
    used to read "障害が 乗っていない"), as does a line ending or starting in bold.
    """
    lines: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            lines.append(line)
            continue
        previous = lines[-1] if lines else ""
        tail = previous.rstrip("*_")
        head = line.lstrip(" ").lstrip("*_")
        if (
            not fenced
            and tail
            and head
            and cell_len(tail[-1]) == 2
            and cell_len(head[0]) == 2
            and not previous.lstrip().startswith(("#", "|"))
        ):
            lines[-1] = previous + line.lstrip(" ")
        else:
            lines.append(line)
    return "\n".join(lines)


class HelpScreen(Screen):
    """Scrollable rules; Escape, q or F1 closes it."""

    BINDINGS = [
        Binding("escape,q,f1", "app.pop_screen", _("Close")),
    ]

    DEFAULT_CSS = """
    HelpScreen #help-title { dock: top; height: 1; background: $primary; color: $text; padding: 0 1; }
    HelpScreen MarkdownViewer { height: 1fr; }
    HelpScreen MarkdownTableContent > .header { color: $markdown-h3-color; }  /* Textual's $primary: too dark */
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
        yield MarkdownViewer(join_wide_lines(text), show_table_of_contents=False)
        yield KeyBar()
