"""The terminal front end: a game played in the terminal with the same commands, storage and
images as in Discord (``python -m bot --local``)."""
