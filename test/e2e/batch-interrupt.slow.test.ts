import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuiltCliIsFresh, BIN, runCli } from '../helpers/cli.js';
import { LISTING_TEXT, makePhotos } from '../helpers/job-photos.js';

/*
 * SIGTERM ends a batch like Ctrl-C (docs/cli.md "Ctrl-C"): a supervisor or `timeout` stopping a cron
 * batch mid-render gets the running rows canceled — reported as canceled, not failed, and not put
 * in the failed-rows file — a closing JSON record that says the batch was cut short, and exit 143.
 */

const work = mkdtempSync(join(tmpdir(), 'immoreel-batch-term-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('render --csv stopped by SIGTERM', () => {
  it('cancels the running rows, reports them canceled, closes with a record and exits 143', { timeout: 120_000 }, async () => {
    assertBuiltCliIsFresh();
    const dataDir = join(work, 'data');
    const photos = await makePhotos(join(work, 'photos'), 2, 960, 720);
    const csv = join(work, 'tonight.csv');
    writeFileSync(
      csv,
      `description,photos,music,duration_s\n"${LISTING_TEXT}",${photos.join('|')},none,10\n"${LISTING_TEXT} Terrasse.",${photos[0]},none,10\n`,
    );
    const child = spawn(
      process.execPath,
      [BIN, '--data-dir', dataDir, '--json', 'render', '--csv', csv, '--out-dir', join(work, 'videos'), '--concurrency', '2'],
      {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Once a render has its scratch directory, the batch is mid-render.
    const jobsDir = join(dataDir, 'jobs');
    const deadline = Date.now() + 60_000;
    while (!(existsSync(jobsDir) && readdirSync(jobsDir).length > 0)) {
      if (Date.now() > deadline) throw new Error(`no render started:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(143);

    const records = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean; status: string; id?: string; signal?: string; summary?: Record<string, number> });
    const closing = records.at(-1)!;
    expect(closing).toMatchObject({ ok: false, status: 'interrupted', signal: 'SIGTERM' });
    const rows = records.slice(0, -1);
    expect(rows.filter((r) => r.status === 'error')).toEqual([]);
    const canceled = rows.filter((r) => r.status === 'canceled');
    expect(canceled.length).toBeGreaterThanOrEqual(1);
    expect(closing.summary).toMatchObject({ failed: 0, canceled: canceled.length });
    // Rows are named after their cells, never their line.
    for (const row of rows) expect(row.id).toMatch(/^row-[0-9a-f]{10}$/);
    expect(existsSync(join(work, 'tonight.failed.csv'))).toBe(false);
    expect(stderr).toMatch(/--resume/);

    // The store agrees: the canceled rows' jobs are canceled, none failed.
    const listed = await runCli(['--data-dir', dataDir, 'jobs', 'list', '--json']);
    const states = (JSON.parse(listed.stdout) as { jobs: { state: string }[] }).jobs.map((job) => job.state);
    expect(states).not.toContain('failed');
    expect(states.filter((state) => state === 'canceled').length).toBeGreaterThanOrEqual(canceled.length);
  });
});
