"""What a provider call is asked and what it answers: the request, the result, usage and failures.

Failures are classified where they arise (the dialect that reads a CLI's output, the process runner
that saw a timeout), so nothing later has to guess from message text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "ERROR_CLASSES",
    "MODES",
    "ErrorClass",
    "Failure",
    "Mode",
    "ProviderRequest",
    "ProviderResult",
    "Usage",
]

Mode = Literal["read-only", "edit", "test", "check"]
MODES: tuple[str, ...] = ("read-only", "edit", "test", "check")

ErrorClass = Literal["auth", "quota", "rate_limit", "timeout", "crash", "schema", "not_configured", "unknown"]
ERROR_CLASSES: tuple[str, ...] = (
    "auth",
    "quota",
    "rate_limit",
    "timeout",
    "crash",
    "schema",
    "not_configured",
    "unknown",
)

DEFAULT_TIMEOUT_SECONDS = 600.0


@dataclass(frozen=True)
class ProviderRequest:
    """One worker call. `provider=None` means "resolve it" (see `dispatcher.resolve_provider`)."""

    prompt: str
    cwd: Path
    mode: Mode = "read-only"
    provider: str | None = None
    model: str | None = None
    schema: dict[str, Any] | None = None
    timeout: float | None = DEFAULT_TIMEOUT_SECONDS  # seconds; None or 0 waits forever
    network: bool = False
    resume_session: str | None = None  # a native session to continue (claude uuid, codex thread id, wrapper token)
    new_session: str | None = None  # claude: the uuid to start a first turn under (`--session-id`)
    # wrappers: a session file of the caller's that outlives the call (else one in the call's scratch
    # folder): a token the wrapper wrote before it was killed is there for the next call to resume
    session_file: Path | None = None
    run_id: str = ""
    agent_id: str = ""
    label: str = ""

    @property
    def is_edit(self) -> bool:
        return self.mode != "read-only"


@dataclass(frozen=True)
class Usage:
    """Tokens and money for one call; None means the provider did not say (shown as `unknown`, never 0)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "cost_usd": self.cost_usd}

    @property
    def cost_text(self) -> str:
        return "unknown" if self.cost_usd is None else f"${self.cost_usd:.4f}"


@dataclass(frozen=True)
class Failure:
    """Why a call failed: a class to act on, and the provider's own words (redacted, truncated)."""

    error_class: ErrorClass
    message: str
    reason: str | None = None  # a finer, stable cause where one is known: `session_not_found`, `missing_binary`

    def to_dict(self) -> dict[str, str | None]:
        return {"error_class": self.error_class, "message": self.message, "reason": self.reason}


@dataclass(frozen=True)
class ProviderResult:
    """A finished call. `ok` is false exactly when `failure` is set."""

    provider: str
    text: str = ""
    output: Any = None  # the parsed JSON when the text is JSON (validated when the request had a schema)
    usage: Usage = field(default_factory=Usage)
    session_id: str | None = None
    duration_ms: int = 0
    failure: Failure | None = None
    exit_code: int | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "text": self.text,
            "output": self.output,
            "usage": self.usage.to_dict(),
            "session_id": self.session_id,
            "duration_ms": self.duration_ms,
            "failure": self.failure.to_dict() if self.failure else None,
            "exit_code": self.exit_code,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProviderResult:
        failure = data.get("failure")
        return cls(
            provider=data["provider"],
            text=data.get("text", ""),
            output=data.get("output"),
            usage=Usage(**data.get("usage", {})),
            session_id=data.get("session_id"),
            duration_ms=data.get("duration_ms", 0),
            failure=Failure(failure["error_class"], failure["message"], failure.get("reason")) if failure else None,
            exit_code=data.get("exit_code"),
        )
