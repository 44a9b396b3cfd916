#!/usr/bin/env node
// Fails when a reference to the project's docs names a file or a section that does not exist, and
// when the code cites a document users never get (docs/contributing.md "Docs references"). Run by
// `npm run lint`; `node scripts/check-doc-refs.mjs [root]` checks another tree (the tests do).
//
// A reference is `docs/<name>.md` (a file), optionally followed by its section in double quotes:
// `docs/<name>.md "Section"`, `docs/<name>.md, "Section"`, `docs/<name>.md ("Section")`, the quote
// possibly on the next line of the same comment (and wrapping once). A section matches a `#` heading of that file
// exactly (case included), or the heading without its trailing parenthetical ("Measured" names
// `## Measured (npm run bench:render)`), or the heading's title before its colon ("Dispatch" names
// `## Dispatch: pg-boss`). Backticks are ignored on both sides. Markdown links to a `.md` file
// (`[text](docs/<name>.md)`) must name an existing file.
import console from 'node:console';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));

/** Where references are looked for. */
const SCANNED = ['src', 'docs', 'web/src', 'scripts', 'README.md'];
const TEXT_FILE = /\.(ts|mts|js|mjs|cjs|tsx|md|css|html|sh|json)$/;
/** Generated or vendored folders: nothing in them is ours to keep true. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git']);

function listFiles(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const child = path.join(entry, name);
    if (statSync(path.join(root, child)).isDirectory()) return listFiles(child);
    return TEXT_FILE.test(name) ? [child] : [];
  });
}

const plain = (text) => text.replaceAll('`', '').trim();

const headingCache = new Map();
/** The names a section reference may use for the headings of `file` (relative to root). */
function headingsOf(file) {
  if (!headingCache.has(file)) {
    const names = new Set();
    let fenced = false;
    for (const line of readFileSync(path.join(root, file), 'utf8').split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading === null) continue;
      const text = plain(heading[1]);
      names.add(text);
      const bare = text.replace(/\s*\([^()]*\)$/, '');
      if (bare !== '') names.add(bare);
      const title = /^([^:]+):\s/.exec(text);
      if (title !== null) names.add(title[1].trim());
    }
    headingCache.set(file, names);
  }
  return headingCache.get(file);
}

const lineOf = (text, index) => text.slice(0, index).split('\n').length;

// `docs/<name>.md`, then optionally: `,`? spaces, a line break with the next comment line's marker,
// and the section in quotes (or in `("…")`).
// The quote itself may wrap once onto the next comment line.
const NEXT_LINE = String.raw`\r?\n[ \t]*(?:\*|\/\/|#)?[ \t]*`;
const QUOTED = String.raw`"([^"\n]+(?:${NEXT_LINE}[^"\n]+)?)"`;
const REFERENCE = new RegExp(String.raw`(?<![\w/.-])docs\/([\w./-]+?\.md)\b(?:,?[ \t]*(?:${NEXT_LINE})?(?:${QUOTED}|\(${QUOTED}\)))?`, 'g');
const oneLine = (text) => text.replace(new RegExp(NEXT_LINE, 'g'), ' ').replace(/\s+/g, ' ');
const MARKDOWN_LINK = /\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)/g;
// Documents users never get: the docs cited must be the repository's own (DESIGN.md, the
// specification and the research notes live outside it). `§` is allowed after an RFC number.
const FOREIGN = [
  { pattern: /\bDESIGN\b/g, why: 'cites DESIGN: cite docs/<name>.md "Section" instead' },
  { pattern: /(?<!\bRFC \d+ )§/g, why: 'cites a § section of a document outside the repository: cite docs/<name>.md "Section" instead' },
  {
    pattern: /\binterface-spec\b|\bresearch\/[\w-]+\.md/g,
    why: 'cites a document outside the repository: cite docs/<name>.md "Section" instead',
  },
];

const problems = [];
const files = SCANNED.flatMap(listFiles);
let checked = 0;
for (const file of files) {
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const match of text.matchAll(REFERENCE)) {
    checked += 1;
    const target = `docs/${match[1]}`;
    const where = `${file}:${lineOf(text, match.index)}`;
    if (!existsSync(path.join(root, target))) {
      problems.push(`${where}: ${target} does not exist`);
      continue;
    }
    const quoted = match[2] ?? match[3];
    const section = quoted === undefined ? undefined : oneLine(quoted);
    if (section !== undefined && !headingsOf(target).has(plain(section))) {
      problems.push(`${where}: ${target} has no heading "${section}"`);
    }
  }
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      if (/^[a-z]+:/.test(match[1])) continue;
      const target = path.join(path.dirname(file), match[1]);
      if (!existsSync(path.join(root, target)))
        problems.push(`${file}:${lineOf(text, match.index)}: the link to ${match[1]} names no file`);
    }
  }
  if (file.startsWith('src/')) {
    for (const { pattern, why } of FOREIGN) {
      for (const match of text.matchAll(pattern)) problems.push(`${file}:${lineOf(text, match.index)}: ${why}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`Docs references that are not true (docs/contributing.md "Docs references"):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`docs references: ${checked} in ${files.length} files, every file and heading they name exists`);
