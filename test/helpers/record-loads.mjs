// Preloaded with `node --import` by test/e2e/cli/start.test.ts: reports on stderr every module the
// process resolves (LOAD url) and every native addon it opens (DLOPEN file).
// The resolve hook runs on the loader's own thread, where `process.stderr.write` is handed to the
// main thread and lost when the CLI exits first (seen on Node 24): it writes to fd 2 synchronously.
import { register } from 'node:module';
import process from 'node:process';

const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  process.stderr.write(`DLOPEN ${filename}\n`);
  return dlopen.call(this, module, filename, ...rest);
};
const hooks = `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith('node:')) writeSync(2, 'LOAD ' + resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
