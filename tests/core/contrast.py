"""WCAG contrast of what a screen actually shows: every text segment's colour on its background.

The colours are read from the composited screen (Textual has already resolved
the theme's variables, alpha and ``auto`` colours), so the check covers every
pair a screen uses -- title bars, buttons, selected rows, dim text, errors,
notifications -- without a list to keep up to date.  ANSI colours (the
16-colour theme, Rich styles like ``red``) are looked up in a terminal
palette; ``dim`` text is taken at half intensity, as terminals draw it.
"""

from __future__ import annotations

from typing import Any

from rich.color import Color as RichColor
from rich.color import ColorType
from rich.segment import Segment
from rich.terminal_theme import TerminalTheme

AA = 4.5
"""WCAG 2 level AA for normal text."""

TANGO = TerminalTheme(
    (0, 0, 0),
    (255, 255, 255),
    [
        (0x2E, 0x34, 0x36),
        (0xCC, 0, 0),
        (0x4E, 0x9A, 0x06),
        (0xC4, 0xA0, 0),
        (0x34, 0x65, 0xA4),
        (0x75, 0x50, 0x7B),
        (0x06, 0x98, 0x9A),
        (0xD3, 0xD7, 0xCF),
    ],
    [
        (0x55, 0x57, 0x53),
        (0xEF, 0x29, 0x29),
        (0x8A, 0xE2, 0x34),
        (0xFC, 0xE9, 0x4F),
        (0x72, 0x9F, 0xCF),
        (0xAD, 0x7F, 0xA8),
        (0x34, 0xE2, 0xE2),
        (0xEE, 0xEE, 0xEC),
    ],
)
"""xterm.js's default palette (the browser, ``textual serve``) and GNOME Terminal's Tango."""

XTERM = TerminalTheme(
    (0, 0, 0),
    (255, 255, 255),
    [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229)],
    [
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ],
)
"""xterm's 16 colours, white on black (a plain terminal over SSH)."""


def luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb(color: RichColor | None, palette: TerminalTheme, foreground: bool) -> tuple[int, int, int]:
    if color is None or color.type == ColorType.DEFAULT:
        triplet = palette.foreground_color if foreground else palette.background_color
    else:
        triplet = color.get_truecolor(palette, foreground=foreground)
    return (triplet.red, triplet.green, triplet.blue)


def blend(a: tuple[int, int, int], b: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * amount) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def screen_segments(app: Any) -> list[list[Segment]]:
    """The lines of the whole screen as composited (dialogs, what they dim, notifications)."""
    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, legacy_windows=False, safe_box=False, color_system="truecolor")
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return list(Segment.split_lines(console.render(update, console.options)))


_NON_TEXT = [(0x2500, 0x25FF), (0x2800, 0x28FF), (0xE000, 0xF8FF)]
"""Box drawing, block elements and geometric shapes (borders, the tall buttons' edges, arrows), braille and
private use: drawn shapes, not text -- WCAG asks 3:1 of them, not 4.5:1."""


def is_text(text: str) -> bool:
    return any(not ch.isspace() and not any(lo <= ord(ch) <= hi for lo, hi in _NON_TEXT) for ch in text)


INACTIVE_CLASSES = frozenset({"spent"})
"""Classes that mark a control inactive by design (LITS's used-up piece chips)."""


def exempt_cells(app: Any) -> set[tuple[int, int]]:
    """Cells WCAG 1.4.3 exempts: inactive controls (disabled, or marked so), and an unchecked box's
    "X", drawn faint on purpose as the off state."""
    from textual.widgets._toggle_button import ToggleButton

    cells = set()
    for screen in [*app._background_screens, app.screen]:
        for widget in screen.query("*"):
            region = widget.region
            if widget.disabled or INACTIVE_CLASSES & set(widget.classes):
                cells |= {(x, y) for x in range(region.x, region.right) for y in range(region.y, region.bottom)}
            elif isinstance(widget, ToggleButton) and not widget.value:
                cells |= {(x, region.y + row) for x in range(region.x, region.x + 4) for row in range(region.height)}
    return cells


def dialog_cells(app: Any) -> set[tuple[int, int]] | None:
    """The cells a modal screen draws itself (what it dims behind it is not meant to be read), or ``None``."""
    from textual.screen import ModalScreen

    screen = app.screen
    if not isinstance(screen, ModalScreen) or getattr(screen, "looking", False):
        return None
    cells = set()
    for widget in screen.query("*"):
        if widget.styles.background.a == 0:  # a transparent layer (the notifications' rack) over the dimmed screen
            continue
        region = widget.region
        cells |= {(x, y) for x in range(region.x, region.right) for y in range(region.y, region.bottom)}
    return cells


def low_contrast_text(app: Any, palette: TerminalTheme, minimum: float = AA) -> list[str]:
    """One line per run of text below ``minimum`` on the screen: ``'text' ratio fg on bg``."""
    from rich.cells import cell_len

    skip = exempt_cells(app)
    only = dialog_cells(app)
    found: dict[tuple[str, str, str], str] = {}
    for y, line in enumerate(screen_segments(app)):
        x = 0
        for segment in line:
            if segment.control:  # the cursor move to the start of the line
                continue
            start, x = x, x + cell_len(segment.text)
            if segment.style is None or not is_text(segment.text):
                continue
            if (start, y) in skip or (only is not None and (start, y) not in only):
                continue
            style = segment.style
            fg = rgb(style.color, palette, True)
            bg = rgb(style.bgcolor, palette, False)
            if style.reverse:
                fg, bg = bg, fg
            if style.dim:
                fg = blend(fg, bg, 0.5)
            ratio = contrast(fg, bg)
            if ratio < minimum:
                fg_hex, bg_hex = "#{:02x}{:02x}{:02x}".format(*fg), "#{:02x}{:02x}{:02x}".format(*bg)
                text = segment.text.strip()[:24]
                found.setdefault((fg_hex, bg_hex, text), f"{text!r} {ratio:.2f}:1 ({fg_hex} on {bg_hex})")
    return list(found.values())
