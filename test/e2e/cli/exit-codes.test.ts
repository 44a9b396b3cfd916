import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoListingText, demoPhotos } from '../../../src/render/demo.js';
import { LocalService } from '../../../src/service/local-service.js';
import { REPO_ROOT, runCli } from '../../helpers/cli.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/*
 * Every row of the exit-code table in docs/cli.md, run as written: the table is the contract, this
 * test keeps it true. Rows whose command is not in backticks are covered elsewhere (the pty test).
 */

const BIN = fileURLToPath(new URL('../../../bin/immoreel.js', import.meta.url));

interface Row {
  code: number;
  situation: string;
  args: string[];
  env: Record<string, string>;
  piped: boolean;
}

/** Splits a documented command into words ("double quotes" group words). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function tableRows(): Row[] {
  const doc = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Exit codes'), doc.indexOf('\n## ', doc.indexOf('## Exit codes') + 5));
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 5 || !/^\d+$/.test(cells[1]!)) continue;
    const last = cells[4]!;
    const command = /^`([^`]+)`/.exec(last);
    if (command === null) continue;
    const env = Object.fromEntries([...last.matchAll(/with (\w+)=(\S+?)\)/g)].map((m) => [m[1]!, m[2]!]));
    rows.push({ code: Number(cells[1]), situation: cells[3]!, args: words(command[1]!), env, piped: /piped into a reader/.test(last) });
  }
  return rows;
}

/** Runs the CLI with stdout read once then closed, as `| head -1` does. */
function runPipedToEarlyReader(args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code) => {
      if (stderr.includes('    at ')) reject(new Error(`stack trace printed:\n${stderr}`));
      resolve(code ?? -1);
    });
  });
}

describe('the exit codes documented in docs/cli.md', () => {
  let work: string;
  let server: Server;
  let serverUrl: string;
  let canceledJob: string;
  const rows = tableRows();

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'immoreel-exit-'));
    const listing = 'Appartement 100 m² à Maârif, Casablanca, 3 chambres, 1 200 000 DH';
    writeFileSync(join(work, 'ok.csv'), `id,description\na,"${listing}"\n`);
    writeFileSync(join(work, 'many.csv'), `id,description\n${Array.from({ length: 40 }, (_, i) => `r${i},"${listing}"`).join('\n')}\n`);
    writeFileSync(join(work, 'typo.csv'), `id,descriptoin\na,"${listing}"\n`);
    writeFileSync(join(work, 'one-bad-row.csv'), `id,description,url\ngood,"${listing}",\nbad,,\n`);
    writeFileSync(join(work, 'a-file'), 'not a folder');
    writeFileSync(join(work, 'a-file.mp4'), 'already here');
    // A stand-in immoreel server: /401/… refuses the key, /quota/… says the quota is used up.
    server = createServer((request, response) => {
      const [status, code] = request.url?.startsWith('/401/') ? [401, 'UNAUTHORIZED'] : [403, 'QUOTA_EXCEEDED'];
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ok: false,
          status: 'error',
          error: { code, message: code === 'UNAUTHORIZED' ? 'Invalid API key.' : 'Monthly quota used up.', details: [] },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A job canceled before anything rendered it: `jobs wait` on it is "render job failed".
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: join(work, 'data') });
    try {
      const job = await service.renderVideo({ description: demoListingText(), photos: demoPhotos(), music: 'none' });
      canceledJob = (await service.cancelJob(job.job_id)).job_id;
    } finally {
      await service.close();
    }
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(work, { recursive: true, force: true });
  });

  it('covers every exit code of the CLI', () => {
    expect(new Set(rows.map((r) => r.code))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
  });

  it.each(rows.map((r) => [r.code, r.situation, r] as const))('exit %i: %s', async (code, _situation, row) => {
    const args = [
      '--data-dir',
      join(work, 'data'),
      ...row.args.map((a) => a.replace('$SERVER', serverUrl).replace('$CANCELED_JOB', canceledJob)),
    ];
    const env = { IMMOREEL_API_KEY: 'imk_test_key_for_exit_codes', IMMOREEL_CONFIG_DIR: join(work, 'config'), ...row.env };
    if (row.piped) {
      expect(await runPipedToEarlyReader(args, work, env)).toBe(code);
      return;
    }
    const result = await runCli(args, { cwd: work, env });
    expect(result.code, result.stderr).toBe(code);
    // Never a stack trace, whatever happened.
    expect(result.stderr).not.toMatch(/\n\s+at /);
    if (code !== 0) expect(result.stderr).toMatch(/^error: /m);
  });
});
