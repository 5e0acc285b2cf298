"""Records of finished games, ratings, and the figures shown from them (no Textual here).

:mod:`gamenight.records.store` keeps the games in SQLite, :mod:`gamenight.records.ratings`
rates the players with openskill, :mod:`gamenight.records.stats` computes the figures
that ``gamenight records`` and the records screen show.
"""
