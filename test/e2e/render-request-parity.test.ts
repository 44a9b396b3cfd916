import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeHarness, type Harness } from '../helpers/server-harness.js';

/**
 * One invalid field, three front doors: `immoreel render` flags, a row of `render --csv`, and
 * POST /api/v1/render-video. Each must answer the same code, field and message.
 */

const LONG_NAME = 'A'.repeat(81);
const DESCRIPTION = 'Villa à vendre à Marrakech, 4 chambres, piscine, 300 m². Prix : 4 500 000 DH.';

interface Case {
  name: string;
  flags: string[];
  column: [string, string];
  body: Record<string, unknown>;
  field: string;
}

const CASES: Case[] = [
  {
    name: 'agency name too long',
    flags: ['--agency', LONG_NAME],
    column: ['agency_name', LONG_NAME],
    body: { branding: { agency_name: LONG_NAME } },
    field: 'branding.agency_name',
  },
  {
    name: 'agent name too long',
    flags: ['--agent', LONG_NAME],
    column: ['agent_name', LONG_NAME],
    body: { branding: { agent_name: LONG_NAME } },
    field: 'branding.agent_name',
  },
  {
    name: 'phone too long',
    flags: ['--phone', `+212 ${'6'.repeat(30)}`],
    column: ['phone', `+212 ${'6'.repeat(30)}`],
    body: { branding: { phone: `+212 ${'6'.repeat(30)}` } },
    field: 'branding.phone',
  },
  {
    name: 'phone not a number',
    flags: ['--phone', 'call me'],
    column: ['phone', 'call me'],
    body: { branding: { phone: 'call me' } },
    field: 'branding.phone',
  },
  {
    name: 'bad e-mail',
    flags: ['--email', 'not-an-email'],
    column: ['email', 'not-an-email'],
    body: { branding: { email: 'not-an-email' } },
    field: 'branding.email',
  },
  {
    name: 'bad colour',
    flags: ['--color', 'red'],
    column: ['primary_color', 'red'],
    body: { branding: { primary_color: 'red' } },
    field: 'branding.primary_color',
  },
  {
    name: 'unknown template',
    flags: ['--template', 'fancy'],
    column: ['template', 'fancy'],
    body: { template: 'fancy' },
    field: 'template',
  },
  {
    name: 'duration below the minimum',
    flags: ['--duration', '5'],
    column: ['duration_s', '5'],
    body: { duration_s: 5 },
    field: 'duration_s',
  },
  {
    name: 'duration above the maximum',
    flags: ['--duration', '120'],
    column: ['duration_s', '120'],
    body: { duration_s: 120 },
    field: 'duration_s',
  },
  {
    name: 'photo URL without a host',
    flags: ['--photos', 'https://'],
    column: ['photos', 'https://'],
    body: { photos: ['https://'] },
    field: 'photos[0]',
  },
  { name: 'unknown music', flags: ['--music', 'jazz'], column: ['music', 'jazz'], body: { music: 'jazz' }, field: 'music' },
];

interface ErrorBody {
  code: string;
  message: string;
  reason?: string;
  details: { field: string; message: string }[];
}

const comparable = (error: ErrorBody) => ({ code: error.code, message: error.message, reason: error.reason, details: error.details });

describe('the same invalid render request through the CLI, a CSV row and HTTP', () => {
  let dir: string;
  let harness: Harness;
  let baseUrl: string;
  let auth: Record<string, string>;
  const csvAnswers = new Map<string, ErrorBody>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'immoreel-parity-'));
    harness = await makeHarness({ runWorkers: false });
    auth = harness.key().auth;
    baseUrl = await harness.app.listen({ host: '127.0.0.1', port: 0 });
    // Every case as one row of one CSV file, run once.
    const columns = ['id', 'description', ...new Set(CASES.map((c) => c.column[0]))];
    const rows = CASES.map((c, index) => ({ id: `case${index}`, description: DESCRIPTION, [c.column[0]]: c.column[1] }));
    writeFileSync(join(dir, 'rows.csv'), stringify(rows, { header: true, columns }));
    const batch = await runCli(['render', '--json', '--csv', join(dir, 'rows.csv'), '--out-dir', join(dir, 'out')], {
      env: { IMMOREEL_DATA_DIR: join(dir, 'data') },
    });
    expect(batch.code, batch.stderr).toBe(3);
    for (const line of batch.stdout.split('\n').filter((l) => l.startsWith('{'))) {
      const record = JSON.parse(line) as { id?: string; ok: boolean; error?: ErrorBody };
      if (record.id !== undefined && record.error !== undefined) csvAnswers.set(record.id, record.error);
    }
    expect(
      readFileSync(join(dir, 'rows.failed.csv'), 'utf8')
        .split('\n')
        .filter((l) => l !== '').length,
    ).toBe(CASES.length + 1);
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES.map((c, index) => [c.name, c, index] as const))(
    '%s',
    async (_name, testCase, index) => {
      const http = await fetch(`${baseUrl}/api/v1/render-video`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ description: DESCRIPTION, ...testCase.body }),
      });
      expect(http.status).toBe(400);
      const httpError = ((await http.json()) as { error: ErrorBody }).error;
      expect(httpError.details.map((d) => d.field)).toEqual([testCase.field]);

      const cli = await runCli(['render', '--json', '--description', DESCRIPTION, ...testCase.flags, '--out', join(dir, `${index}.mp4`)], {
        env: { IMMOREEL_DATA_DIR: join(dir, 'data') },
      });
      expect(cli.code, cli.stderr).toBe(2);
      const cliError = (JSON.parse(cli.stdout) as { error: ErrorBody }).error;

      const csvError = csvAnswers.get(`case${index}`);
      expect(csvError, `no answer for CSV row case${index}`).toBeDefined();
      expect(comparable(cliError)).toEqual(comparable(httpError));
      expect(comparable(csvError!)).toEqual(comparable(httpError));
    },
    60_000,
  );
});
