"""Modal dialogs shared by every screen: yes/no, messages, results."""

from gamenight.dialogs.message_dialog import MessageDialog
from gamenight.dialogs.result_dialog import ResultDialog, ResultTable
from gamenight.dialogs.text_prompt import TextPrompt
from gamenight.dialogs.yes_no_dialog import YesNoDialog

__all__ = ["MessageDialog", "ResultDialog", "ResultTable", "TextPrompt", "YesNoDialog"]
