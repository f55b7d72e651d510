"""Tools for where plans come from: templates, saved workflows, generated scripts, and `pallium start`."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Any

from kernel import authority, paths, trust, writes
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.execution import Limits
from kernel.providers.dispatcher import provider_problem, resolve_provider
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
from services.workflows import generated, library, render, runner, sources
from services.workflows.checks import may_run_repo_commands
from services.workflows.engine import ScriptFailed, evaluate_meta
from services.workflows.models import (
    GenerateInput,
    GenerateOutput,
    PreflightInput,
    PreflightOutput,
    SaveInput,
    SaveOutput,
    StartInput,
    StartOutput,
    Tailoring,
    TemplateEntry,
    TemplateListInput,
    TemplateListOutput,
    TemplateShowInput,
    TemplateShowOutput,
)
from services.workflows.preflight import preflight as _preflight
from services.workflows.script import parse_script, strip_code
from services.workflows.start import choose_style
from services.workflows.tailor import tailor
from services.workflows.tools import launch
from services.workflows.validate import declared_args

START_FILES = 20  # files a started plan receives as args.files


async def template_list(inp: TemplateListInput, ctx: ToolContext) -> TemplateListOutput:
    entries: list[TemplateEntry] = []
    try:
        repo = ctx.repo_root(inp.repo)
    except PalliumError:
        if inp.repo is not None:
            raise
        repo = None
    folders = library.saved_dirs(repo) if repo else [("user", paths.pallium_home() / "workflows")]
    found = [(origin, p) for origin, folder in folders if folder.is_dir() for p in sorted(folder.glob("*.js"))]
    found += [("template", library.TEMPLATE_DIR / f"{name}.js") for name in library.list_templates()]
    for origin, path in found:
        entries.append(TemplateEntry(name=path.stem, origin=origin, description=await _description(path)))
    return TemplateListOutput(workflows=entries)


async def template_show(inp: TemplateShowInput, ctx: ToolContext) -> TemplateShowOutput:
    found = library.find(ctx.repo_root(inp.repo), inp.name)
    return TemplateShowOutput(name=found.name, origin=found.origin, path=str(found.path), source=found.source())


async def save(inp: SaveInput, ctx: ToolContext) -> SaveOutput:
    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    path = library.save(Path(row.repo), inp.name, row.script, scope=inp.scope)
    return SaveOutput(name=inp.name, path=str(path))


async def generate(inp: GenerateInput, ctx: ToolContext) -> GenerateOutput:
    style = inp.style
    if style == "auto":  # the original's rule: test-fix when there is a test command to fix against
        style = "test-fix" if inp.test_command else "review"
    template = library.STYLES[style]
    source = library.template_source(template)
    target = None
    if inp.output is not None:
        authority.check("pallium_workflow_generate with output", "edit", ctx.ceiling)
        target = paths.confine(ctx.repo_root(), inp.output, base=ctx.cwd)
        if target.exists():
            raise PalliumError(
                "conflict",
                f"{target} exists already",
                hint="pass another `output` (CLI `--output`), or remove the file first",
                details={"field": "output"},
            )
    tailoring = None
    if inp.tailor:
        source, tailoring = await tailor(
            source,
            task=inp.task,
            style=style,
            cwd=_workdir(ctx),
            provider=inp.provider,
            model=inp.model,
            timeout=inp.timeout_seconds,
        )
    if target is not None:
        try:
            writes.write_text(target, source, mode=0o644, root=ctx.repo_root(), exclusive=True)
            generated.remember(ctx, ctx.repo_root(), target, source)
        except FileExistsError:
            raise PalliumError(
                "conflict",
                f"{target} exists already",
                hint="pass another `output` (CLI `--output`), or remove the file first",
                details={"field": "output"},
            ) from None
    args: dict[str, object] = {"task": inp.task}
    if inp.test_command:
        args["test_command"] = inp.test_command
    if inp.max_rounds is not None:
        args["max_rounds"] = inp.max_rounds
    parsed, meta = parse_script(source), None
    if parsed.meta_source and not parsed.errors:
        with contextlib.suppress(ScriptFailed):  # a tailored script with a broken meta: validate says why
            meta = await evaluate_meta(parsed.meta_source)
    return GenerateOutput(
        style=style,
        template=template,
        source=source,
        args=args,
        reads_args=declared_args(meta),
        path=str(target) if target else None,
        tailoring=tailoring,
    )


def _workdir(ctx: ToolContext) -> Path:
    try:
        return ctx.repo_root()
    except PalliumError:
        return ctx.cwd


async def preflight(inp: PreflightInput, ctx: ToolContext) -> PreflightOutput:
    return await _preflight(ctx, ctx.repo_root(inp.repo), inp.task, scopes=inp.scope, limit=inp.limit)


async def start(inp: StartInput, ctx: ToolContext) -> StartOutput:
    if not inp.task.strip():  # the original's `start --workflow NAME` needs no task
        if inp.workflow is None:
            raise PalliumError(
                "invalid_input",
                "say what to do: give a task, or a workflow to run",
                hint="pass `task` (the CLI's positional TASK), or `workflow` (CLI `--workflow NAME`)",
                details={"field": "task"},
            )
        inp = inp.model_copy(update={"task": f"Run saved workflow {inp.workflow}"})
    repo = ctx.repo_root(inp.repo)
    scoped = await _preflight(ctx, repo, inp.task, scopes=inp.scope, limit=START_FILES)
    changed_files = scoped.changed_files
    if inp.workflow is not None:
        found = library.find(repo, inp.workflow)
        reason = "named with --workflow"
    else:
        name, reason = (
            (library.STYLES[inp.style], "named with --style")
            if inp.style and inp.style != "auto"
            else choose_style(inp.task, test_command=inp.test_command)
        )
        found = library.find(repo, name)
    args = {"task": inp.task, "files": [f.path for f in scoped.files]}
    if inp.test_command:
        args["test_command"] = inp.test_command
    source = found.source()
    tailoring = None
    if inp.tailor and found.origin == "template" and inp.workflow is None:
        source, tailoring = await tailor(
            source,
            task=inp.task,
            style=found.name if inp.style in (None, "auto") else inp.style,
            cwd=repo,
            provider=inp.provider,
            model=None,
            timeout=inp.timeout_seconds,
        )
    elif inp.tailor:
        tailoring = Tailoring(tailored=False, provider=None, reason=f"{found.label} is used as written, not generated")
    await sources.require_valid(source)
    provider = resolve_provider(None)
    missing = provider_problem(provider) if _spends(source) else None
    answer = {
        "task": inp.task,
        "chosen": found.label,
        "reason": reason,
        "args": args,
        "provider": provider,
        "provider_missing": missing,
        "rehearsal": _rehearsal(provider),
        "repo_commands": _repo_commands_note(repo, scoped, inp.allow_repo_commands),
        "changed_files": changed_files,
        "preflight": scoped,
        "tailoring": tailoring,
    }
    if inp.dry_run:
        return StartOutput(**answer, script=source, run=None)
    from kernel.scaleout.credentials import database_url

    database = database_url(inp.database)
    if missing is not None and database is None:  # with a database, the workers' machines have the provider
        raise PalliumError(
            "unavailable",
            f"the plan's agents run on {provider}, and {missing}",
            hint=f"install {provider} (`pallium doctor` checks it), or choose another with "
            "PALLIUM_WORKFLOW_PROVIDER=claude|codex|fake|NAME (a NAME needs PALLIUM_WORKFLOW_PROVIDER_<NAME>_COMMAND)",
            details={"provider": provider, "field": "provider"},
        )
    run = await launch(
        ctx,
        repo=repo,
        run_id=None,
        source=source,
        script_path=found.path if found.origin != "template" else None,
        args=args,
        limits=Limits(budget_usd=inp.max_budget_usd, database=database),
        task=inp.task,
        allow_commands=[inp.test_command] if inp.test_command else [],
        allow_repo_commands=inp.allow_repo_commands,
        background=inp.background,
        wait=inp.wait_seconds,
        source_label=found.label,
    )
    return StartOutput(**answer, script=None, run=run)


def _spends(source: str) -> bool:
    """The script calls an agent (directly, through a gate or a fix loop): it needs its provider."""
    return re.search(r"(?<![.\w$])(agent|gate|verify\s*\.\s*untilGreen|workflow)\s*\(", strip_code(source)) is not None


def _repo_commands_note(repo: Path, scoped: Any, allowed: bool) -> str | None:
    """What start says when the repository's own test commands will be offered, not run."""
    if may_run_repo_commands(repo, allowed):
        return None
    v = scoped.verification
    offered = list(dict.fromkeys([*v.fast, *v.safe, *v.full]))
    if not offered:
        return None
    named = ", ".join(offered[:3]) + (f" and {len(offered) - 3} more" if len(offered) > 3 else "")
    return (
        f"this repository is not trusted: its own commands ({named}) are offered, not run, "
        f"since they run its code; trust it with `{trust.trust_command(repo)}` or pass --allow-repo-commands"
    )


