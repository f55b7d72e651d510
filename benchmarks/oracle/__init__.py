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

Each server is set up as an editor in an installed checkout would be:

- jedi imports the repository's own packages first (the root, and `src/` in a src layout), ahead
  of anything installed beside it: otherwise `import click` in click's tests is the installed
  click and no use across files is found;
- a Pallium claim find-references left out is asked back with jedi's `goto` from the use; when
  goto lands on the definition, the server agrees (its search skips uses through a decorated
  method of a base class, `@app.route` on a Flask app, which its goto follows to `Scaffold.route`);
- the TypeScript service reads the repository's tsconfig for `customConditions`, `paths` and
  `baseUrl`, and finds a monorepo's packages by name through `node_modules/<name>` links to their
  folders (what `pnpm install` makes; written into the scratch clone);
- groups of references the service adds for a platform symbol (`globalThis.performance.now = ...`
  or `response.text = ...` in a test assigns to the platform's member) are not the repository
  definition's references.

The sets, their commits and what is held out are in `sets.md`.

Needs `pip install jedi` (0.20.1 measured) and `npm install typescript` (5.x) with NODE_PATH
pointing at that `node_modules`; neither is a dependency of Pallium. Run, for example:
`python -m benchmarks oracle --repo /tmp/flask --language python --sample 200 --label flask`.
It writes the index into `<repo>/.pallium` (give it a scratch clone). Sums are over all sampled
definitions (micro-averaged); definitions neither side references count for nothing.
"""
