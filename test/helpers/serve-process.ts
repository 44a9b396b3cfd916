import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './cli.js';

/** Helpers for the end-to-end server tests: the real `immoreel serve` process on loopback. */

const BIN = fileURLToPath(new URL('../../bin/immoreel.js', import.meta.url));

export interface ServeProcess {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Every JSON log line the server wrote to stderr so far. */
  logs: Record<string, unknown>[];
  rawStderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'immoreel-serve-'));
}

export async function startServe(dataDir: string, extraArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', '0', ...extraArgs], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let pending = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.trim() === '') continue;
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry.event === 'listening') {
            clearTimeout(timer);
            resolve(String(entry.url));
          }
        } catch {
          // Not a log line (a Node warning): kept in rawStderr only.
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    logs,
    rawStderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface CreatedKey {
  key_id: string;
  api_key: string;
  tenant: string;
  scopes: string[];
  plan: string;
  monthly_quota: number;
  webhook_secret: string;
}

export async function createKey(dataDir: string, args: string[]): Promise<CreatedKey> {
  const result = await runCli(['--data-dir', dataDir, 'keys', 'create', '--json', ...args]);
  if (result.code !== 0) throw new Error(`keys create failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as CreatedKey;
}

export function bearer(key: CreatedKey): Record<string, string> {
  return { authorization: `Bearer ${key.api_key}` };
}
