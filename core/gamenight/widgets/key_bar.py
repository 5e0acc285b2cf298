"""A one-line key bar: the screen's keys, drawn by one widget.

It does what Textual's ``Footer`` does for us -- shows the active bindings that
have ``show=True`` (one entry per action), dims the disabled ones, puts the
command palette's key at the right edge, and a click on an entry presses its
key -- but it draws the whole line itself instead of mounting a widget per
key.  Textual's ``Footer`` re-mounts and restyles a ``FooterKey`` for every
binding each time the bindings change, which was the largest single cost of
the lobby's first frame (about 0.2 s of a cold start); this bar only repaints.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from gamenight.i18n import gettext

__all__ = ["KeyBar"]


class _Entry(NamedTuple):
    key: str
    """The key to press (the binding's first key)."""
    start: int
    end: int
    """Cell columns the entry covers, ``start`` inclusive, ``end`` exclusive."""
    enabled: bool


class KeyBar(Widget, can_focus=False):
    """The bottom line of keys of the screen it is on."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description", "key-bar--hover"}

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .key-bar--description {
            color: $footer-description-foreground; background: $footer-description-background;
        }
        & > .key-bar--hover { background: $block-hover-background; }
    }
    """

    def __init__(self, *, show_command_palette: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.show_command_palette = show_command_palette
        self._entries: list[_Entry] = []
        self._hover: str | None = None
        """The key of the entry under the mouse."""
        self._drawn: object = None
        """What the last render showed (:meth:`_items`), so an unchanged set of keys is not drawn again."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        # A shared table refreshes its bindings on every move (the host's start key may come or go);
        # redrawing an unchanged bar cost each room a few ms a move, and a frame over SSH.
        if self.is_attached and screen is self.screen and self._items() != self._drawn:
            self.refresh()

    def _items(self) -> tuple[list[tuple[str, str, str, bool]], tuple[str, str, str, bool] | None]:
        """(key, key shown, description, enabled) per action; the palette's entry apart."""
        active = self.screen.active_bindings
        palette_key = self.app.COMMAND_PALETTE_BINDING
        items: dict[str, tuple[str, str, str, bool]] = {}
        for key, (_node, binding, enabled, _tooltip) in active.items():
            if not binding.show or binding.action in items or key == palette_key:
                continue
            # A Textual widget's own binding (a Select's "Dismiss menu") is translated here; the
            # room's and the games' labels are translated already and pass through unchanged.
            items[binding.action] = (key, self.app.get_key_display(binding), gettext(binding.description), enabled)
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette_key in active:
            _node, binding, enabled, _tooltip = active[palette_key]
            # Textual's own binding: its label ("palette") is translated here.
            palette = (palette_key, self.app.get_key_display(binding), gettext(binding.description), enabled)
        return list(items.values()), palette

    def render(self) -> Text:
        items, palette = self._drawn = self._items()
        width = self.size.width
        line, entries, fits = self._layout(items, palette, width, compact=False)
        if not fits:
            # Too long for the line (the hosted English lobby at 80 columns): one space between
            # entries instead of two, and then whole entries dropped from the right -- never a
            # label cut in the middle ("q Qu").
            line, entries, _fits = self._layout(items, palette, width, compact=True)
        self._entries = entries
        return line

    def _layout(
        self,
        items: list[tuple[str, str, str, bool]],
        palette: tuple[str, str, str, bool] | None,
        width: int,
        *,
        compact: bool,
    ) -> tuple[Text, list[_Entry], bool]:
        """The line, its entries, and whether every label is whole on it."""
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        description_style = self.get_component_rich_style("key-bar--description", partial=True)
        hover_style = self.get_component_rich_style("key-bar--hover", partial=True)
        line = Text(no_wrap=True, overflow="crop", end="")
        entries: list[_Entry] = []

        def add(text: Text, item: tuple[str, str, str, bool]) -> None:
            key, shown, description, enabled = item
            label = (description if compact else f"{description} ") if description else ""
            entry = Text.assemble((f" {shown} ", key_style), (label, description_style))
            if not enabled:
                entry.stylize("dim")
            if key == self._hover:
                entry.stylize(hover_style)
            start = cell_len(text.plain)
            entries.append(_Entry(key, start, start + entry.cell_len, enabled))
            text.append_text(entry)

        for item in items:
            add(line, item)
        room = width
        tail = None
        if palette is not None:
            tail = Text(end="")
            add(tail, palette)
            room = width - tail.cell_len
        # The last label's trailing space may go: the palette's entry starts with a space of its own.
        fits = line.cell_len - (1 if items and items[-1][2] and not compact else 0) <= room
        if line.cell_len > room:
            kept = [entry for entry in entries[: len(items)] if entry.end <= room or (fits and not compact)]
            end = min(kept[-1].end, room) if kept else 0
            line.truncate(end, overflow="crop")
            entries = kept + entries[len(items) :]
        if tail is not None:
            line.pad_right(max(room - line.cell_len, 0))
            offset = line.cell_len
            last = entries[-1]
            entries[-1] = last._replace(start=offset, end=offset + tail.cell_len)
            line.append_text(tail)
        return line, entries, fits

    def _entry_at(self, x: int) -> _Entry | None:
        for entry in self._entries:
            if entry.start <= x < entry.end:
                return entry
        return None

    def on_click(self, event: events.Click) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        event.stop()
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._entry_at(event.x)
        hover = entry.key if entry is not None else None
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()
