import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

/*
 * Nothing the user made is overwritten unasked (docs/cli.md "Files and paths"): `render --out`
 * refuses a file that exists without --force, as `jobs download` does, before anything is queued.
 */

const work = mkdtempSync(join(tmpdir(), 'immoreel-overwrite-'));
const dataDir = join(work, 'data');
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function jobsQueued(): Promise<number> {
  const listed = await runCli(['--data-dir', dataDir, 'jobs', 'list', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { jobs: unknown[] }).jobs.length;
}

describe('render --out and a file that is already there', () => {
  it('refuses to overwrite the video without --force, says how, and queues nothing', async () => {
    const mine = join(work, 'villa.mp4');
    writeFileSync(mine, 'my earlier video');
    const result = await runCli(['--data-dir', dataDir, 'render', '--demo', '--out', mine]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${mine} already exists: pass --force to overwrite it, or choose another --out.`);
    expect(readFileSync(mine, 'utf8')).toBe('my earlier video');
    expect(await jobsQueued()).toBe(0);
  });

  it("refuses a pack's file and a poster that exist, with --json the error envelope names the field", async () => {
    const stem = join(work, 'pack.mp4');
    writeFileSync(join(work, 'pack-portrait.mp4'), 'mine');
    const pack = await runCli(['--data-dir', dataDir, '--json', 'render', '--demo', '--formats', 'landscape,portrait', '--out', stem]);
    expect(pack.code).toBe(2);
    const body = JSON.parse(pack.stdout) as { error: { reason: string; message: string; details: { field: string }[] } };
    expect(body.error).toMatchObject({ reason: 'file_exists', details: [{ field: 'out' }] });
    expect(body.error.message).toContain('pack-portrait.mp4 already exists');

    const video = join(work, 'poster.mp4');
    writeFileSync(join(work, 'poster-poster.jpg'), 'mine');
    const poster = await runCli(['--data-dir', dataDir, 'render', '--demo', '--poster', '--out', video]);
    expect(poster.code).toBe(2);
    expect(poster.stderr).toContain('poster-poster.jpg already exists');
    expect(await jobsQueued()).toBe(0);
  });
});
