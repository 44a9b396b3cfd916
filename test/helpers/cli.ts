import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/immoreel.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  input?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newestMtime(dir: string): number {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let freshChecked = false;

/**
 * Throws, with how to fix it, when `bin/immoreel.js` would run a missing or stale `dist/` (a source
 * file newer than every built file): tests of the built CLI must fail then, never skip or test old code.
 */
export function assertBuiltCliIsFresh(): void {
  if (freshChecked) return;
  const built = newestMtime(join(REPO_ROOT, 'dist'));
  const source = newestMtime(join(REPO_ROOT, 'src'));
  if (built === 0) throw new Error('dist/ is missing: the built CLI cannot run. Run `npm run build` (npm test does it first).');
  if (source > built)
    throw new Error('dist/ is older than src/: the built CLI would run old code. Run `npm run build` (npm test does it first).');
  freshChecked = true;
}

/** Runs the built CLI (`npm test` builds first) as a user would, with no TTY. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  assertBuiltCliIsFresh();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
