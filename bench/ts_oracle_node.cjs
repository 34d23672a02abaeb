// The compiler side of bench/ts_oracle.py: TypeScript's own API answers what the bench asks, one JSON line per
// request on stdin, one JSON line per answer on stdout. Run as `node ts_oracle_node.cjs TS_MODULE REPO_ROOT`, where
// TS_MODULE is the typescript package the bench installed into /tmp (never a dependency of graphguard).
//
// Requests:
//   {"op": "load", "configs": [rel, ...]}   one program per tsconfig/jsconfig (none: tsc's defaults over every
//                                           JS/TS file, as `tsc --allowJs --checkJs` with no config would read them)
//   {"op": "imports"}                       per file, per module specifier: what the compiler resolved it to
//   {"op": "candidates"}                    exported functions, methods, constructors with their parameter spans
//   {"op": "diag", "files": [rel], "overrides": {rel: text}}   the diagnostics of those files with those contents
//   {"op": "seed", "files": [rel], "like": [rel]}   each file added to the program that governs its `like` (the
//                                           bench's seeded JavaScript callers, written after the programs loaded)
"use strict";
const path = require("path");
const readline = require("readline");

const ts = require(process.argv[2]);
const ROOT = path.resolve(process.argv[3]);
const CODE_SUFFIX = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

let overrides = new Map(); // absolute path -> text the next programs read instead of the disk's
const sourceCache = new Map(); // absolute path + text + options key -> SourceFile (shared by every program)
let projects = []; // {config, options, rootNames, program, errors}
let governing = new Map(); // absolute path -> index of the project that governs the file

function rel(file) {
  return path.relative(ROOT, file).split(path.sep).join("/");
}

function inRepo(file) {
  const r = path.relative(ROOT, file);
  return !r.startsWith("..") && !path.isAbsolute(r) && !r.split(path.sep).includes("node_modules");
}

function makeHost(options) {
  const host = ts.createCompilerHost(options, true);
  host.trace = () => {};
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (f) => (overrides.has(path.resolve(f)) ? overrides.get(path.resolve(f)) : readFile(f));
  host.fileExists = (f) => overrides.has(path.resolve(f)) || fileExists(f);
  host.getSourceFile = (f, langOrOptions, onError) => {
    const text = host.readFile(f);
    if (text === undefined) return undefined;
    // A program writes what it collects (imports, the JSX runtime import) onto the SourceFile, so files are
    // shared only between programs whose options collect the same.
    const collects = [options.jsx, options.jsxImportSource, options.importHelpers, options.moduleDetection];
    const key = `${path.resolve(f)}\0${JSON.stringify(langOrOptions)}\0${JSON.stringify(collects)}\0${text}`;
    let sf = sourceCache.get(key);
    if (!sf) {
      sf = ts.createSourceFile(f, text, langOrOptions, true);
      sourceCache.set(key, sf);
    }
    return sf;
  };
  return host;
}

// The oracle reads JavaScript as graphguard does (allowJs, checkJs) and never emits; project references are
// dropped so that a caller in another project is checked against the referenced project's source (what `tsc -b`
// sees after a build), not against its unbuilt outputs.
function withOracleOptions(options) {
  return { ...options, allowJs: true, checkJs: true, noEmit: true, composite: false, incremental: false,
    declaration: false, emitDeclarationOnly: false, tsBuildInfoFile: undefined,
    // stdout is this script's answer channel: a config's own tracing must not write to it
    traceResolution: false, extendedDiagnostics: false, diagnostics: false, listFiles: false, explainFiles: false };
}

