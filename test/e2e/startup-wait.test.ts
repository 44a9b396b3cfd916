import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { startPostgres, type PostgresServer } from '../helpers/services.js';

/*
 * `immoreel serve` started before its PostgreSQL (docs/operations.md "Start-up"): it waits, saying
 * why, and serves once the database is there; with a short --startup-wait it gives up with exit 6.
 */

let postgres: PostgresServer;
let databaseUrl: string;
let root: string;

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase();
  root = mkdtempSync(join(tmpdir(), 'immoreel-startup-'));
  await postgres.halt();
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

const backendArgs = (): string[] => ['--database-url', databaseUrl, '--storage-url', `file://${join(root, 'blobs')}`];

describe('serve started while PostgreSQL is down', () => {
  it('waits for the database, saying so, and is ready once it is back', { timeout: 150_000 }, async () => {
    const child = spawn(
      process.execPath,
      [BIN, '--data-dir', join(root, 'node'), 'serve', '--port', '0', ...backendArgs(), '--startup-wait', '60'],
      {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lineWith = async (event: string): Promise<Record<string, unknown>> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        for (const line of stderr.split('\n')) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (entry.event === event) return entry;
        }
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no "${event}" line; stderr:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      const wait = await lineWith('startup_wait');
      expect(String(wait.msg)).toMatch(
        /^database not reachable yet \(connection refused\); retrying in [\d.]+ s \(waited \d+ s of 60 s\)$/,
      );
      expect(JSON.stringify(wait)).not.toContain(String(postgres.port));
      expect(wait.level).toBe('warn');
      await postgres.resume();
      const listening = await lineWith('listening');
      const ready = await fetch(`${String(listening.url)}/api/v1/ready`);
      expect(ready.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await postgres.halt();
    }
  });

  it('gives up with exit 6 and a clear message once --startup-wait is used up', { timeout: 150_000 }, async () => {
    const started = Date.now();
    const result = await runCli(['--data-dir', join(root, 'node'), 'serve', '--port', '0', ...backendArgs(), '--startup-wait', '3'], {
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(result.stderr).toContain('"event":"startup_wait"');
    expect(result.stderr).toMatch(
      /error: PostgreSQL is unreachable at postgres:\/\/\S+ \(ECONNREFUSED\): check the host, the port and that the server runs\. Gave up after waiting [34] s for it \(--startup-wait \/ IMMOREEL_STARTUP_WAIT_SECONDS, now 3 s\)\./,
    );
  });
});
