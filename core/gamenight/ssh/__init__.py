"""SSH hosting of the game room (``gamenight serve-ssh``); see :mod:`gamenight.ssh.server`."""
