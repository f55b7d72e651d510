"""Provider dispatch: one dispatcher spawns every worker (claude, codex, command wrappers, fake) or calls openai."""