def _rehearsal(provider: str) -> str | None:
    if provider != "fake" or os.environ.get("PALLIUM_FAKE_SCENARIO"):
        return None
    return (
        "a rehearsal: the fake provider answers every agent with the smallest reply its schema accepts "
        "(set PALLIUM_FAKE_SCENARIO to script replies, or PALLIUM_WORKFLOW_PROVIDER to a real agent)"
    )


async def _description(path: Path) -> str | None:
    parsed = parse_script(path.read_text(encoding="utf-8"))
    if parsed.meta_source is None or parsed.errors:
        return None
    try:
        return (await evaluate_meta(parsed.meta_source)).get("description")
    except Exception:  # a saved script with a broken meta still lists; validate says what is wrong
        return None


# Words that make a task change the tree, so a start for it needs `edit` (its agents edit).
_EDIT_WORDS = (
    "fix",
    "implement",
    "add",
    "refactor",
    "change",
    "edit",
    "rename",
    "rewrite",
    "migrate",
    "port",
    "patch",
    "repair",
    "resolve",
    "upgrade",
    "modify",
    "create",
    "write",
    "update",
    "remove code",
    "make",
)

TOOLS = (
    Tool(
        cli="workflow preflight",
        handler=preflight,
        input=PreflightInput,
        output=PreflightOutput,
        summary="Scope a task before running agents: files to inspect, their risk, changes and verification commands.",
        description=(
            "Use before planning or running a task, to know which files matter and how to verify the work. Not "
            "for one file's full story (pallium_explain) or running anything (pallium_start). Asks the repository "
            "service (changed files, search, explain) and may refresh its index; no model calls; within 12 KB."
        ),
        authority="observe",
        toolset="start",
        route=Route(
            phrasings=(
                "preflight audit the auth module",
                "scope this task before running agents",
                "which files matter for this change and how do I verify it",
                "plan what to inspect before fixing the bug",
                "what tests should I run for this task",
            ),
            arguments={"task": "task", "scope": "paths"},
            needs=("git",),
        ),
        positional=("task",),
        render=render.preflight,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="start",
        handler=start,
        input=StartInput,
        output=StartOutput,
        summary="Do a task the Pallium way: scope the repository, choose a plan, run it and report.",
        description=(
            "Use to hand Pallium a whole task (implement, fix failing tests, review, research): it picks a "
            "workflow from the task's words and runs agents, which spends; edits stay staged until "
            "pallium_workflow_apply, and dry_run shows the plan. Not for one question about code (pallium_explain) "
            "or a script you wrote (pallium_workflow_run)."
        ),
        authority="consult",
        toolset="start",
        route=Route(
            phrasings=(
                "fix the checkout race and verify it",
                "implement pagination for the users endpoint",
                "fix the failing tests",
                "review my changes for bugs",
                "review the diff for bugs and report what you find",
                "refactor the payment module",
                "add a retry to the http client",
                "research how authentication works and report back",
                "review my workflow changes and fix what's broken",
                "do the whole task for me, from plan to verified result",
                "audit the auth module for security problems",
            ),
            arguments={"task": "task", "test_command": "test_command", "scope": "paths"},
            levels={
                "consult": ("investigate", "research", "analyze", "analyse", "study", "explore", "audit", "review"),
                "edit": _EDIT_WORDS,
            },
            needs=("git",),
            signals=("dirty",),
            prepare="workflow preflight",
        ),
        positional=("task",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.start,
        exit_code=lambda out: 0 if out.run is None or out.run.ok else 1,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow template list",
        handler=template_list,
        input=TemplateListInput,
        output=TemplateListOutput,
        summary="Built-in templates and saved workflows, with their descriptions.",
        description=(
            "Use to find a plan to run by name. Not for a run's history (pallium_workflow_list). Reads files only."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "list workflow templates",
                "which built-in templates exist",
                "show my saved workflows",
                "what workflow styles are available",
            ),
        ),
        render=render.templates,
    ),
    Tool(
        cli="workflow template show",
        handler=template_show,
        input=TemplateShowInput,
        output=TemplateShowOutput,
        summary="The text of a template or saved workflow.",
        description="Use before running or adapting a plan. Not for validating a script (pallium_workflow_validate).",
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "show the review template",
                "print the text of a workflow template",
                "what does the fix template look like",
                "read a saved workflow's source",
            ),
            arguments={"name": "name"},
        ),
        positional=("name",),
        render=render.template,
        budget=None,
    ),
    Tool(
        cli="workflow save",
        handler=save,
        input=SaveInput,
        output=SaveOutput,
        summary="Save a run's script as a named workflow for the repository or for you.",
        description=(
            "Use after a run worth repeating. Not for editing a script (edit the file). Writes "
            ".pallium/workflows/<name>.js (which can be committed) or $PALLIUM_HOME/workflows/<name>.js."
        ),
        authority="edit",
        toolset="workflows",
        route=Route(
            phrasings=(
                "save the run's script as a named workflow",
                "keep this workflow for reuse",
                "save the run as my review workflow",
                "store the script of the run in the library",
                "keep the run's script around under a name, for the user or the project",
            ),
            arguments={"run_id": "run_id", "name": "name"},
            needs=("run",),
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.saved,
    ),
    Tool(
        cli="workflow generate",
        handler=generate,
        input=GenerateInput,
        output=GenerateOutput,
        summary="Write a workflow script for a task from a template style.",
        description=(
            "Use to get a starting script to adapt. Not for running one (pallium_start does both). "
            "Deterministic without tailor: no model call. tailor asks a provider (read-only, one call, "
            "needs consult) to fit the template to the task and falls back to the template when it fails, "
            "times out or returns an invalid script. Writes the file only when output is given (needs edit)."
        ),
        authority="observe",
        escalation=("tailor", "consult"),
        # `tailor` calls a model and `output` writes into the repository (docs/tools.md's rule)
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        toolset="workflows",
        route=Route(
            phrasings=(
                "generate a review workflow script",
                "write a workflow script that reviews and verifies findings",
                "create a workflow from the review template",
                "draft a fix-until-green workflow script",
                "author a new workflow plan as javascript",
            ),
            arguments={"task": "task", "test_command": "test_command"},
            flags={"tailor": ("tailor", "tailored", "custom")},
        ),
        positional=("task",),
        render=render.generate,
        budget=None,
    ),
)
