import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';
import { resolveDataDir } from '../../core/paths.js';
import { JobManager, parseConcurrency } from '../../jobs/manager.js';
import { contextFor } from '../context.js';

/** Seconds a stopping worker lets running renders finish before putting them back in the queue. */
const DRAIN_MS = 30_000;

/** `worker`: renders the queued jobs of the local data directory. */
export async function worker(flags: { untilIdle?: boolean; concurrency?: string }, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const { output, globals } = ctx;
  if (ctx.mode === 'remote') {
    throw badRequest('immoreel worker renders the jobs of a local data directory; it does not run against a remote server.');
  }
  const dataDir = resolveDataDir(globals.dataDir);
  const { databaseUrl, storageUrl } = ctx.backendOptions();
  const backends = await ctx.openConfiguredBackends();
  const opened = backends === null ? {} : { records: backends.records, blobs: backends.blobs };
  if (backends !== null) output.info(`Records and blobs: ${backends.describe()}`);
  const manager = JobManager.open({
    ...{ databaseUrl, storageUrl, ...opened },
    dataDir,
    concurrency: flags.concurrency === undefined ? undefined : parseConcurrency(flags.concurrency),
    runWorkers: true,
  });
  manager.onTerminal((job) => {
    if (output.json) output.record({ ok: true, status: 'success', job });
    else if (job.state === 'failed') output.warn(`${job.job_id} failed: ${job.error?.message ?? ''}`);
    else output.info(`${job.job_id} ${job.state}`);
  });
  output.info(
    `Worker on ${dataDir}: ${manager.concurrency} render(s) at once, up to ${manager.threadsPerRender} ffmpeg thread(s) each (shared among the renders running).`,
  );
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      // A second signal stops at once: running renders go back to the queue.
      const drainMs = stopping ? 0 : DRAIN_MS;
      if (!stopping) output.info(`${signal}: finishing running renders (up to ${DRAIN_MS / 1000} s; again to stop now)…`);
      stopping = true;
      void manager.close({ drainMs }).then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (flags.untilIdle) {
    await Promise.race([manager.whenIdle(), stopped]);
    await manager.close();
    output.info('Queue drained; worker stopping.');
  } else {
    await stopped;
  }
  await backends?.close();
}
