// Review part of the repository once per tick until a reviewer finds nothing left to fix.
//
//   pallium loop start review --script examples/review-until-clean.loop.js --args '{"path": "src", "fix": true}'
//   pallium loop tick review     # exit 0 clean, 2 findings remain, 3 blocked, 4 budget spent, 5 stuck
//                                # (64: the command line itself is wrong)
//
// One tick is one cycle. Observe: a read-only reviewer lists findings. Act (only with args.fix): an
// edit agent fixes them in an isolated worktree; its patch waits for `pallium workflow apply <run>`.
// Record: the object returned at the end. It gives the findings as `failing` and no `signature`, so
// Pallium builds the signature itself: each line normalized (no directories, line numbers, addresses,
// times), the set of them hashed, plus the git tree of the working tree after the cycle. The script
// needs no hashing code of its own. Until the patch is applied the next review sees the same findings
// in the same tree, so the same signature comes back and, after three ticks, the loop says
// `stagnated`: that is the loop asking a person to look, not a failure of the loop.
export const meta = {
  name: "review-until-clean",
  description: "Review until clean; stop when the same findings keep coming back.",
  kind: "loop",
  loop: { stagnationThreshold: 3, cycleBudgetUsd: 2, lifetimeBudgetUsd: 20, staleAfterMinutes: 30, maxCycles: 50 },
  phases: ["observe", "act"],
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: { file: { type: "string" }, problem: { type: "string" } },
        required: ["file", "problem"],
      },
    },
    blocked: { type: "string" },
  },
  required: ["findings"],
};

const target = (args && args.path) || ".";

phase("observe");
const review = await agent(
  `Review ${target} for bugs, missing error handling and misleading names. ` +
    "List each real problem as {file, problem}; an empty list means the code is clean. " +
    "If you cannot review at all (no access, a missing credential), say why in `blocked`.",
  { label: "review", schema: FINDINGS },
);
if (review.blocked) {
  return { state: "blocked", summary: review.blocked };
}
const findings = review.findings || [];
if (findings.length === 0) {
  return { state: "success", signature: "", summary: `${target}: the reviewer found nothing` };
}
const lines = findings.map((f) => `${f.file}: ${f.problem}`);

let fixed = "";
if (args && args.fix) {
  phase("act");
  await agent(`Fix these review findings in ${target}, changing nothing else:\n${lines.join("\n")}`, {
    label: "fix",
    mode: "edit",
  });
  fixed = "; a fix is staged: review it with `pallium workflow status`, apply it with `pallium workflow apply`";
}
return {
  state: "no_op",
  failing: lines,
  summary: `${findings.length} finding(s) in ${target}${fixed}`,
};
