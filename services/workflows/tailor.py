"""Tailoring: ask a provider to adapt a template to a task, and keep the template when that goes wrong.

The provider works read-only through the kernel's dispatcher. Its script is validated like any
other; a failure, a timeout, an answer that is not the JSON asked for, or an invalid script leaves
the deterministic template in place, and the answer says why.
"""

from __future__ import annotations

from pathlib import Path

from kernel.errors import PalliumError
from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch
from services.workflows.models import Tailoring
from services.workflows.sources import MAX_SCRIPT_BYTES
from services.workflows.validate import validate_source

__all__ = ["SCHEMA", "tailor"]

SCHEMA = {
    "type": "object",
    "properties": {"script": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["script"],
}
_PROMPT = """Adapt this Pallium workflow template to the task below. It is async JavaScript run in a sandbox.
Keep `export const meta = {{...}}` a pure literal (name, description, phases). Use only the host API the
template uses (agent, parallel, pipeline, phase, log, check, verify.untilGreen, gate, workflow, pallium.*,
budget, args); no require/import, timers, Date.now(), Math.random() or argless new Date(). The script
receives args = {{task, files, test_command}} and returns a JSON value. Make the prompts and phases fit the
task; keep the plan's checks and gates.

Task: {task}
Style: {style}

Template:
```js
{template}
```

Reply with a JSON object only: {{"script": "<the whole adapted script>", "summary": "<one line: what changed>"}}"""


async def tailor(
    template: str,
    *,
    task: str,
    style: str,
    cwd: Path,
    provider: str | None,
    model: str | None,
    timeout: float,
) -> tuple[str, Tailoring]:
    """The tailored script and how it went, or the template itself and why it was kept."""
    request = ProviderRequest(
        prompt=_PROMPT.format(task=task, style=style, template=template),
        cwd=cwd,
        mode="read-only",
        provider=provider,
        model=model,
        schema=SCHEMA,
        timeout=timeout,
        network=False,
        label="tailor",
    )
    try:
        result = await dispatch(request)
    except PalliumError as exc:
        return template, Tailoring(tailored=False, provider=provider, reason=f"kept the template: {exc.message}")
    cost = result.usage.cost_usd

    def kept(why: str) -> tuple[str, Tailoring]:
        return template, Tailoring(
            tailored=False, provider=result.provider, reason=f"kept the template: {why}", cost_usd=cost
        )

    if result.failure is not None:
        failure = result.failure
        if failure.error_class == "timeout":
            return kept(f"the provider gave no answer within {timeout:g}s")
        if failure.error_class == "schema":
            return kept(f"the provider's answer was not the JSON asked for ({failure.message[:200]})")
        return kept(f"the provider failed ({failure.error_class}): {failure.message[:200]}")
    script = str(result.output["script"])
    if not script.strip():
        return kept("the provider returned an empty script")
    if len(script.encode("utf-8")) > MAX_SCRIPT_BYTES:
        return kept(f"the provider's script is over {MAX_SCRIPT_BYTES} bytes")
    checked = await validate_source(script)
    if not checked.valid:
        return kept(f"the provider's script is not valid: {checked.errors[0]}")
    summary = str(result.output.get("summary") or "").strip()[:300]
    reason = "tailored to the task" + (f": {summary}" if summary else "")
    return script, Tailoring(tailored=True, provider=result.provider, reason=reason, cost_usd=cost)
