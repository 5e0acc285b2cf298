"""``python -m gamenight`` runs the ``gamenight`` command."""

import sys

from gamenight.cli import main

sys.exit(main())
