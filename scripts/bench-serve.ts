/**
 * What the server benchmarks share: their command-line numbers, percentiles, and the built
 * `immoreel serve` started in its own process on a fresh data directory with one key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openServerStore } from '../src/records/sqlite/server-records.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(ROOT, 'bin/immoreel.js');

/** `--name N` from the command line, or `fallback`. */
export function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

export interface BuiltServer {
  url: string;
  apiKey: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `immoreel serve` from dist/ with `args`, on a fresh data directory holding one key. */
export async function startBuiltServe(args: string[]): Promise<BuiltServer> {
  if (!existsSync(join(ROOT, 'dist/cli/main.js')))
    throw new Error('Run `npm run build` first: the benchmark starts the built `immoreel serve`.');
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-'));
  const store = openServerStore(dataDir);
  const { apiKey } = store.keys.create({ tenant: 'bench', monthlyQuota: 100_000_000 });
  store.close();
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const match = /"event":"listening","url":"([^"]+)"/.exec(buffer);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${buffer}`)));
    });
    return { url, apiKey, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
