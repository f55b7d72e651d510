"""The host API a workflow script can call, as one table.

The validator (`script.py`) derives the names it accepts from it, and `pallium workflow tools list`
prints it; whether a `pallium.*` helper is available is read from the host's own helper map.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["API_GLOBALS", "API_MEMBERS", "HOST_API", "KINDS", "PALLIUM_HELPERS", "PALLIUM_NAMESPACES", "HostCall"]


KINDS = ("control", "agent", "verification", "pallium")  # the original's `tools list --kind` values


@dataclass(frozen=True)
class HostCall:
    name: str  # as a script writes it: `agent`, `verify.untilGreen`, `pallium.decisions.search`
    usage: str
    summary: str
    kind: str = "control"  # one of KINDS


HOST_API: tuple[HostCall, ...] = (
    HostCall(
        "agent", "await agent(prompt, {label, mode, isolation, provider, model, schema, ...})", "one worker", "agent"
    ),
    HostCall("parallel", "await parallel(items, fn)", "a barrier over fn(item, index); a failed item becomes null"),
    HostCall("pipeline", "await pipeline(items, ...stages)", "each item flows through the stages on its own"),
    HostCall("phase", "phase(name, fn?)", "labels the agents that follow (scoped to fn when given)"),
    HostCall("log", "log(...parts)", "a line in the run's events and on stderr"),
    HostCall("args", "args", "the JSON value given with --args"),
    HostCall("budget", "budget.total, budget.spent(), budget.remaining()", "the run's spending limit and spend"),
    HostCall(
        "check",
        "await check(command, {timeout_seconds})",
        "runs an allowed command against staged edits",
        "verification",
    ),
    HostCall(
        "verify.untilGreen",
        "await verify.untilGreen(command, {maxRounds})",
        "check and fix until green",
        "verification",
    ),
    HostCall(
        "gate",
        "await gate(name, prompt, {criteria, fail_on_deny, human})",
        "a verifier's or person's verdict",
        "verification",
    ),
    HostCall("workflow", "await workflow(name, args)", "runs a saved workflow or template inside this run"),
    HostCall("pallium.changedNow", "await pallium.changedNow()", "the working tree's changed files", "pallium"),
    HostCall(
        "pallium.preflight",
        "await pallium.preflight(task, ...scopes)",
        "files to inspect, risk and checks for a task",
        "pallium",
    ),
    HostCall("pallium.explain", "await pallium.explain(path)", "what a file is and does", "pallium"),
    HostCall("pallium.risk", "await pallium.risk(path)", "how risky changing a file is", "pallium"),
    HostCall("pallium.neighbors", "await pallium.neighbors(path)", "files that change together with a file", "pallium"),
    HostCall("pallium.handoff", "await pallium.handoff(base)", "a summary of the work since base", "pallium"),
    HostCall("pallium.review", "await pallium.review(base)", "the original's review: answered by handoff", "pallium"),
    HostCall("pallium.safe", "await pallium.safe(path)", "the original's safe: answered by risk", "pallium"),
    HostCall("pallium.plan", "await pallium.plan(path)", "the original's plan: answered by explain", "pallium"),
    HostCall(
        "pallium.task.start",
        "await pallium.task.start(goal, ...scopes)",
        "declares the run's task (kept with the run)",
        "pallium",
    ),
    HostCall("pallium.task.show", "await pallium.task.show()", "the run's declared task, or null", "pallium"),
    HostCall("pallium.task.clear", "await pallium.task.clear()", "forgets the run's declared task", "pallium"),
    HostCall(
        "pallium.decisions.record",
        "await pallium.decisions.record(title, body, ...tags)",
        "records a decision with the run, once (a resume does not repeat it)",
        "pallium",
    ),
    HostCall(
        "team.create", "await team.create(goal, {cwd, budgetUsd})", "an agent team, the same one on resume", "agent"
    ),
    HostCall(
        "team.spawn",
        "await team.spawn(team, name, {provider, model, role, mode, planRequired})",
        "a member that resumes its own session",
        "agent",
    ),
    HostCall("team.send", "await team.send(team, to, body, from = 'lead')", "mail; an unknown name throws", "agent"),
    HostCall("team.status", "await team.status(team)", "members by evidence, board, patches, spend", "agent"),
    HostCall(
        "team.wait",
        "await team.wait(team, {agentTimeoutSeconds, maxConcurrent, maxRounds})",
        "runs the team's rounds until none is eligible",
        "agent",
    ),
    HostCall("team.stop", "await team.stop(team)", "stops the team", "agent"),
    HostCall("team.approve", "await team.approve(team, name)", "approves a member's plan", "agent"),
    HostCall("team.reject", "await team.reject(team, name, feedback)", "rejects a plan with feedback", "agent"),
    HostCall("team.gate", "await team.gate(team, prompt, hooks)", "sets the team's gate", "agent"),
    HostCall("team.tasks", "await team.tasks.create|list|claim|complete(team, ...)", "the team's board", "agent"),
    HostCall("team.member", "await team.member.stop|restart|steer(team, name, ...)", "one member", "agent"),
    HostCall(
        "pallium.decisions.search",
        "await pallium.decisions.search(query, limit = 10)",
        "recorded decisions, then the repository's commit-note decisions",
        "pallium",
    ),
)

# Top-level names a script may use without declaring them; the helpers under `pallium.` as written
# after it (`changedNow`, `decisions.record`) and the namespaces among them (`decisions`); the members
# of the other objects (`verify.untilGreen`, `budget.spent`).
API_GLOBALS = frozenset({c.name.split(".")[0] for c in HOST_API})
PALLIUM_HELPERS = frozenset({c.name.removeprefix("pallium.") for c in HOST_API if c.name.startswith("pallium.")})
PALLIUM_NAMESPACES = frozenset({h.rsplit(".", 1)[0] for h in PALLIUM_HELPERS if "." in h})
API_MEMBERS = {
    "verify": frozenset({"untilGreen"}),
    "budget": frozenset({"total", "spent", "remaining"}),
    "team": frozenset({c.name.split(".")[1] for c in HOST_API if c.name.startswith("team.")}),
}
