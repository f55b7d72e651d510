"""Pallium's front door: the tool registry, the MCP adapter, the CLI adapter and rendering."""
