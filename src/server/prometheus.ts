import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const PROMTOOL_REJECTED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];
import type { BlobStore } from '../blobs/types.js';
import type { Metrics, OutageService, RefusalReason } from '../core/metrics.js';
import { JOB_STATES, type JobState } from '../core/types.js';
import type { RecordStore } from '../records/types.js';
import { checkReadiness, READY_CHECK_TIMEOUT_MS } from './readiness.js';

/**
 * The Prometheus side of `Metrics` (docs/operations.md "Metrics"): one registry per process,
 * built by `serve` and `worker` and read by the metrics port (./metrics-endpoint.ts). Counters and
 * histograms are fed by the layers as things happen; the gauges that describe records (jobs by
 * state, queue depth, outbox backlog) and readiness are read from the database when scraped.
 */

/** Where the gauges read at a scrape come from: the process's own records and blob store. */
export interface MetricSources {
  records: Pick<RecordStore, 'jobs' | 'webhooks' | 'ping' | 'pingQueue'>;
  blobs: Pick<BlobStore, 'check'>;
  /** Past this, a scrape stops waiting for the database: the record gauges keep their last values, ready is 0 (default 2 s). */
  collectTimeoutMs?: number;
}

const OPERATIONS = ['upload', 'finish'] as const;
const SERVICES: readonly OutageService[] = ['database', 'storage'];
const REASONS: readonly RefusalReason[] = ['rate_limit', 'quota', 'decode_queue_full'];

class CollectTimeout extends Error {}

/** `work`, or a rejection once `ms` have passed: a hung database must not hang the scrape. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CollectTimeout(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly inFlight: Gauge;
  private readonly renderSeconds: Histogram;
  private readonly fetchSeconds: Histogram;
  private readonly uploadSeconds: Histogram;
  private readonly retries: Counter<'operation'>;
  private readonly outages: Counter<'service'>;
  private readonly refusals: Counter<'reason'>;
  private readonly jobs: Gauge<'state'>;
  private readonly queueDepth: Gauge;
  private readonly outboxBacklog: Gauge;
  private reading: Promise<void> | null = null;
  private sources: MetricSources | null = null;

  /** `processMetrics: false` leaves out prom-client's process metrics, whose GC observer stays for the life of the process. */
  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client also exports these three as gauges with a counter's `_total` suffix, which
      // promtool's lint rejects; `nodejs_active_handles` (by type) etc. carry the same numbers.
      for (const name of PROMTOOL_REJECTED_DEFAULTS) this.registry.removeSingleMetric(name);
    }
    this.inFlight = new Gauge({ name: 'immoreel_renders_in_flight', help: 'Renders running in this process now.', registers });
    this.renderSeconds = new Histogram({
      name: 'immoreel_render_duration_seconds',
      help: 'Time from the start of a render (analysis, photos, ffmpeg, verification) to its verified video, for renders that produced one.',
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800],
      registers,
    });
    this.fetchSeconds = new Histogram({
      name: 'immoreel_fetch_duration_seconds',
      help: 'Time of each outgoing fetch of a listing page, photo or logo, whatever its outcome.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.uploadSeconds = new Histogram({
      name: 'immoreel_upload_duration_seconds',
      help: 'Time to copy a verified video to the blob store (not counted when the store is the data directory itself).',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.retries = new Counter({
      name: 'immoreel_retries_total',
      help: 'Operations tried again because the database or the storage was down, by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.outages = new Counter({
      name: 'immoreel_outages_total',
      help: 'Outages of the database or the storage, counted once per operation that met one.',
      labelNames: ['service'],
      registers,
    });
    this.refusals = new Counter({
      name: 'immoreel_refusals_total',
      help: 'Requests refused before any work: rate and job limits (429), monthly quota, full image-decode queue.',
      labelNames: ['reason'],
      registers,
    });
    // Every series exists from the start at 0, so rate() and increase() see the first event.
    for (const operation of OPERATIONS) this.retries.inc({ operation }, 0);
    for (const service of SERVICES) this.outages.inc({ service }, 0);
    for (const reason of REASONS) this.refusals.inc({ reason }, 0);

    const read = (): Promise<void> => this.readRecords();
    this.jobs = new Gauge({
      name: 'immoreel_jobs',
      help: 'Jobs in the records by state (shared by every process on one database).',
      labelNames: ['state'],
      registers,
      collect: read,
    });
    this.queueDepth = new Gauge({
      name: 'immoreel_queue_depth',
      help: 'Jobs queued and waiting for a render slot (shared by every process on one database).',
      registers,
      collect: read,
    });
    this.outboxBacklog = new Gauge({
      name: 'immoreel_outbox_backlog',
      help: 'Webhook deliveries owed and not yet made (shared by every process on one database).',
      registers,
      collect: read,
    });
    const ready = new Gauge({
      name: 'immoreel_ready',
      help: 'Whether this process is ready (1) or not (0): its database, storage and render queue answer (GET /api/v1/ready).',
      registers,
      collect: async () => {
        if (this.sources === null) return;
        const readiness = await checkReadiness(this.sources, this.sources.collectTimeoutMs ?? READY_CHECK_TIMEOUT_MS);
        ready.set(readiness.ready ? 1 : 0);
      },
    });
  }

  /** The records and blobs to read at each scrape, once the process has opened them. */
  readFrom(sources: MetricSources): void {
    this.sources = sources;
  }

  /**
   * One read of the records per scrape, shared by the three gauges that show it (prom-client
   * collects them at once). A database that does not answer in time leaves their last values.
   */
  private readRecords(): Promise<void> {
    const sources = this.sources;
    if (sources === null) return Promise.resolve();
    this.reading ??= (async () => {
      const { jobs, webhooks } = sources.records;
      const timeoutMs = sources.collectTimeoutMs ?? READY_CHECK_TIMEOUT_MS;
      try {
        const [counts, backlog] = await within(
          Promise.all([
            Promise.all(JOB_STATES.map(async (state) => [state, await jobs.count(null, [state])] as const)),
            webhooks.backlog(),
          ]),
          timeoutMs,
        );
        for (const [state, n] of counts as (readonly [JobState, number])[]) this.jobs.set({ state }, Number(n));
        this.queueDepth.set(Number(counts.find(([state]) => state === 'queued')?.[1] ?? 0));
        this.outboxBacklog.set(Number(backlog));
      } catch {
        // Down or slow: the last values stay, and `immoreel_ready` (0) says why they do not move.
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  renderStarted(): void {
    this.inFlight.inc();
  }

  renderEnded(seconds: number | null): void {
    this.inFlight.dec();
    if (seconds !== null) this.renderSeconds.observe(seconds);
  }

  fetched(seconds: number): void {
    this.fetchSeconds.observe(seconds);
  }

  uploaded(seconds: number): void {
    this.uploadSeconds.observe(seconds);
  }

  retried(operation: string): void {
    this.retries.inc({ operation });
  }

  outageBegan(service: OutageService): void {
    this.outages.inc({ service });
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
