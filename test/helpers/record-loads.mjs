// Preloaded with `node --import` by test/e2e/cli/start.test.ts: reports on stderr every module the
// process resolves (LOAD url) and every native addon it opens (DLOPEN file).
import { register } from 'node:module';
import process from 'node:process';

const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  process.stderr.write(`DLOPEN ${filename}\n`);
  return dlopen.call(this, module, filename, ...rest);
};
const hooks = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith('node:')) process.stderr.write('LOAD ' + resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
