"""What a run is asked and answers per call: the limits, one agent call, and its outcome.

`kernel.execution.Run` runs them; these are the plain values it takes and gives, and how an outcome
is written to (and read back from) the journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import leases
from kernel.budget import DEFAULT_ESTIMATE_USD
from kernel.providers.contract import DEFAULT_TIMEOUT_SECONDS, Mode, ProviderResult, Usage

__all__ = ["AgentCall", "AgentOutcome", "Limits", "finished", "outcome_record", "sum_usage"]


@dataclass(frozen=True)
class Limits:
    budget_usd: float | None = None
    max_agents: int = 1000  # lifetime, across resumes
    concurrency: int = 16
    agent_timeout: float = DEFAULT_TIMEOUT_SECONDS
    estimate_usd: float = DEFAULT_ESTIMATE_USD
    lease_ttl: float = leases.DEFAULT_TTL_SECONDS
    allow_secrets: bool = False  # the logged override of the secret and sensitive-path gates
    # keep the pooled worktrees when the run closes and lend them again when it is opened next (a team's
    # many `team run`s): made once per run, not once per attempt; each is reset and cleaned before use
    reuse_worktrees: bool = False
    # many machines: the shared database whose queue the run's agent calls go to (None: this machine's
    # workers, the default), and the git remote those workers fetch the run's base from (None: `origin`)
    database: str | None = None
    git_remote: str | None = None


@dataclass(frozen=True)
class AgentCall:
    prompt: str
    mode: Mode = "read-only"
    isolation: str = ""  # "worktree" runs a non-edit worker in a throwaway worktree too (its writes are discarded)
    provider: str | None = None
    model: str | None = None
    schema: dict[str, Any] | None = None
    timeout: float | None = None  # seconds; None takes the run's per-agent default, 0 waits forever
    network: bool = False
    label: str = ""
    args_hash: str = ""  # the caller's script arguments, so a rerun with other arguments does not replay
    op: str = "agent"
    schema_retry: bool = True  # a read-only call whose reply fails the schema is asked once more to correct it
    new_session: str | None = None  # start the provider's native session under this id (claude `--session-id`)
    resume_session: str | None = None  # continue this native session (claude `--resume`, codex `resume`, wrappers)
    session_file: Path | None = None  # wrappers: where their session token is kept across calls (see ProviderRequest)

    @property
    def is_edit(self) -> bool:
        """Whether what the worker changes is captured as a patch: only an `edit` call's is."""
        return self.mode == "edit"


@dataclass(frozen=True)
class AgentOutcome:
    call_key: str
    result: ProviderResult
    cached: bool
    # staged | conflicted | blocked | empty | capture_failed | discarded (the worker did not finish); None: no edit
    patch_state: str | None = None
    patch_files: list[str] = field(default_factory=list)
    gate_violations: list[dict[str, str]] = field(default_factory=list)
    # entries this edit worker left beside its worktree (`../name`), in a folder only Pallium writes to;
    # any makes the call fail with reason `outside_write` and blocks its patch. (Changes to the user's
    # tree meanwhile are only recorded, as event `user_tree_changed`: they may be the user's own.)
    outside_writes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result.ok


def finished(result: ProviderResult) -> bool:
    """Whether a worker ran to its end: it succeeded, or only its report failed the schema."""
    return result.failure is None or result.failure.error_class == "schema"


def outcome_record(outcome: AgentOutcome) -> dict[str, Any]:
    return {
        "result": outcome.result.to_dict(),
        "patch_state": outcome.patch_state,
        "patch_files": outcome.patch_files,
        "gate_violations": outcome.gate_violations,
        "outside_writes": outcome.outside_writes,
    }


def sum_usage(first: Usage, second: Usage) -> Usage:
    """Usage of two tries of one call; a part either try did not report stays unknown."""

    def tokens(a: int | None, b: int | None) -> int | None:
        return None if a is None or b is None else a + b

    cost = None if first.cost_usd is None or second.cost_usd is None else first.cost_usd + second.cost_usd
    return Usage(
        tokens(first.input_tokens, second.input_tokens), tokens(first.output_tokens, second.output_tokens), cost
    )
