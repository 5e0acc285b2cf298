"""An option list whose Return is shown in the key bar as "Choose" (a chooser dialog's own key)."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import OptionList

from gamenight.i18n import _
from gamenight.ui.bindings import translate_bindings

__all__ = ["ChoiceList"]


class ChoiceList(OptionList):
    """:class:`OptionList` with its Return in the key bar ("⏎ Choose").

    The list's own binding, not a screen's: a screen's priority binding for Return would run before
    the arrow keys typed just ahead of it reached the list (a client sending "↓↓↓⏎" in one write
    chose the first row).
    """

    BINDINGS = [Binding("enter", "select", _("Choose"))]

    def __init__(self, *options: Any, **kwargs: Any) -> None:
        super().__init__(*options, **kwargs)
        translate_bindings(self, _)
