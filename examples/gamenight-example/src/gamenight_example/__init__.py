"""gamenight-example: a third-party gamenight plugin, as a template.

It adds a game (Goofspiel), a theme (``example-dusk``) and a bot for the
built-in Yatzy (``cautious``).  Everything is registered in :mod:`.plugin`,
which the ``gamenight`` entry point in ``pyproject.toml`` names.
"""

__version__ = "1.0.0"