function loadProject(config) {
  if (config === null) {
    const options = withOracleOptions(ts.getDefaultCompilerOptions());
    const rootNames = ts.sys.readDirectory(ROOT, [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
      ["**/node_modules"], undefined);
    return { config: null, options, rootNames, errors: [] };
  }
  const abs = path.join(ROOT, config);
  const read = ts.readConfigFile(abs, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, path.dirname(abs),
    { allowJs: true }, abs);
  const errors = [read.error, ...parsed.errors].filter(Boolean)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
  return { config, options: withOracleOptions(parsed.options), rootNames: parsed.fileNames, errors };
}

function build(project) {
  project.program = ts.createProgram({ rootNames: project.rootNames, options: project.options,
    host: makeHost(project.options), oldProgram: project.program });
  return project.program;
}

function load(configs) {
  projects = (configs.length ? configs : [null]).map(loadProject);
  governing = new Map();
  projects.forEach((project, index) => {
    const dir = project.config === null ? ROOT : path.dirname(path.join(ROOT, project.config));
    for (const file of project.rootNames.map((f) => path.resolve(f))) {
      if (!inRepo(file)) continue;
      const held = governing.get(file);
      const heldDir = held === undefined ? "" : path.dirname(path.join(ROOT, projects[held].config || ""));
      // The nearest config governs a file that several include (a package's own over the root's).
      if (held === undefined || (dir.length > heldDir.length && file.startsWith(dir + path.sep))) governing.set(file, index);
    }
  });
  return { projects: projects.map((p) => ({ config: p.config, files: p.rootNames.filter((f) => inRepo(path.resolve(f))).length,
    errors: p.errors })), governed: [...governing.keys()].map(rel) };
}

function programsByFile() {
  const programs = new Map();
  return (file) => {
    const index = governing.get(file);
    if (!programs.has(index)) programs.set(index, build(projects[index]));
    return programs.get(index);
  };
}

function resolvedOf(program, sf, literal) {
  const mode = program.getModeForUsageLocation(sf, literal);
  if (typeof program.getResolvedModule === "function") {
    const found = program.getResolvedModule(sf, literal.text, mode);
    if (found) return found.resolvedModule;
  }
  const options = program.getCompilerOptions();
  return ts.resolveModuleName(literal.text, sf.fileName, options, makeHost(options), undefined, undefined, mode).resolvedModule;
}

function imports() {
  const programOf = programsByFile();
  const out = [];
  for (const file of governing.keys()) {
    const program = programOf(file);
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const literal of sf.imports || []) {
      if (literal.pos < 0) continue; // synthesized by the compiler (jsx: react-jsx's runtime, importHelpers' tslib)
      const resolved = resolvedOf(program, sf, literal);
      const target = resolved ? path.resolve(resolved.resolvedFileName) : null;
      const line = sf.getLineAndCharacterOfPosition(literal.getStart(sf)).line + 1;
      out.push({ path: rel(file), line, specifier: literal.text,
        target: target && inRepo(target) ? rel(target) : null,
        external: Boolean(resolved && (resolved.isExternalLibraryImport || !inRepo(target))) });
    }
  }
  return { imports: out };
}

function hasModifier(node, kind) {
  return (ts.getModifiers(node) || []).some((m) => m.kind === kind);
}

function paramsOf(sf, fn) {
  return fn.parameters.map((p) => ({
    start: p.getStart(sf), end: p.end, rest: Boolean(p.dotDotDotToken),
    question: p.questionToken ? p.questionToken.getStart(sf) : null,
    init: p.initializer ? [(p.type || p.name).end, p.initializer.end] : null,
    property: (ts.getModifiers(p) || []).length > 0,
  }));
}

function entry(sf, kind, name, fn, extra) {
  const open = fn.parameters.pos; // just after "("
  const body = fn.body && ts.isBlock(fn.body) ? fn.body.getStart(sf) + 1 : null;
  return { path: rel(sf.fileName), kind, name, line: sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line + 1,
    params: paramsOf(sf, fn), params_start: open, params_end: fn.parameters.end, body, ...extra };
}

function isJs(sf) {
  return /\.(js|jsx|mjs|cjs)$/.test(sf.fileName);
}

// CommonJS: `exports.f = function`, `module.exports.f = function`, `obj.m = function` at the top level, and a
// function declaration the file hands to `module.exports`/`exports.x` (express's shape).
function commonJsOf(sf, st) {
  if (ts.isFunctionDeclaration(st) && st.name && st.body && new RegExp(`exports(\\.\\w+)?\\s*=\\s*${st.name.text}\\b`).test(sf.text)) {
    return [entry(sf, "function", st.name.text, st, {})];
  }
  if (!ts.isExpressionStatement(st) || !ts.isBinaryExpression(st.expression)) return [];
  const { left, operatorToken, right } = st.expression;
  if (operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isPropertyAccessExpression(left)) return [];
  if (!(ts.isFunctionExpression(right) || ts.isArrowFunction(right))) return [];
  return [entry(sf, "function", left.getText(sf), right, {})];
}

