"""Mille Bornes for gamenight, after Ken Arnold's BSD ``mille``."""
