"""The Discord front end (discord.py): the bot, its slash commands and buttons, the delivery of
the outbox to channels and DMs. Nothing here holds a rule; see docs/discord.md."""