function candidatesOf(sf) {
  const out = [];
  const counts = new Map();
  for (const st of sf.statements) {
    if (isJs(sf)) out.push(...commonJsOf(sf, st));
    const exported = hasModifier(st, ts.SyntaxKind.ExportKeyword) && !hasModifier(st, ts.SyntaxKind.DefaultKeyword);
    if (!exported) continue;
    const exportKw = (ts.getModifiers(st) || []).find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const exportSpan = [exportKw.getStart(sf), exportKw.end];
    if (ts.isFunctionDeclaration(st) && st.name) {
      counts.set(st.name.text, (counts.get(st.name.text) || 0) + 1);
      if (st.body) out.push(entry(sf, "function", st.name.text, st, { export: exportSpan, name_span: [st.name.getStart(sf), st.name.end] }));
    } else if (ts.isVariableStatement(st) && st.declarationList.declarations.length === 1) {
      const d = st.declarationList.declarations[0];
      const init = d.initializer;
      if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && !d.type) {
        out.push(entry(sf, "function", d.name.text, init, { export: exportSpan, name_span: [d.name.getStart(sf), d.name.end] }));
      }
    } else if (ts.isClassDeclaration(st) && st.name) {
      const seen = new Map();
      for (const m of st.members) if (m.name && ts.isIdentifier(m.name)) seen.set(m.name.text, (seen.get(m.name.text) || 0) + 1);
      const ctors = st.members.filter(ts.isConstructorDeclaration);
      if (ctors.length === 1 && ctors[0].body) out.push(entry(sf, "constructor", st.name.text, ctors[0], {}));
      for (const m of st.members) {
        if (!ts.isMethodDeclaration(m) || !m.body || !ts.isIdentifier(m.name) || seen.get(m.name.text) !== 1) continue;
        if (hasModifier(m, ts.SyntaxKind.PrivateKeyword) || hasModifier(m, ts.SyntaxKind.ProtectedKeyword)) continue;
        out.push(entry(sf, "method", `${st.name.text}.${m.name.text}`, m, {}));
      }
    }
  }
  // Overloaded functions are left out: a mutation of one implementation says little about the overloads.
  return out.filter((c) => c.kind !== "function" || (counts.get(c.name) || 0) <= 1);
}

function candidates() {
  const programOf = programsByFile();
  const out = [];
  for (const file of governing.keys()) {
    if (/\.d\.[mc]?ts$/.test(file) || !CODE_SUFFIX.test(file)) continue;
    const sf = programOf(file).getSourceFile(file);
    if (sf) out.push(...candidatesOf(sf));
  }
  return { candidates: out };
}

// The first line of the import or export declaration a diagnostic sits in (graphguard names an import by its
// statement), else the diagnostic's own line.
function statementLine(sf, pos) {
  if (pos === undefined) return 0;
  const st = sf.statements.find((s) => s.getStart(sf) <= pos && pos < s.end);
  const declaration = st && (ts.isImportDeclaration(st) || ts.isExportDeclaration(st) || ts.isImportEqualsDeclaration(st));
  return sf.getLineAndCharacterOfPosition(declaration ? st.getStart(sf) : pos).line + 1;
}

function seed(files, like) {
  files.forEach((name, i) => {
    const index = governing.get(path.join(ROOT, like[i]));
    if (index === undefined) return;
    // A new array: the last program holds the old one, and an equal list of roots lets it reuse its whole structure.
    projects[index].rootNames = [...projects[index].rootNames, path.join(ROOT, name)];
    governing.set(path.join(ROOT, name), index);
  });
  return { seeded: files.filter((f) => governing.has(path.join(ROOT, f))) };
}

function diag(files, newOverrides) {
  overrides = new Map(Object.entries(newOverrides || {}).map(([k, v]) => [path.join(ROOT, k), v]));
  const programOf = programsByFile();
  const out = [];
  for (const name of files) {
    const file = path.join(ROOT, name);
    if (!governing.has(file)) continue;
    const program = programOf(file);
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
      out.push({ path: name, line, statement: statementLine(sf, d.start), code: d.code,
        message: ts.flattenDiagnosticMessageText(d.messageText, " ") });
    }
  }
  return { diagnostics: out };
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const req = JSON.parse(line);
  let answer;
  try {
    if (req.op === "load") answer = load(req.configs);
    else if (req.op === "imports") answer = imports();
    else if (req.op === "candidates") answer = candidates();
    else if (req.op === "diag") answer = diag(req.files, req.overrides);
    else if (req.op === "seed") answer = seed(req.files, req.like);
    else answer = { error: `unknown op ${req.op}` };
  } catch (e) {
    answer = { error: String(e && e.stack ? e.stack : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
