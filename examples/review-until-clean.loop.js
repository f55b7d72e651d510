// Review part of the repository once per tick until a reviewer finds nothing left to fix.
//
//   pallium loop start review --script examples/review-until-clean.loop.js --args '{"path": "src", "fix": true}'
//   pallium loop tick review     # exit 0 clean, 2 findings remain, 3 blocked, 4 budget spent, 5 stuck
//
// One tick is one cycle. Observe: a read-only reviewer lists findings. Act (only with args.fix): an
// edit agent fixes them in an isolated worktree; its patch waits for `pallium workflow apply <run>`.
// Record: the object returned at the end. Until the patch is applied the next review sees the same
// findings, so the same signature comes back and, after three ticks, the loop says `stagnated`: that
// is the loop asking a person to look, not a failure of the loop.
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

// ---- loop signature helper: copy these three functions into your own loop scripts --------------
// A signature is where the work stands, as a short string. Two ticks with the same signature made
// no progress. normalizeFailure strips what changes between runs without meaning anything (paths,
// line numbers, addresses, times, durations) so that the same problem always reads the same.
function normalizeFailure(line) {
  return String(line)
    .trim()
    .replace(/0x[0-9a-fA-F]+/g, "0x?")
    .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:[0-9][0-9](?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, "<time>")
    .replace(/\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds)\b/g, "<duration>")
    .replace(/(?:\/tmp|\/var\/folders|\/private\/var)\/[^\s:'"]*/g, "<tmp>")
    .replace(/(?:[A-Za-z]:)?(?:[\/\\][\w.@~+-]+)+[\/\\]([\w.@+-]+)/g, "$1")
    .replace(/(:|line )\d+(?::\d+)?/g, "$1N")
    .replace(/\s+/g, " ")
    .trim();
}

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// The normalized set of failures (order and repeats ignored), plus a tree hash when you have one.
function loopSignature(failures, tree) {
  const set = [...new Set((failures || []).map(normalizeFailure).filter(Boolean))].sort();
  const parts = [];
  if (set.length) parts.push(`f${set.length}:${fnv1a(set.join("\n"))}`);
  if (tree) parts.push(`t:${String(tree).slice(0, 12)}`);
  return parts.join("+");
}
// --------------------------------------------------------------------------------------------------

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
  signature: loopSignature(lines),
  summary: `${findings.length} finding(s) in ${target}${fixed}`,
};
