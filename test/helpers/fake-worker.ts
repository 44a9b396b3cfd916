/**
 * A worker process for the multi-process tests: the real JobManager and store, a fake engine
 * that logs every job it renders to LOG (one id per line). Runs until the queue is drained.
 * Usage: node --import tsx fake-worker.ts DATA_DIR LOG [RENDER_MS]
 */
import { appendFileSync } from 'node:fs';
import { fakeEngine } from './fake-engine.js';
import { openJobManager } from './job-manager.js';

const [dataDir, log, ms] = process.argv.slice(2) as [string, string, string | undefined];
const inner = fakeEngine({ ms: Number(ms ?? 50) });
const manager = await openJobManager({
  // The fake engine never runs ffmpeg: no settings to look it up with.
  ffmpeg: { searchPath: '' },
  dataDir,
  concurrency: 4,
  pollMs: 10,
  engine: async (request, ctx) => {
    appendFileSync(log, `${ctx.workDir.split('/').pop()} ${process.pid}\n`);
    return inner(request, ctx);
  },
});
await manager.whenIdle();
await manager.close();
