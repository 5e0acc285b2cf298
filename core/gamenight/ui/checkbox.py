"""A checkbox whose box is empty when it is off.

Textual's ``Checkbox`` draws an ``X`` in both states and tells them apart by colour only;
under a 16-colour theme, and for anyone who cannot tell the two colours apart, an unticked
box looked ticked.  This one draws the ``X`` only when it is on.
"""

from __future__ import annotations

from textual.widgets import Checkbox as TextualCheckbox

__all__ = ["Checkbox"]


class Checkbox(TextualCheckbox):
    """``Checkbox`` with an ``X`` when on and a blank when off."""

    @property
    # Textual's BUTTON_INNER is a class attribute: a property in its place is what mypy refuses here.
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "X" if self.value else " "
