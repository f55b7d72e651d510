// Research: independent researchers answer the question from different angles; an editor reconciles.
export const meta = {
  name: "research",
  description: "Answer a question about the repository with cited evidence from several angles",
  phases: ["research", "reconcile"],
  args: {
    task: "the question, in words (a plain `workflow run` passes the run's task)",
  },
};

const ANSWER = {
  type: "object",
  properties: { answer: { type: "string" }, evidence: { type: "array", items: { type: "string" } } },
  required: ["answer", "evidence"],
};
phase("research");
const angles = ["the code", "the tests", "the history and docs"];
const answers = await parallel(angles, (angle, i) =>
  agent(`${args.task}\nAnswer from ${angle}; cite files and lines.`, { label: `researcher-${i + 1}`, schema: ANSWER }),
);
phase("reconcile");
const heard = answers.filter(Boolean);
if (heard.length === 0) return { ok: false, verdict: "no researcher answered", answer: null };
const reconciled = await agent(`Reconcile these answers to: ${args.task}\n${JSON.stringify(heard)}`, { label: "editor", schema: ANSWER });
return { ok: true, verdict: `answered from ${heard.length} of ${angles.length} angles`, ...reconciled };
