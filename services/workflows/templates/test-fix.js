// Test and fix: run the test command, and while it fails let an edit agent fix the code.
export const meta = {
  name: "test-fix",
  description: "Make a test command pass, fixing the code in an isolated worktree",
  phases: ["fix"],
  args: {
    task: "the task, in words (a plain `workflow run` passes the run's task)",
    test_command: "the command that must pass (required)",
    max_rounds: "optional: fix rounds before giving up (default 3)",
  },
};

if (!args.test_command) throw new Error("test-fix needs args.test_command (pallium start --test-command CMD)");
phase("fix");
const outcome = await verify.untilGreen(args.test_command, { maxRounds: args.max_rounds ?? 3 });
const last = outcome.rounds[outcome.rounds.length - 1].check;
const failing = last.failures.map((f) => f.name);
// The result convention: `ok` says whether the run did what it was for, `verdict` says why.
const verdict = outcome.ok
  ? `green after ${outcome.rounds.length} round(s)`
  : `still failing after ${outcome.rounds.length} round(s)${outcome.stalled ? ", stalled" : ""}: ${failing.join(", ") || last.summary}`;
return { ok: outcome.ok, verdict, stalled: outcome.stalled, rounds: outcome.rounds.length, failing };
