"""``python -m gamenight.ssh ARGS`` is ``gamenight serve-ssh ARGS``."""

import sys

from gamenight.ssh.server import main

raise SystemExit(main(sys.argv[1:]))
