"""The Textual side of gamenight: the app shell's screens and the game screen base."""
