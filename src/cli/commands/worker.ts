import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';
import { JobManager, parseConcurrency } from '../../jobs/manager.js';
import { guardedFetch, openFetchVia } from '../../net/fetch.js';
import { resolveAsset } from '../../records/assets.js';
import { startJobEndDuties } from '../../server/job-end.js';
import { surviveQueueWritesLostToOutages } from '../lost-queue-writes.js';
import { metricsPortOf } from '../metrics-port.js';
import { contextFor } from '../command-context.js';
import { createLogger, reporterOf } from '../../core/logger.js';

/** Seconds a stopping worker lets running renders finish before putting them back in the queue. */
const DRAIN_MS = 30_000;

/**
 * `worker`: renders queued jobs — of the data directory, or with `--database-url` those the
 * PostgreSQL render queue hands it (docs/scaling.md "Dispatch"); the data directory is then only
 * its scratch space.
 */
export async function worker(
  flags: { untilIdle?: boolean; concurrency?: string; allowLoopbackFetch?: boolean; logLevel?: string },
  command: Command,
): Promise<void> {
  const ctx = contextFor(command);
  const { output, config } = ctx;
  if (ctx.mode === 'remote') {
    throw badRequest(
      "immoreel worker renders the jobs of this machine's store (the data directory, or --database-url); it does not run against a remote server: drop --profile/--base-url.",
    );
  }
  const { dataDir } = config;
  // JSON lines on stderr, as `serve` writes them (docs/operations.md "Logs"); --quiet keeps warnings and errors.
  const log = createLogger({ stream: process.stderr, level: flags.logLevel ?? (output.quiet ? 'warn' : 'info'), process: 'worker' });
  const report = reporterOf(log);
  // A worker outlives queue writes lost to a database restart (../lost-queue-writes.ts).
  surviveQueueWritesLostToOutages((message) => log.warn({ event: 'queue_write_lost' }, message));
  // The embedded default is the data directory's own SQLite file and files, as `serve` uses them,
  // so this worker also renders API jobs that name uploaded assets and owes their webhooks.
  const backends = await ctx.openBackends();
  const shared = ctx.namesSharedBackends();
  if (shared) log.info({ event: 'backends' }, `Records and blobs: ${backends.describe()}`);
  const { records, blobs } = backends;
  const closeStores = (): Promise<void> => backends.close();
  // API jobs fetch through the guarded port, as on an API node (docs/security.md); loopback only in tests.
  const fetch = guardedFetch({ allowLoopback: config.allowLoopbackFetch });
  // Whichever process ends a job settles its charge and sends its webhook (docs/scaling.md "Webhooks").
  const duties = startJobEndDuties({ records, fetch, log: report });
  const metricsPort = await metricsPortOf(config);
  let manager: JobManager;
  try {
    manager = await JobManager.open({
      dataDir,
      records,
      blobs,
      concurrency: flags.concurrency === undefined ? undefined : parseConcurrency(flags.concurrency),
      runWorkers: true,
      guardedFetch: fetch,
      openFetch: openFetchVia(config.proxy),
      ffmpeg: config.ffmpeg,
      timings: config.jobs,
      ...(config.eurToMad === undefined ? {} : { eurToMad: config.eurToMad }),
      resolveAsset: (tenant, assetId, scratchDir) => resolveAsset({ records, blobs }, tenant, assetId, scratchDir),
      report,
      ...(metricsPort === null ? {} : { metrics: metricsPort.metrics }),
    });
  } catch (error) {
    await duties.stop();
    await closeStores();
    throw error;
  }
  let closed: Promise<void> | null = null;
  const close = (drainMs?: number): Promise<void> =>
    (closed ??= (async () => {
      await manager.close({ drainMs });
      await metricsPort?.close();
      await duties.stop();
      await closeStores();
    })());
  // onTerminal catches and logs its own failures (the sweep retries them): the job layer does not wait on it.
  manager.onTerminal((job, tenant) => void duties.onTerminal(job, tenant));
  manager.onTerminal((job, tenant) => {
    // --json: one record a job on stdout, for scripts; the log line goes to stderr either way.
    if (output.json) output.record({ ok: true, status: 'success', job });
    const fields = { event: 'job_ended', job_id: job.job_id, tenant, attempt: job.attempts, state: job.state };
    if (job.state === 'failed') log.warn({ ...fields, error_code: job.error?.code }, `${job.job_id} failed: ${job.error?.message ?? ''}`);
    else log.info(fields, `${job.job_id} ${job.state}`);
  });
  // Listened for before "ready" is written: a signal sent on reading that line must drain, not kill.
  let stopping = false;
  const stopped = new Promise<void>((resolve, reject) => {
    const stop = (signal: NodeJS.Signals): void => {
      // A second signal stops at once: the process ends, and its running jobs go back to the queue
      // when their lease runs out (at once for a worker on the same machine: its pid is gone).
      if (stopping) return resolve();
      log.info({ event: 'shutdown', signal }, `${signal}: finishing running renders (up to ${DRAIN_MS / 1000} s; again to stop now)…`);
      stopping = true;
      close(DRAIN_MS).then(resolve, reject);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // The worker's metrics and probes (docs/operations.md "Metrics"); a port that cannot be had stops it.
  const metricsUrl = await metricsPort
    ?.listen({ records, blobs }, () => {
      const status = manager.workerStatus();
      return status.ready ? null : (status.message ?? 'This worker is not ready.');
    })
    .catch(async (error: unknown) => {
      await close(0);
      throw error;
    });
  if (metricsUrl !== undefined) {
    log.info(
      { event: 'metrics', url: `${metricsUrl}/metrics` },
      `Metrics on ${metricsUrl}/metrics, probes on ${metricsUrl}/api/v1/health and /api/v1/ready`,
    );
  }
  log.info(
    {
      event: 'ready',
      concurrency: manager.concurrency,
      threads_per_render: manager.threadsPerRender,
      ...(!shared ? { data_dir: dataDir } : { records: records.kind, videos: blobs.location }),
    },
    `Worker on ${!shared ? dataDir : `${records.kind} records, videos in ${blobs.location}`}: ${manager.concurrency} render(s) at once, up to ${manager.threadsPerRender} ffmpeg thread(s) each (shared among the renders running).`,
  );
  if (flags.untilIdle) {
    await Promise.race([manager.whenIdle(), stopped]);
    await close();
    log.info({ event: 'stopped' }, 'Queue drained; worker stopping.');
  } else {
    await stopped;
    log.info({ event: 'stopped' }, 'stopped');
  }
}
