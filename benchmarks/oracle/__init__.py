"""`python -m benchmarks oracle`: grade `callers` against a real language server on a real repository.

For a sample of the repository's definitions (functions, methods, classes, fields, properties),
both sides answer "where is this used": Pallium's `callers` for the definition's qualified name
(`pkg.module.Class.method`), and an independent oracle at the definition's position: jedi's
`get_references` for Python, the TypeScript language service's `findReferences` for TS/JS (a
small node script, `ts_references.js`, that needs the `typescript` package on NODE_PATH). They are
compared per reference line (path, line):

- Pallium's answer is what it lists for the definition: references resolved to it (its claims),
  and those it marks `ambiguous` (it or another of the same name: listed, ranked last, not claimed);
- precision = resolved lines the oracle also has / resolved lines; recall = oracle lines Pallium
  lists (resolved or ambiguous) / oracle lines; ambiguous share = ambiguous lines / listed lines;
  `listed_precision` counts the ambiguous lines as claims too, for the strictest reading;
- `call` restricts both sides to call sites by one textual rule: lines where the name is followed
  by `(` (a call, a called decorator, `new X(`).

Needs `pip install jedi` (0.20.1 measured) and `npm install typescript` (5.x) with NODE_PATH
pointing at that `node_modules`; neither is a dependency of Pallium. Run, for example:
`python -m benchmarks oracle --repo /tmp/flask --language python --sample 200 --label flask`.
It writes the index into `<repo>/.pallium` (give it a scratch clone). Sums are over all sampled
definitions (micro-averaged); definitions neither side references count for nothing.
"""
