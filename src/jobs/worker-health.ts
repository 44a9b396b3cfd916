import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeWorkerFault, type WorkerFaultKind } from '../core/worker-faults.js';

/**
 * Whether this worker may claim jobs now (docs/jobs.md "Worker faults"). A fault of the machine
 * (`workerFaultOf`) met by a render, or less free space in the scratch directory than a render
 * needs, makes the worker not ready: it claims nothing until a back-off has passed (15 s, doubling
 * to 5 min while faults repeat) and the scratch directory has room again. Each change is logged
 * once (`worker_not_ready`, `worker_ready`), and a worker's `/ready` answers 503 meanwhile.
 */

/** Why a worker is not ready: a fault a render met, or a scratch disk found short before claiming. */
export type NotReadyReason = WorkerFaultKind | 'disk_low';

export interface WorkerHealthOptions {
  /** The scratch directory renders work in (`<data dir>/jobs`); its file system is the one checked. */
  scratchDir: string;
  /** Free bytes the scratch file system must have before a job is claimed. */
  minFreeBytes: number;
  /** The pool's reporter (src/jobs/pool.ts `ProblemReporter`): the worker's log. */
  report: (message: string, fields: Record<string, string | number>, level?: 'debug' | 'info' | 'warn' | 'error') => void;
  /** Free bytes of the file system holding `dir` (tests give their own). */
  freeBytes?: (dir: string) => Promise<number>;
  /** First back-off after a fault (default 15 s), doubled per fault in a row up to `maxBackoffMs` (5 min). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface WorkerStatus {
  ready: boolean;
  reason?: NotReadyReason;
  /** For the operator: what is wrong and until when claims wait (names no job path). */
  message?: string;
}

/** Free bytes for an unprivileged writer on the file system of `dir`, or of its nearest existing parent. */
export async function freeBytesOf(dir: string): Promise<number> {
  for (let current = dir; ; current = dirname(current)) {
    try {
      const stats = await statfs(current);
      return stats.bavail * stats.bsize;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(current) === current) throw error;
    }
  }
}

/** How often the scratch space of a worker that is short of it is looked at again. */
const DISK_RECHECK_MS = 5_000;

export class WorkerHealth {
  private reason: NotReadyReason | null = null;
  private message = '';
  private until = 0;
  private strikes = 0;
  private checking: Promise<void> | null = null;

  constructor(private readonly options: WorkerHealthOptions) {}

  /** True while this worker must not claim: a fault's back-off runs, or its scratch disk is short. */
  blocked(): boolean {
    return this.reason !== null;
  }

  status(): WorkerStatus {
    return this.reason === null ? { ready: true } : { ready: false, reason: this.reason, message: this.message };
  }

  /** A render of `jobId` met a fault of this worker: stop claiming for the back-off. */
  noteFault(kind: WorkerFaultKind, fields: { job_id: string; error: string }): void {
    this.strikes += 1;
    const first = this.options.firstBackoffMs ?? 15_000;
    const backoffMs = Math.min(this.options.maxBackoffMs ?? 300_000, first * 2 ** (this.strikes - 1));
    this.until = Date.now() + backoffMs;
    this.enter(kind, `${describeWorkerFault(kind)}; claiming no job for ${Math.round(backoffMs / 1000)} s`, {
      ...fields,
      retry_in_s: Math.round(backoffMs / 1000),
    });
  }

  /** A render ended without a fault of this worker: the next fault starts the back-off over. */
  noteHealthy(): void {
    this.strikes = 0;
  }

  /**
   * Looks again (before claiming): past a fault's back-off, the worker is ready once its scratch
   * file system has `minFreeBytes` free. One look at a time; a look that fails counts as short.
   */
  check(): Promise<void> {
    this.checking ??= this.look().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async look(): Promise<void> {
    if (this.reason !== null && Date.now() < this.until) return;
    let free: number;
    try {
      free = await (this.options.freeBytes ?? freeBytesOf)(this.options.scratchDir);
    } catch (error) {
      free = -1;
      if (this.reason !== 'disk_low')
        this.options.report('the free space of the scratch directory could not be read', { error: String(error) }, 'warn');
    }
    const min = this.options.minFreeBytes;
    if (free < min) {
      this.until = Date.now() + DISK_RECHECK_MS;
      const mb = (bytes: number): number => Math.max(0, Math.floor(bytes / 1_048_576));
      this.enter('disk_low', `its scratch disk has ${mb(free)} MB free, less than the ${mb(min)} MB a render needs`, {
        free_mb: mb(free),
        min_free_mb: mb(min),
      });
      return;
    }
    if (this.reason !== null) {
      const was = this.reason;
      this.reason = null;
      this.message = '';
      this.options.report('worker ready again: claiming jobs', { event: 'worker_ready', after: was }, 'info');
    }
  }

  private enter(reason: NotReadyReason, why: string, fields: Record<string, string | number>): void {
    const changed = this.reason !== reason;
    this.reason = reason;
    this.message = `This worker is not ready: ${why}.`;
    // A fault is news each time (with its job); a disk that stays short is told once.
    if (changed || reason !== 'disk_low')
      this.options.report(`worker not ready: ${why}`, { event: 'worker_not_ready', reason, ...fields }, 'error');
  }
}
