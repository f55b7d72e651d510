// References by the TypeScript language service, for the oracle (benchmarks/oracle).
// Reads JSON on stdin: {"root": "...", "files": [...], "queries": [{"file": "...", "line": 1, "name": "x"}]}
// and prints one JSON line per query: {"refs": [[file, line, isCall], ...]} (definitions left out).
// Needs `typescript` resolvable from NODE_PATH (npm install typescript in any folder).
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const root = input.root;
const files = input.files.map((f) => path.join(root, f));
const texts = new Map();
const read = (f) => {
  if (!texts.has(f)) texts.set(f, fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined);
  return texts.get(f);
};
const options = { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, noEmit: true, skipLibCheck: true,
  allowImportingTsExtensions: true, resolveJsonModule: true };
// What the repository's own tsconfig says about resolving its imports (custom export conditions,
// `paths`, `baseUrl`), as its editor would read it; the rest stays ours.
const configFile = ts.findConfigFile(root, ts.sys.fileExists, "tsconfig.json");
if (configFile && path.dirname(configFile) === root) {
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, root);
  for (const key of ["customConditions", "paths", "baseUrl"]) {
    if (parsed.options[key] !== undefined) options[key] = parsed.options[key];
  }
}
// The monorepo's own packages by name, as `pnpm install` links them: node_modules/<name> -> its folder.
for (const pkg of input.workspace || []) {
  const link = path.join(root, "node_modules", pkg.name);
  if (fs.existsSync(link)) continue;
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(root, pkg.folder), link, "dir");
}
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => { const t = read(f); return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t); },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => fs.existsSync(f),
  readFile: (f) => read(f),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  realpath: ts.sys.realpath,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
for (const q of input.queries) {
  const file = path.join(root, q.file);
  const text = read(file) || "";
  const lines = text.split("\n");
  const lineText = lines[q.line - 1] || "";
  const re = new RegExp("\\b" + q.name.replace(/[$]/g, "\\$") + "\\b");
  const m = re.exec(lineText);
  const out = [];
  const defs = [];  // the declarations the service counts as this symbol's (overloads, merged declarations)
  if (m) {
    let offset = 0;
    for (let i = 0; i < q.line - 1; i++) offset += lines[i].length + 1;
    const position = offset + m.index;
    let found = [];
    try { found = service.findReferences(file, position) || []; } catch (e) { found = []; }
    // Only the symbol asked about: the language service adds groups for the interface members a
    // method implements, whose references are other classes' calls.
    const own = (g) => g.definition.fileName === file &&
      g.definition.textSpan.start <= position && position <= g.definition.textSpan.start + g.definition.textSpan.length;
    const kept = found.filter((g) => own(g) || g.definition.kind === "alias");
    // Else the groups of the repository's own symbols: an assignment to a platform member
    // (`globalThis.performance.now = ...`, `response.text = ...` in a test) declares nothing of the
    // repository, and the platform member's uses everywhere are not its references.
    const inside = (g) => g.definition.fileName.startsWith(root + path.sep) && !g.definition.fileName.includes("/node_modules/");
    for (const group of (kept.length ? kept : found.filter(inside))) {
      for (const ref of group.references) {
        if (!ref.fileName.startsWith(root + path.sep)) continue;
        const src = read(ref.fileName) || "";
        const start = ts.getLineAndCharacterOfPosition(service.getProgram().getSourceFile(ref.fileName), ref.textSpan.start);
        if (ref.isDefinition) { defs.push([path.relative(root, ref.fileName), start.line + 1]); continue; }
        const after = src.slice(ref.textSpan.start + ref.textSpan.length).trimStart();
        out.push([path.relative(root, ref.fileName), start.line + 1, after.startsWith("(") || after.startsWith("<")]);
      }
    }
  }
  process.stdout.write(JSON.stringify({ refs: out, defs }) + "\n");
}
