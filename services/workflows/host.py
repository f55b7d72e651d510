"""The host side of a workflow script: what `agent`, `gate`, `log`, `pallium.*` and friends do.

Every operation a script can ask for arrives here as `(op, payload)`; arguments are checked
because the script is untrusted; agents go through the kernel's `Run` (journal, budget, worktrees);
`pallium.*` helpers go through the dispatcher like any other caller.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from kernel import authority
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.execution import AgentCall, AgentOutcome, Run
from kernel.hashing import stable_hash
from kernel.providers.contract import MODES
from kernel.testfailures import TestFailure, signature_of
from services.workflows.checks import DEFAULT_CHECK_TIMEOUT, CommandPolicy, run_check
from services.workflows.store import WorkflowStore

__all__ = ["AVAILABLE_HELPERS", "GATE_SCHEMA", "WorkflowHost"]

GATE_SCHEMA = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["approved", "reason", "evidence"],
}
# pallium.<helper>(...) -> (tool, how the script's positional arguments map to its input;
# a last name starting with `*` collects the remaining arguments into a list)
HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "changedNow": ("pallium_changed_now", ()),
    "preflight": ("pallium_workflow_preflight", ("task", "*scope")),
    "explain": ("pallium_explain", ("path",)),
    "risk": ("pallium_risk", ("path",)),
    "neighbors": ("pallium_neighbors", ("path",)),
    "handoff": ("pallium_handoff", ("base",)),
    # the original's names, answered by the nearest tool (in that tool's shape)
    "review": ("pallium_handoff", ("base",)),
    "safe": ("pallium_risk", ("path",)),
    "plan": ("pallium_explain", ("path",)),
}
EXCERPT_CHARS = 500  # of each agent's answer kept in its event; the report shows less unless full
# Helpers answered by this service itself (decisions.search also asks pallium_decisions).
LOCAL_HELPERS = frozenset({"decisions.record", "decisions.search", "task.start", "task.show", "task.clear"})
AVAILABLE_HELPERS = frozenset(HELPERS) | LOCAL_HELPERS
_AGENT_OPTIONS = {"label", "mode", "isolation", "provider", "model", "repo", "schema", "timeout_seconds", "network"}


class WorkflowHost:
    """Answers one run's host calls. Create one per attempt; `__call__` is what the engine calls."""

    def __init__(
        self,
        *,
        run: Run,
        store: WorkflowStore,
        ctx: ToolContext,
        attempt: int,
        args_hash: str,
        commands: CommandPolicy | None = None,
        allow_network: bool = False,
        depth: int = 0,
    ) -> None:
        self.depth = depth
        self.awaiting_gate: str | None = None
        self.run = run
        self.commands = commands or CommandPolicy([])
        self.allow_network = allow_network
        self.store = store
        self.ctx = ctx
        self.attempt = attempt
        self.args_hash = args_hash
        self.agents_done = 0
        self.team_creates = 0  # team.create calls this attempt: the n-th names team-<run>-<n> on every resume

    async def __call__(self, op: str, payload: Any) -> Any:
        handler = {
            "agent": self._agent,
            "gate": self._gate,
            "check": self._check,
            "verify.untilGreen": self._until_green,
            "workflow": self._workflow,
            "log": self._log,
            "failure": self._failure,
            "pallium": self._pallium,
            "team": self._team,
        }.get(op)
        if handler is None:
            raise PalliumError(
                "unavailable",
                f"{op}() is not available in this version of Pallium's workflow engine",
                hint="see docs/workflows.md for the primitives that run today",
            )
        return await handler(payload)

    def budget(self) -> dict[str, Any]:
        status = self.run.budget.status()
        return {"total": status["limit_usd"], "spent": status["spent_usd"]}

    # ------------------------------------------------------------ operations

    async def _agent(self, payload: dict[str, Any]) -> Any:
        call = self._agent_call(payload["prompt"], payload.get("opts") or {}, op="agent")

        def record(outcome: AgentOutcome) -> None:  # in the transaction that completes the call (`Run.agent`)
            self._event(
                "agent",
                payload.get("phase"),
                {
                    "label": call.label,
                    "mode": call.mode,
                    "cached": outcome.cached,
                    "ok": outcome.ok,
                    "provider": outcome.result.provider,
                    "cost_usd": outcome.result.usage.cost_usd,
                    "patch_state": outcome.patch_state,
                    "patch_files": outcome.patch_files,
                    "error": outcome.result.failure.to_dict() if outcome.result.failure else None,
                    "call_key": outcome.call_key,
                    "excerpt": _excerpt(outcome.result),
                },
            )

        outcome = await self.run.agent(call, record=record)
        if not outcome.ok:
            failure = outcome.result.failure
            raise PalliumError(
                "unavailable",
                f"agent {call.label or repr(call.prompt[:60])} failed ({failure.error_class}): {failure.message[:300]}",
                hint="see the agent's failure with `pallium workflow read <run-id> --label LABEL`, then resume the run",
            )
        self.agents_done += 1
        result = outcome.result
        return result.output if result.output is not None else result.text

    async def _check(self, payload: dict[str, Any]) -> dict[str, Any]:
        authority.check("check()", "edit", self.ctx.ceiling)  # it executes a command
        opts = payload.get("opts") or {}
        timeout = opts.get("timeout_seconds", DEFAULT_CHECK_TIMEOUT)
        command = str(payload["command"])
        known = self.commands.inferred
        allowed = await self.commands.allowed(command)
        if known is None and self.commands.inferred is not None:
            self._event("verification", payload.get("phase"), {"inferred": self.commands.inferred})
        result = await run_check(self.run, command, allowed=allowed, timeout=timeout)
        self._event(
            "check",
            payload.get("phase"),
            {k: result[k] for k in ("command", "ok", "exit_code", "summary")}
            | {"failures": len(result["failures"]), "label": opts.get("label")},
        )
        return result

    async def _until_green(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Check, and while red let an edit agent fix it, until green, out of rounds, or stalled."""
        command, opts = str(payload["command"]), payload.get("opts") or {}
        max_rounds = int(opts.get("maxRounds", opts.get("max_rounds", 3)))
        label = str(opts.get("label", "until-green"))
        fixer = {k: v for k, v in opts.items() if k in ("provider", "model")}
        if opts.get("fix_model"):
            fixer["model"] = opts["fix_model"]
        rounds: list[dict[str, Any]] = []
        signatures: list[str] = []
        for number in range(1, max_rounds + 2):
            check = await self._check(
                {"command": command, "opts": {"label": f"{label}:check-{number}"}, "phase": payload.get("phase")}
            )
            rounds.append({"round": number, "check": check, "fixed": False, "command": command})
            if check["ok"]:
                return {"ok": True, "command": command, "rounds": rounds, "stalled": False}
            failing = [TestFailure(f["name"], f["file"], f["message"]) for f in check["failures"]]
            signature = stable_hash(signature_of(failing, check["output_tail"]))
            # The same failing set twice, or back to the one before last (A -> B -> A), is no progress.
            if signatures and (signature == signatures[-1] or (len(signatures) > 1 and signature == signatures[-2])):
                return {"ok": False, "command": command, "rounds": rounds, "stalled": True}
            signatures.append(signature)
            if number > max_rounds:
                break
            fix = await self._agent(
                {
                    "prompt": _fix_prompt(command, check),
                    "phase": payload.get("phase"),
                    "opts": {**fixer, "mode": "edit", "label": f"{label}:fix-{number}"},
                }
            )
            rounds[-1]["fixed"] = True
            rounds[-1]["fix"] = fix
        return {"ok": False, "command": command, "rounds": rounds, "stalled": False}

    async def _workflow(self, payload: dict[str, Any]) -> Any:
        """Run a saved workflow or template inside this run: same journal, budget and staging."""
        from services.workflows import library
        from services.workflows.engine import ScriptFailed, run_script, unawaited_failure_message, unawaited_message

        if self.depth >= 1:
            raise PalliumError(
                "invalid_input",
                "workflow() nests one level at most",
                hint="call workflow() only from the top-level script, not from a nested workflow",
            )
        found = library.find(self.run.repo, str(payload.get("name")))
        nested = WorkflowHost(
            run=self.run,
            store=self.store,
            ctx=self.ctx,
            attempt=self.attempt,
            args_hash=self.args_hash,
            commands=self.commands,
            allow_network=self.allow_network,
            depth=self.depth + 1,
        )
        self._event("workflow", None, {"name": found.label})
        try:
            outcome = await run_script(found.source(), host=nested, args=payload.get("args"), budget=nested.budget)
        except ScriptFailed as exc:
            self.awaiting_gate = nested.awaiting_gate
            code = "conflict" if nested.awaiting_gate else "unavailable"
            raise PalliumError(
                code,
                f"workflow {found.label} failed ({exc.kind}): {exc.message}",
                hint=f"see why with `pallium workflow status {self.run.run_id}`; fix workflow {found.label} and resume",
            ) from None
        if outcome.unawaited_failures:
            nested.record_unawaited_failures(outcome.unawaited_failures)
            message = unawaited_failure_message(outcome.unawaited_failures)
            raise PalliumError(
                "unavailable",
                f"workflow {found.label} failed: {message}",
                hint=f"await every call in workflow {found.label}; see its failures with `pallium workflow status`",
            )
        if outcome.abandoned:
            nested.record_abandoned(outcome.abandoned)
            raise PalliumError(
                "unavailable",
                f"workflow {found.label} failed: {unawaited_message(outcome.abandoned)}",
                hint=f"await every call in workflow {found.label}; see the run with `pallium workflow status`",
            )
        return outcome.value

    async def _gate(self, payload: dict[str, Any]) -> Any:
        name, opts = str(payload["name"]), payload.get("opts") or {}
        known = self.store.gate(self.run.run_id, name)
        if opts.get("human"):
            return self._human_gate(name, str(payload["prompt"]), known, fail_on_deny=opts.get("fail_on_deny", True))
        if known is not None:  # decided in an earlier attempt: the verdict stands
            if not known.approved and opts.get("fail_on_deny", True):
                raise PalliumError(
                    "conflict",
                    f"gate {name!r} was rejected earlier in this run: {known.reason}",
                    hint="a verdict stands on resume: start a new run to ask again, or pass `fail_on_deny: false`",
                )
            verdict = {"approved": known.approved, "reason": known.reason, "evidence": known.evidence}
            return {**verdict, "gate": name, "verdict": verdict, "cached": True}
        prompt = str(payload["prompt"])
        criteria = opts.get("criteria")
        if criteria:  # a list, or one string as the original's own recipes pass it
            items = [criteria] if isinstance(criteria, str) else list(criteria)
            prompt += "\n\nApprove only if all of these hold:\n" + "\n".join(f"- {c}" for c in items)
        verifier = {k: v for k, v in opts.items() if k in ("label", "provider", "model", "mode")}
        verifier.setdefault("label", f"gate:{name}")
        verifier["schema"] = GATE_SCHEMA
        verdict = await self._agent({"prompt": prompt, "opts": verifier, "phase": payload.get("phase")})
        approved = bool(verdict.get("approved")) if isinstance(verdict, dict) else False
        reason = verdict.get("reason") if isinstance(verdict, dict) else str(verdict)
        evidence = verdict.get("evidence", []) if isinstance(verdict, dict) else []
        self.store.record_gate(
            self.run.run_id, name=name, approved=approved, reason=reason, evidence=evidence, now=self._now()
        )
        if not approved and opts.get("fail_on_deny", True):
            raise PalliumError(
                "conflict",
                f"gate {name!r} was denied: {reason}",
                hint="read the reason in `pallium workflow report`; pass `fail_on_deny: false` to the gate to go on",
            )
        return {"approved": approved, "reason": reason, "gate": name, "verdict": verdict}

    def _human_gate(self, name: str, prompt: str, known: Any, *, fail_on_deny: bool) -> dict[str, Any]:
        """A person decides: the first time the run stops as awaiting_approval; a resume reads the answer."""
        if known is None or known.state == "pending":
            self.store.record_gate(
                self.run.run_id,
                name=name,
                approved=False,
                reason=None,
                evidence=[],
                now=self._now(),
                state="pending",
                prompt=prompt,
                decided_by="person",
            )
            self.awaiting_gate = name
            raise PalliumError(
                "conflict",
                f"gate {name!r} waits for a person: pallium workflow gate approve {self.run.run_id} {name}",
                details={"awaiting_approval": name},
                hint=f"a person answers with `pallium workflow gate approve {self.run.run_id} {name}` (or reject)",
            )
        if not known.approved and fail_on_deny:
            raise PalliumError(
                "conflict",
                f"gate {name!r} was rejected: {known.reason}",
                hint="pass `fail_on_deny: false` in the gate's options to read the rejection in the script",
            )
        return {"approved": known.approved, "reason": known.reason, "gate": name, "decided_by": "person"}

    def record_abandoned(self, abandoned: tuple[dict[str, str], ...]) -> None:
        """One failure per call the script started, never awaited, and left running when it returned."""
        for call in abandoned:
            error = (
                f"{call['what']} was started but never awaited; the script returned while it ran, and it was cancelled"
            )
            self._event("failure", None, {"primitive": call["op"], "index": None, "stage": None, "error": error})
            if call["op"] == "agent":  # it started: the agent counts say so, as one that did not complete
                label = call["what"].removeprefix("agent ")
                self._event(
                    "agent",
                    None,
                    {
                        "label": label,
                        "ok": False,
                        "cached": False,
                        "cost_usd": None,
                        "error": {"error_class": "cancelled", "message": error},
                    },
                )

    def record_unawaited_failures(self, failed: tuple[dict[str, str], ...]) -> None:
        """One failure per call the script started, never awaited, and that failed while it ran."""
        for call in failed:
            error = f"{call.get('what') or call.get('op')} failed and the script never awaited it: {call.get('error')}"
            self._event("failure", None, {"primitive": call.get("op"), "index": None, "stage": None, "error": error})

    async def _log(self, payload: dict[str, Any]) -> None:
        message = str(payload.get("message", ""))[:4000]
        self._event("log", payload.get("phase"), {"message": message})
        print(f"[workflow:{self.run.run_id}] {message}", file=sys.stderr)

    async def _failure(self, payload: dict[str, Any]) -> None:
        detail = {k: payload.get(k) for k in ("primitive", "index", "stage", "error")}
        self._event("failure", payload.get("phase"), detail)

    async def _team(self, payload: dict[str, Any]) -> Any:
        """`team.*`: a call that changes the team is journaled like an agent and replayed on resume.

        Its request (the function and its arguments, the team named by id) is keyed by content and
        occurrence, as `kernel.journal` keys agents; a completed one answers from the journal, so a
        resumed script sends no message twice and adds no task twice. The journal key also goes to the
        team tool as its `request_id`, which the teams store records in the effect's own transaction:
        a crash between the effect and the journal's completion row does not repeat it either.
        """
        from services.workflows.team_calls import MUTATING, request_of, team_call

        fn, args = str(payload.get("fn")), list(payload.get("args") or [])
        run, where = self.run, (self.ctx, self.run.run_id, str(self.run.repo), self.team_creates)
        if fn not in MUTATING:
            return await team_call(*where, fn, args)
        op = f"host.team.{fn}"
        request = {"fn": fn, "args": request_of(fn, args), "args_hash": self.args_hash}
        key, seq = run.journal.key_for(op, request)
        row = run.store.call(run.run_id, key)
        if row is not None and row.status == "completed" and row.result is not None:
            value = row.result.get("value")
        else:
            run.store.record_intent(
                run.run_id, run.lease.epoch, call_key=key, op=op, request=request, seq=seq, counts_as_agent=False
            )
            try:
                value = await team_call(*where, fn, args, request_id=f"{run.run_id}/{key}")
                crash_point("team_call_done")
            except PalliumError as exc:
                failed = {"error": {"code": exc.code, "message": exc.message[:2000]}}
                run.store.record_completion(
                    run.run_id,
                    run.lease.epoch,
                    call_key=key,
                    status="failed",
                    result=failed,
                    cost_usd=None,
                    spent=False,
                )
                raise
            run.store.record_completion(
                run.run_id,
                run.lease.epoch,
                call_key=key,
                status="completed",
                result={"value": value},
                cost_usd=None,
                spent=False,
            )
        if fn == "create":
            self.team_creates += 1
        return value

    async def _pallium(self, payload: dict[str, Any]) -> Any:
        helper, given = str(payload.get("helper")), list(payload.get("args") or [])
        if helper in LOCAL_HELPERS:
            from services.workflows import decisions, run_task

            if helper in run_task.HELPERS:
                value, event = run_task.answer(self.store, self.run.run_id, helper, given)
                if event is not None:
                    self._event("task", payload.get("phase"), event)
                return value
            if helper == "decisions.search":
                return await decisions.search(self.store, self.ctx, str(self.run.repo), given)
            recorded = decisions.record(self.store, self.run.run_id, given, now=self._now())
            self._event("decision", payload.get("phase"), {"message": recorded["title"], "id": recorded["id"]})
            return recorded
        if helper not in HELPERS:
            raise PalliumError(
                "unavailable",
                f"pallium.{helper}() is not available in this version",
                hint="list what scripts can call: `pallium workflow tools list` (MCP `pallium_workflow_tools_list`)",
            )
        tool, names = HELPERS[helper]
        rest: list[Any] = []
        collect = names[-1][1:] if names and names[-1].startswith("*") else None  # `*scope` takes the rest
        if collect is not None:
            names = names[:-1]
            given, rest = given[: len(names)], given[len(names) :]
        if len(given) > len(names):
            raise PalliumError(
                "invalid_input",
                f"pallium.{helper}() takes at most {len(names)} argument(s)",
                hint=f"pass pallium.{helper}() at most {len(names)} argument(s); see `pallium workflow tools list`",
            )
        arguments = {name: value for name, value in zip(names, given, strict=False) if value is not None}
        if collect is not None and rest:
            arguments[collect] = [str(value) for value in rest]
        if "repo" not in arguments:
            arguments["repo"] = str(self.run.repo)
        out = await self.ctx.call(tool, arguments)
        answer = out.model_dump(mode="json")
        if tool == "pallium_changed_now":  # scripts `workflow generate` wrote are not the user's change
            from services.workflows import generated

            own = generated.untouched(self.ctx, self.run.repo)
            answer["files"] = [f for f in answer["files"] if f.get("path") not in own]
        return answer

    # ------------------------------------------------------------ helpers

    def _agent_call(self, prompt: str, opts: dict[str, Any], *, op: str) -> AgentCall:
        unknown = sorted(set(opts) - _AGENT_OPTIONS)
        if unknown:
            raise PalliumError(
                "invalid_input",
                f"agent(): unknown option(s) {', '.join(unknown)}",
                hint="use only the options `pallium workflow tools list` shows for agent()",
            )
        mode = opts.get("mode", "read-only")
        if mode not in MODES:
            raise PalliumError(
                "invalid_input",
                f"agent(): mode must be one of {', '.join(MODES)}, not {mode!r}",
                hint=f"pass `mode` as one of {', '.join(MODES)} in agent()'s options",
            )
        if mode != "read-only":
            authority.check(f"agent(mode={mode!r})", "edit", self.ctx.ceiling)
        # As in the original: an agent gets the network only when it asks (network: true) and the run
        # was granted it; asking without the grant runs it without the network, said in an event.
        asked = opts.get("network", False)
        if not isinstance(asked, bool):
            raise PalliumError(
                "invalid_input",
                "agent(): network must be true or false",
                hint="pass `network: true` or `network: false` in agent()'s options",
            )
        network = asked and self.allow_network
        if asked and not self.allow_network:
            who = opts.get("label") or repr(prompt[:60])
            message = f"agent {who} asked for network: true, but this run has no --allow-network: it runs offline"
            self._event("network_denied", opts.get("phase"), {"label": opts.get("label"), "message": message})
            print(f"[workflow:{self.run.run_id}] {message}", file=sys.stderr)
        if opts.get("provider") == "internal":
            raise PalliumError(
                "invalid_input",
                "agent(): the provider name 'internal' is reserved",
                hint="pick another provider name for agent() (claude, codex, command, openai, fake)",
            )
        if opts.get("repo") not in (None, str(self.run.repo)):
            raise PalliumError(
                "unavailable",
                "agent(): runs across several repositories are not available yet",
                hint="leave `repo` out of agent()'s options: a run works in its own repository",
            )
        timeout = opts.get("timeout_seconds")
        if timeout is not None and (not isinstance(timeout, int | float) or timeout < 0):
            raise PalliumError(
                "invalid_input",
                "agent(): timeout_seconds must be a number of seconds, 0 for none",
                hint="pass `timeout_seconds` in agent()'s options as seconds, 0 for none",
            )
        schema = opts.get("schema")
        if schema is not None and not isinstance(schema, dict):
            raise PalliumError(
                "invalid_input",
                "agent(): schema must be a JSON Schema object",
                hint='pass `schema` in agent()\'s options as a JSON Schema object, such as {type: "object"}',
            )
        return AgentCall(
            prompt=prompt,
            mode=mode,
            isolation=str(opts.get("isolation", "")),
            provider=opts.get("provider"),
            model=opts.get("model"),
            schema=schema,
            timeout=timeout,
            network=network,
            label=str(opts.get("label", "")),
            args_hash=self.args_hash,
            op=op,
        )

    def _event(self, kind: str, phase: str | None, detail: dict[str, Any]) -> None:
        self.store.add_event(
            self.run.run_id, attempt=self.attempt, kind=kind, phase=phase, detail=detail, now=self._now()
        )

    def _now(self) -> str:
        return iso_utc(self.ctx.clock.now())


def _excerpt(result: Any) -> str:
    """The head of what an agent said (or why it failed), on one line, for the run's report."""
    if result.failure is not None:
        said = result.failure.message
    elif result.output is not None:
        said = result.output if isinstance(result.output, str) else json.dumps(result.output, ensure_ascii=False)
    else:
        said = result.text or ""
    text = " ".join(str(said).split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _fix_prompt(command: str, check: dict[str, Any]) -> str:
    failing = "\n".join(f"- {f['name']}: {f['message']}" for f in check["failures"][:20]) or "(see the output)"
    return (
        f"The command `{command}` fails ({check['summary']}). Change the code so that it passes; do not "
        f"weaken or delete the tests.\n\nFailing tests:\n{failing}\n\nEnd of the output:\n"
        f"{check['output_tail'][-2000:]}"
    )
