// Review: one reviewer per changed file, then a skeptic per finding; only confirmed findings remain.
export const meta = {
  name: "review",
  description: "Review changed files and keep only findings a skeptic confirms",
  phases: ["review", "challenge"],
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: { type: "object", properties: { file: { type: "string" }, problem: { type: "string" } }, required: ["problem"] },
    },
  },
  required: ["findings"],
};
const VERDICT = { type: "object", properties: { holds: { type: "boolean" }, why: { type: "string" } }, required: ["holds"] };

const files = args.files && args.files.length ? args.files : (await pallium.changedNow()).files.map((f) => f.path);
if (files.length === 0) return { confirmed: [], note: "nothing changed to review" };

phase("review");
const perFile = await pipeline(
  files.slice(0, 40),
  (file) => agent(`${args.task}\nReview ${file}. Report concrete problems only.`, { label: `review:${file}`, schema: FINDINGS }),
  (review, file) =>
    parallel(review.findings, (finding) =>
      agent(`Try to prove this finding about ${file} wrong: ${JSON.stringify(finding)}`, {
        label: `skeptic:${file}`,
        schema: VERDICT,
      }).then((v) => (v.holds ? { file, ...finding, why: v.why } : null)),
    ),
);
return { confirmed: perFile.filter(Boolean).flat().filter(Boolean), files: files.length };
