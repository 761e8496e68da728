"""Where the games are kept: one interface (``api``) and two backends (``sqlite``, ``postgres``)."""
