"""Mate, Sid Sackson's two-player card problem, as a gamenight plugin."""
