"""One extension per feature; `bot.discord_ui.client.EXTENSIONS` lists those loaded."""
