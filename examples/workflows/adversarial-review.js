// Adversarial review: reviewers find problems, then skeptics try to knock each finding down.
// Only findings that survive a skeptic are reported, which keeps false alarms out of the result.
// Run: pallium workflow run "review my change" --script examples/workflows/adversarial-review.js \
//        --args '{"files": ["src/app.py", "src/db.py"]}'
export const meta = {
  name: "adversarial-review",
  description: "Reviewers propose findings; skeptics must confirm each one",
  phases: ["review", "challenge"],
  args: { files: "the files to review (required: pass --args '{\"files\": [...]}')" },
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: { file: { type: "string" }, line: { type: "integer" }, problem: { type: "string" } },
        required: ["file", "problem"],
      },
    },
  },
  required: ["findings"],
};
const VERDICT = {
  type: "object",
  properties: { holds: { type: "boolean" }, why: { type: "string" } },
  required: ["holds", "why"],
};

// Stage 1 reviews a file; stage 2 challenges every finding of that file as soon as it is in:
// a fast file never waits for a slow one.
phase("review");
const perFile = await pipeline(
  args.files,
  (file) => agent(`Review ${file} for bugs. Report only concrete problems with a line.`, {
    label: `review:${file}`,
    schema: FINDINGS,
  }),
  async (review, file) => {
    phase("challenge");
    const checked = await parallel(review.findings, (finding) =>
      agent(
        `You are a skeptic. Try to prove this finding wrong by reading ${file}:\n${JSON.stringify(finding)}`,
        { label: `skeptic:${file}:${finding.line ?? 0}`, schema: VERDICT },
      ).then((verdict) => (verdict.holds ? { ...finding, confirmed_because: verdict.why } : null)),
    );
    return checked.filter(Boolean);
  },
);

const confirmed = perFile.filter(Boolean).flat();
log(`${confirmed.length} finding(s) survived the skeptics`);
return { confirmed, files: args.files.length };
