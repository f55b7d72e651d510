// Fix until green: Pallium runs the test command itself; while it fails, an edit agent fixes the code
// in an isolated worktree. The patch reaches your tree only with `pallium workflow apply <run-id>`.
// Run: pallium workflow run "make the tests pass" --script examples/workflows/fix-until-green.js \
//        --allow-command "python -m pytest -q" --args '{"command": "python -m pytest -q"}'
export const meta = {
  name: "fix-until-green",
  description: "Check, fix, check again until the tests pass or no progress is made",
  phases: ["fix"],
  args: { command: "the test command to make pass (required)", maxRounds: "optional: fix rounds (default 3)" },
};

phase("fix");
const outcome = await verify.untilGreen(args.command, { maxRounds: args.maxRounds ?? 3 });
if (!outcome.ok) {
  const last = outcome.rounds[outcome.rounds.length - 1].check;
  log(outcome.stalled ? "stopped: the fixes made no progress" : "stopped: out of rounds");
  return { ok: false, stalled: outcome.stalled, still_failing: last.failures.map((f) => f.name) };
}
return { ok: true, rounds: outcome.rounds.length };
