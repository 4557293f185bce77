"""End-to-end tests: real discord.py processes against the fakediscord emulator."""
