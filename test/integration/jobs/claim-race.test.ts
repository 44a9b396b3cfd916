import { openJobManager } from '../../helpers/job-manager.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

const WORKER = fileURLToPath(new URL('../../helpers/fake-worker.ts', import.meta.url));

function runWorker(dataDir: string, log: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, dataDir, log, '40'], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
}

describe('several processes on one data directory', () => {
  it('never run one job twice and leave none behind (cron overlapping a manual run)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-race-'));
    const log = join(dataDir, 'renders.log');
    writeFileSync(log, '');
    const setup = await openJobManager({ ffmpeg: TEST_FFMPEG, dataDir, runWorkers: false });
    const ids: string[] = [];
    for (let i = 0; i < 60; i += 1) ids.push((await setup.submit(fakeRequest(), { tenant: 'local' })).job_id);
    const codes = await Promise.all([runWorker(dataDir, log), runWorker(dataDir, log), runWorker(dataDir, log)]);
    expect(codes).toEqual([0, 0, 0]);
    const renders = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    const rendered = renders.map(([id]) => id);
    expect(rendered.sort()).toEqual([...ids].sort());
    // The work was really shared: more than one process rendered.
    expect(new Set(renders.map(([, pid]) => pid)).size).toBeGreaterThan(1);
    expect(await setup.countJobs('local', ['succeeded'])).toBe(60);
    await setup.close();
  });
});
