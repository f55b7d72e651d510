// Review until clean: review, fix what the review found, and review again, for a few rounds.
// A gate decides when the change is clean, so the run ends on a verdict rather than a round count.
// Run: pallium workflow run "polish src/app.py" --script examples/workflows/review-until-clean.js \
//        --args '{"path": "src/app.py", "rounds": 3}'
export const meta = {
  name: "review-until-clean",
  description: "Alternate review and fix until a verifier gate approves",
  phases: ["review", "fix", "gate"],
  args: { path: "the file to review (required)", rounds: "optional: review rounds (default 3)" },
};

const REVIEW = {
  type: "object",
  properties: { problems: { type: "array", items: { type: "string" } } },
  required: ["problems"],
};

const rounds = args.rounds ?? 3;
for (let round = 1; round <= rounds; round++) {
  phase("review");
  const review = await agent(`Review ${args.path}. List concrete problems, or none.`, {
    label: `review-${round}`,
    schema: REVIEW,
  });
  if (review.problems.length === 0) {
    phase("gate");
    const verdict = await gate(`clean-${round}`, `Is ${args.path} ready to merge?`, {
      criteria: ["no known bugs", "tests cover the change"],
      fail_on_deny: false,
    });
    if (verdict.approved) return { clean: true, rounds: round };
  }
  phase("fix");
  await agent(`Fix these problems in ${args.path}:\n- ${review.problems.join("\n- ")}`, {
    label: `fix-${round}`,
    mode: "edit",
  });
}
return { clean: false, rounds };
