// Research panel: several researchers answer independently, then one editor reconciles them.
// Independent answers first avoid anchoring every researcher on the first opinion.
// Run: pallium workflow run "how is auth done here?" --script examples/workflows/research-panel.js \
//        --args '{"question": "How does this service authenticate requests?", "panel": 3}'
export const meta = {
  name: "research-panel",
  description: "Independent researchers, then an editor who reconciles their answers",
  phases: ["research", "reconcile"],
  args: { question: "the question to answer (required)", panel: "optional: how many researchers (default 3)" },
};

const ANSWER = {
  type: "object",
  properties: {
    answer: { type: "string" },
    evidence: { type: "array", items: { type: "string" } },
    confidence: { type: "number" },
  },
  required: ["answer", "evidence"],
};

phase("research");
const angles = ["the code paths", "the tests", "the configuration and docs", "the git history"];
const seats = angles.slice(0, args.panel ?? 3);
const answers = await parallel(seats, (angle, i) =>
  agent(`${args.question}\nAnswer from ${angle}. Cite files and lines as evidence.`, {
    label: `researcher-${i + 1}`,
    schema: ANSWER,
  }),
);

phase("reconcile");
const heard = answers.filter(Boolean);
if (heard.length === 0) return { answer: null, note: "no researcher answered" };
const final = await agent(
  `Reconcile these answers to "${args.question}". Keep what the evidence supports; say where they disagree.\n` +
    JSON.stringify(heard, null, 2),
  { label: "editor", schema: ANSWER },
);
return { ...final, researchers: heard.length };
