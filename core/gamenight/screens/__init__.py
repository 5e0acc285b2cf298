"""The shell's screens: lobby, setup, settings, help, plugins."""
