"""Isolated edit work: snapshots of the user's tree, detached worktrees recorded in SQLite, patches and gates."""
