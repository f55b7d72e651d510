"""Agent calls on many machines: a shared queue (Postgres, or SQLite on one machine), the worker that
serves it, and the orchestrator's side that sends a run's calls there. See docs/scale-out.md."""
