// Review: a reviewer per dimension (correctness, security, and any the task names), then a skeptic per
// finding; the findings that survive come back ranked, most severe and most certain first.
export const meta = {
  name: "review",
  description: "Review the changes along each dimension; keep only the findings a skeptic cannot refute, ranked",
  phases: ["review", "challenge", "rank"],
  args: {
    task: "what to review, in words (a plain `workflow run` passes the run's task)",
    files: "optional: the files to review (default: the files changed now)",
    dimensions: "optional: the dimensions to review along (default: correctness, security and those the task names)",
  },
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: {
          file: { type: "string" },
          line: { type: "integer" },
          problem: { type: "string" },
          severity: { type: "string", enum: ["high", "medium", "low"] },
        },
        required: ["problem", "severity"],
      },
    },
  },
  required: ["findings"],
};
const VERDICT = {
  type: "object",
  properties: { holds: { type: "boolean" }, confidence: { type: "number" }, why: { type: "string" } },
  required: ["holds", "why"],
};
// Words in the task that ask for a dimension of their own, beside correctness and security.
const NAMED = {
  performance: /perf|slow|fast|latency|memory|allocat/i,
  concurrency: /concurren|race|thread|async|lock|deadlock/i,
  "error handling": /error|exception|failure|retry|edge case/i,
  tests: /\btests?\b|coverage|testing/i,
  readability: /readab|clarity|naming|style|maintainab/i,
  "api compatibility": /\bapi\b|compat|breaking|interface|contract/i,
  documentation: /\bdocs?\b|documentation|comments?/i,
};

const input = args ?? {};
const task = String(input.task ?? "Review the changes");
const files = input.files && input.files.length ? input.files : (await pallium.changedNow()).files.map((f) => f.path);
if (files.length === 0) return { ok: true, verdict: "nothing changed to review", findings: [], dimensions: [] };
const dimensions = input.dimensions && input.dimensions.length
  ? input.dimensions
  : ["correctness", "security", ...Object.keys(NAMED).filter((d) => NAMED[d].test(task))];
const shown = files.slice(0, 40);

phase("review");
const reviews = await parallel(dimensions, (dimension) =>
  agent(
    `${task}\nReview these files for ${dimension} only: ${shown.join(", ")}.\n` +
      "Report concrete problems with the file and line; say nothing about other dimensions.",
    { label: `review:${dimension}`, schema: FINDINGS },
  ));
const found = reviews.flatMap((review, i) =>
  review ? review.findings.map((finding) => ({ ...finding, dimension: dimensions[i] })) : []);

phase("challenge");
const verdicts = await parallel(found, (finding) =>
  agent(
    `Try to prove this ${finding.dimension} finding wrong; read the code it names.\n${JSON.stringify(finding)}`,
    { label: `skeptic:${finding.dimension}:${finding.file ?? "?"}`, schema: VERDICT },
  ));

phase("rank");
const weight = { high: 3, medium: 2, low: 1 };
const surviving = found
  .map((finding, i) => ({ finding, verdict: verdicts[i] }))
  .filter(({ verdict }) => verdict && verdict.holds)
  .map(({ finding, verdict }) => ({ ...finding, why: verdict.why, confidence: verdict.confidence ?? 0.5 }))
  .sort((a, b) => (weight[b.severity] ?? 0) - (weight[a.severity] ?? 0) || b.confidence - a.confidence);
const answered = reviews.filter(Boolean).length;
// The result convention: the review did its job when some reviewer answered; what it found is in findings.
return {
  ok: answered > 0,
  verdict: answered > 0
    ? `${surviving.length} finding(s) survived review in ${answered} of ${dimensions.length} dimension(s)`
    : "no reviewer answered",
  findings: surviving.map((finding, i) => ({ rank: i + 1, ...finding })),
  dimensions,
  files: files.length,
  refuted: found.length - surviving.length,
};
