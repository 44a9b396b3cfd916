#!/usr/bin/env node
// Fails when src/ has an import cycle between files, or when a folder of src/ imports a folder the
// layering of docs/architecture.md puts above it (which is how two folders end up importing each
// other). Static, type-only and dynamic (lazy) imports all count: a lazy import is still a
// dependency. Run by `npm run lint`.
import console from 'node:console';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

/**
 * The layers of docs/architecture.md, bottom first: a folder of src/ imports only folders of the
 * layers below its own. Keep this table and the document's together.
 */
const LAYERS = [
  ['core'],
  ['config'],
  ['net', 'blobs'],
  ['analysis'],
  ['render'],
  ['records'],
  ['jobs', 'client'],
  ['service', 'server'],
  ['cli'],
];

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return listFiles(full);
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.(m?)js$/, '.$1ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    path.join(base, 'index.ts'),
    base,
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* try the next candidate */
    }
  }
  return null;
}

const files = listFiles(src);
const graph = new Map(
  files.map((file) => {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target) => target && target.startsWith(src));
    return [file, [...new Set(targets)]];
  }),
);

/** Tarjan's strongly connected components: every component with more than one file (or a self-import) is a cycle. */
function cycles(nodes, edges) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  function visit(node) {
    state.set(node, { index, low: index, onStack: true });
    index += 1;
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!state.has(next)) {
        visit(next);
        state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
      } else if (state.get(next).onStack) {
        state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
      }
    }
    if (state.get(node).low === state.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component);
    }
  }
  for (const node of nodes) if (!state.has(node)) visit(node);
  return found;
}

const relative = (file) => path.relative(root, file);
const problems = [];

for (const component of cycles(files, graph)) {
  problems.push(`file cycle: ${component.map(relative).sort().join(' ↔ ')}`);
}

const rank = new Map(LAYERS.flatMap((folders, level) => folders.map((folder) => [folder, level])));
const topFolder = (file) => path.relative(src, file).split(path.sep)[0];
for (const [file, targets] of graph) {
  const from = topFolder(file);
  if (!rank.has(from)) {
    problems.push(`${relative(file)}: src/${from}/ has no layer in scripts/check-imports.mjs (add it there and in docs/architecture.md)`);
    continue;
  }
  for (const target of targets) {
    const to = topFolder(target);
    if (to === from) continue;
    if (!rank.has(to) || rank.get(to) >= rank.get(from)) {
      problems.push(
        `layer: ${relative(file)} imports ${relative(target)}, but src/${from}/ may import only the layers below it (docs/architecture.md)`,
      );
    }
  }
}

// Inside a layer, sibling folders (src/analysis/portals, src/analysis/text…) must not import each
// other both ways, directly or round a longer loop. A folder and its own parent are one unit: the
// parent's files are the pieces its subfolders share (src/analysis/privacy.ts), and its entry
// points load the subfolders.
const nested = (a, b) => a.startsWith(`${b}${path.sep}`) || b.startsWith(`${a}${path.sep}`);
const folderEdges = new Map();
for (const [file, targets] of graph) {
  const from = path.dirname(file);
  for (const target of targets) {
    const to = path.dirname(target);
    if (to === from || nested(from, to)) continue;
    if (!folderEdges.has(from)) folderEdges.set(from, new Set());
    folderEdges.get(from).add(to);
  }
}
const folders = [...new Set(files.map((file) => path.dirname(file)))];
const folderGraph = new Map(folders.map((folder) => [folder, [...(folderEdges.get(folder) ?? [])]]));
for (const component of cycles(folders, folderGraph)) {
  problems.push(`folder cycle: ${component.map(relative).sort().join(' ↔ ')}`);
}

// One name, one meaning (docs/architecture.md "Names"): two modules of src/ share a base name
// only when they are the same concern seen from two places — a folder's own `index`, `errors` or
// `types`; a command (cli/commands, cli/definitions) or a route (server/routes) named for what it
// exposes; the SQLite and PostgreSQL adapters of one kind of record (records/sqlite,
// records/postgres) and the part they share (records/).
const SHARED_ROLES = new Set(['index', 'errors', 'types']);
const EXPOSING = ['cli/commands', 'cli/definitions', 'server/routes'];
const ADAPTERS = ['records', 'records/sqlite', 'records/postgres'];
const byBase = new Map();
for (const file of files) {
  const base = path.basename(file).replace(/\.(m?ts|tsx)$/, '');
  if (SHARED_ROLES.has(base)) continue;
  if (!byBase.has(base)) byBase.set(base, []);
  byBase.get(base).push(path.relative(src, path.dirname(file)).split(path.sep).join('/'));
}
for (const [base, dirs] of byBase) {
  if (dirs.length < 2) continue;
  // Commands and routes aside, the rest must be one module, or one kind of record in its adapters.
  const rest = dirs.filter((dir) => !EXPOSING.includes(dir));
  const fine = rest.length <= 1 || rest.every((dir) => ADAPTERS.includes(dir));
  if (!fine) problems.push(`name: ${dirs.map((dir) => `src/${dir}/${base}.ts`).join(', ')} share a base name; name each for what it holds`);
}

if (problems.length > 0) {
  console.error(`Import rules broken (${problems.length}):\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`imports: ${files.length} files in src/, no cycle between files or folders, every import goes down a layer`);
