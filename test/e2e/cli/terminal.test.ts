import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoListingText, demoPhotos } from '../../../src/render/demo.js';
import { runCli } from '../../helpers/cli.js';
import { inTerminal } from '../../helpers/pty.js';

/*
 * The CLI in a real (pseudo-)terminal, as a user at a keyboard runs it: colours and Ctrl-C only
 * exist there. test/helpers/pty-run.py uses python3's pty module (standard library).
 */

const BIN = fileURLToPath(new URL('../../../bin/immoreel.js', import.meta.url));
// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
const ANSI = /\u001b\[[0-9;]*m/;

const plain = (text: string): string => stripVTControlCharacters(text);

describe('the CLI in a terminal', () => {
  let work: string;
  let dataDir: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'immoreel-tty-'));
    dataDir = join(work, 'data');
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('the first Ctrl-C during render cancels the job, stops ffmpeg, removes its files and exits 130', { timeout: 240_000 }, async () => {
    // Interrupted once the render has reached the encoding stages (past 20 %).
    const result = inTerminal(
      [process.execPath, BIN, '--data-dir', dataDir, 'render', '--demo', '--duration', '12', '--out', join(work, 'demo.mp4')],
      work,
      '(?:[2-9]\\d) %',
    );
    expect(result.code, plain(result.output)).toBe(130);
    expect(plain(result.output)).toMatch(/canceled; nothing was saved/);
    expect(plain(result.output)).not.toMatch(/\n\s+at /);
    const jobs = JSON.parse((await runCli(['--data-dir', dataDir, '--json', 'jobs', 'list'])).stdout) as {
      jobs: { job_id: string; state: string }[];
    };
    expect(jobs.jobs.map((j) => j.state)).toEqual(['canceled']);
    // No temporary render files and no video left behind, and no ffmpeg still running on them.
    const jobDir = join(dataDir, 'jobs', jobs.jobs[0]!.job_id);
    const left = existsSync(jobDir) ? readdirSync(jobDir, { recursive: true }).map(String) : [];
    expect(left.filter((f) => /\.tmp\.mp4|soundtrack\.m4a$|\.mp4$|\.parts\.txt$/.test(f))).toEqual([]);
    expect(existsSync(join(work, 'demo.mp4'))).toBe(false);
    const ffmpegs = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /ffmpeg/.test(l) && l.includes(dataDir));
    expect(ffmpegs).toEqual([]);
  });

  it('colours stdout on a terminal, and not when stdout is redirected to a file', () => {
    writeFileSync(
      join(work, 'list.sh'),
      `"${process.execPath}" "${BIN}" --data-dir "${dataDir}" jobs list > "${join(work, 'list.txt')}"\n`,
    );
    const onTerminal = inTerminal([process.execPath, BIN, '--data-dir', dataDir, 'jobs', 'list'], work);
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.output).toMatch(ANSI);
    const redirected = inTerminal(['sh', join(work, 'list.sh')], work);
    expect(redirected.code).toBe(0);
    const file = readFileSync(join(work, 'list.txt'), 'utf8');
    expect(file).toMatch(/canceled/);
    expect(file).not.toMatch(ANSI);
  });

  it('jobs purge asks before deleting on a terminal, and --dry-run deletes nothing', async () => {
    const purge = [process.execPath, BIN, '--data-dir', dataDir, 'jobs', 'purge', '--older-than', '0s'];
    const dry = inTerminal([...purge, '--dry-run'], work);
    expect(plain(dry.output)).toMatch(/Would purge 1 finished job/);
    const declined = inTerminal(purge, work, null, 60, ['\\[y/N\\]', 'n\r']);
    expect(declined.code).toBe(0);
    expect(plain(declined.output)).toMatch(/Nothing was deleted/);
    const accepted = inTerminal(purge, work, null, 60, ['\\[y/N\\]', 'y\r']);
    expect(plain(accepted.output)).toMatch(/Purged 1 finished job/);
  });

  it('Ctrl-C in a batch cancels the running row; --resume renders only what is missing', { timeout: 400_000 }, async () => {
    const photos = demoPhotos().slice(0, 3).join('|');
    const csv = join(work, 'batch.csv');
    writeFileSync(
      csv,
      `id,description,photos,duration_s,music\nfirst,"${demoListingText().replace(/"/g, '""')}",${photos},10,none\nsecond,"${demoListingText().replace(/"/g, '""')}",${photos},10,none\n`,
    );
    const batchDir = join(work, 'batch-data');
    const args = [
      process.execPath,
      BIN,
      '--data-dir',
      batchDir,
      'render',
      '--csv',
      csv,
      '--out-dir',
      join(work, 'videos'),
      '--concurrency',
      '1',
    ];
    // Interrupted once the first row is done and the second is rendering.
    const interrupted = inTerminal(args, work, '✔ first[\\s\\S]*[1-9]\\d? %|1 done, 0 failed, 1 running', 300);
    expect(interrupted.code, plain(interrupted.output)).toBe(130);
    expect(plain(interrupted.output)).toMatch(/--resume/);
    const jobs = JSON.parse((await runCli(['--data-dir', batchDir, '--json', 'jobs', 'list'])).stdout) as { jobs: { state: string }[] };
    expect(jobs.jobs.map((j) => j.state).sort()).toEqual(['canceled', 'succeeded']);
    const resumed = await runCli(
      ['--data-dir', batchDir, '--json', 'render', '--csv', csv, '--out-dir', join(work, 'videos'), '--resume'],
      { cwd: work, timeoutMs: 300_000 },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = resumed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; skipped: boolean });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.skipped]))).toEqual({ first: true, second: false });
  });
});
