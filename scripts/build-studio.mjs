// Builds the Studio page (web/) into dist/studio/: one bundled, minified script and one stylesheet,
// both named by a hash of their content (served with a year of caching), and index.html naming them.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'studio');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const result = await build({
  entryPoints: { app: join(root, 'web/src/main.ts'), studio: join(root, 'web/src/studio.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  entryNames: '[name]-[hash]',
  outdir: out,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const js = outputs.find((file) => file.startsWith('app-') && file.endsWith('.js'));
const css = outputs.find((file) => file.startsWith('studio-') && file.endsWith('.css'));
if (js === undefined || css === undefined) throw new Error(`esbuild produced ${outputs.join(', ')}: app-*.js and studio-*.css expected`);
const html = (await readFile(join(root, 'web/index.html'), 'utf8')).replace('{{js}}', `/${js}`).replace('{{css}}', `/${css}`);
await writeFile(join(out, 'index.html'), html);
