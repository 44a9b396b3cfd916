import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoListingText, demoPhotos } from '../../../src/render/demo.js';
import { LocalService } from '../../../src/service/local-service.js';
import { runCli } from '../../helpers/cli.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/* The ordinary mistakes and habits of a new user, each answered by the CLI as docs/cli.md says. */

let work: string;
let dataDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'immoreel-usability-'));
  dataDir = join(work, 'data');
  const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir });
  try {
    for (let i = 0; i < 2; i += 1) await service.renderVideo({ description: demoListingText(), photos: demoPhotos(), music: 'none' });
  } finally {
    await service.close();
  }
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('files as spreadsheets and editors save them', () => {
  it('analyzes a semicolon-separated Windows-1252 CSV without losing the district', async () => {
    const csv = join(work, 'excel.csv');
    const text = 'id;description\nm1;"Appartement 120 m² à Maârif, Casablanca, 3 chambres, prix 1 850 000 DH"\n';
    writeFileSync(csv, Buffer.from(text, 'latin1'));
    const result = await runCli(['analyze', '--csv', csv, '--json'], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    const row = JSON.parse(result.stdout.trim().split('\n')[0]!) as {
      ok: boolean;
      status: string;
      property: { district: string; city: string };
    };
    expect(row).toMatchObject({ ok: true, status: 'success', property: { city: 'Casablanca', district: 'Maârif' } });
  });

  it('reads a Windows-1252 --description-file', async () => {
    const file = join(work, 'annonce.txt');
    writeFileSync(file, Buffer.from('Appartement 120 m² à Maârif, Casablanca, 3 chambres', 'latin1'));
    const result = await runCli(['analyze', '--description-file', file, '--json'], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).property.district).toBe('Maârif');
  });

  it('warns about a column it does not know, and keeps results in input order with the angles', async () => {
    const csv = join(work, 'notes.csv');
    const rows = Array.from({ length: 6 }, (_, i) => `r${i},"Villa ${200 + i} m² à Marrakech, piscine, ${3 + i} 000 000 DH",rappeler`);
    writeFileSync(csv, `id,description,notes\n${rows.join('\n')}\n`);
    const out = join(work, 'results.csv');
    const result = await runCli(['analyze', '--csv', csv, '--out', out, '--concurrency', '6'], { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/column "notes" ignored/);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/marketing_angles/);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('writes no stdin.failed.csv into the current folder for a batch read from stdin', async () => {
    const result = await runCli(['analyze', '--csv', '-', '--json'], { cwd: work, input: 'id,description\nbad,\n' });
    expect(result.code).toBe(3);
    expect(() => readFileSync(join(work, 'stdin.failed.csv'))).toThrow();
  });
});

describe('words a user sees', () => {
  it('a render error names the flag typed, while --json keeps the request field of the API', async () => {
    const human = await runCli(['--data-dir', dataDir, 'render', '--demo', '--color', 'red', '--out', join(work, 'x.mp4')], { cwd: work });
    expect(human.code).toBe(2);
    expect(human.stderr).toMatch(/--color must be a colour like #/);
    expect(human.stderr).not.toMatch(/branding\.primary_color/);
    const machine = await runCli(['--data-dir', dataDir, '--json', 'render', '--demo', '--color', 'red', '--out', join(work, 'x.mp4')], {
      cwd: work,
    });
    expect(JSON.parse(machine.stdout).error.details[0].field).toBe('branding.primary_color');
  });
});

describe('job ids', () => {
  it('accepts a unique prefix of a job id, with or without job_', async () => {
    const list = JSON.parse((await runCli(['--data-dir', dataDir, '--json', 'jobs', 'list'])).stdout) as { jobs: { job_id: string }[] };
    const id = list.jobs[0]!.job_id;
    // Two ids made in the same millisecond share their time part: take enough characters to be unique.
    const other = list.jobs[1]!.job_id;
    let n = 8;
    while (id.slice(0, n) === other.slice(0, n)) n += 1;
    const shown = await runCli(['--data-dir', dataDir, '--json', 'jobs', 'show', id.slice(4, n + 1)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).job.job_id).toBe(id);
    const ambiguous = await runCli(['--data-dir', dataDir, 'jobs', 'show', other.slice(0, 8)]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/start of several job ids/);
  });
});

describe('hints and envelopes', () => {
  it('the next-page hint keeps --data-dir and --limit', async () => {
    const result = await runCli(['--data-dir', dataDir, 'jobs', 'list', '--limit', '1'], { cwd: work });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(`More: immoreel --data-dir ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} jobs list --limit 1 --cursor \\S+`),
    );
  });

  it('keys commands answer with the one JSON envelope, and say that keys live on the server in remote mode', async () => {
    const created = await runCli(['--data-dir', dataDir, 'keys', 'create', '--tenant', 'acme', '--json']);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, status: 'success', tenant: 'acme' });
    const listed = await runCli(['--data-dir', dataDir, 'keys', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ ok: true, status: 'success', keys: [{ tenant: 'acme' }] });
    const remote = await runCli(['--base-url', 'https://immoreel.example.com', 'keys', 'list']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/API keys live on the server/);
  });
});
