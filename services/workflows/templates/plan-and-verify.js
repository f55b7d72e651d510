// Plan and verify: the default plan for a task. A planner breaks the task into steps, one edit
// agent works through them, the tests are made green when a test command is given, and a
// reviewer gate judges the result. Edits stay staged until `pallium workflow apply`.
export const meta = {
  name: "plan-and-verify",
  description: "Plan the task, implement it in an isolated worktree, verify, and review",
  phases: ["plan", "implement", "verify", "review"],
  args: {
    task: "the task, in words (a plain `workflow run` passes the run's task)",
    files: "optional: files changed so far, shown to the planner",
    test_command: "optional: the command that must pass (then it is made green)",
  },
};

const PLAN = {
  type: "object",
  properties: { steps: { type: "array", items: { type: "string" } }, risks: { type: "array", items: { type: "string" } } },
  required: ["steps"],
};
const context = args.files && args.files.length ? `\nFiles changed so far: ${args.files.join(", ")}` : "";

phase("plan");
const plan = await agent(`Plan this task as a short list of concrete steps: ${args.task}${context}`, {
  label: "planner",
  schema: PLAN,
});

phase("implement");
const work = await agent(
  `Do this task: ${args.task}\nFollow these steps:\n- ${plan.steps.join("\n- ")}${context}`,
  { label: "implementer", mode: "edit" },
);

let verification = null;
if (args.test_command) {
  phase("verify");
  verification = await verify.untilGreen(args.test_command, { maxRounds: 2 });
}

phase("review");
const review = await gate("done", `Review the change made for: ${args.task}. Is it complete and correct?`, {
  criteria: ["the task is done", "nothing unrelated changed"],
  fail_on_deny: false,
});
// The result convention: `ok` says whether the run did what it was for, `verdict` says why.
const testsGreen = verification ? verification.ok : null;
const problems = [
  ...(testsGreen === false ? [`${args.test_command} still fails`] : []),
  ...(review.approved ? [] : [`the review denied it: ${review.reason ?? "no reason given"}`]),
];
return {
  ok: problems.length === 0,
  verdict: problems.length === 0 ? "done: reviewed" + (testsGreen ? " and tests green" : "") : `not done: ${problems.join("; ")}`,
  plan: plan.steps,
  risks: plan.risks ?? [],
  work,
  tests_green: testsGreen,
  failing: verification && !verification.ok ? (verification.rounds.at(-1)?.check?.failures ?? []).map((f) => f.name) : [],
  review,
};
