import { availableParallelism, totalmem } from 'node:os';

/** Largest page of `jobs list` / `GET /jobs` (docs/jobs.md). Apart from the store so the CLI's help can name it without opening SQLite. */
export const MAX_LIST_LIMIT = 100;

/** Most renders one process runs at once. */
export const MAX_CONCURRENCY = 30;

/** Memory one render may take at peak (measured ~170 MB at 720p60, see docs/jobs.md), with headroom. */
const MEMORY_PER_RENDER = 512 * 1024 * 1024;

/**
 * Default pool size: two renders per logical core (a render has phases that leave the CPU idle:
 * measured +25 % videos/min at 4 than at 2 on 2 cores, docs/jobs.md), no more than memory allows
 * at 512 MB each, at most 30.
 */
export function defaultConcurrency(cores: number = availableParallelism(), memory: number = totalmem()): number {
  return Math.max(1, Math.min(MAX_CONCURRENCY, 2 * cores, Math.floor(memory / MEMORY_PER_RENDER)));
}

/**
 * Most jobs of one tenant running at once across every worker of the service (docs/jobs.md
 * "Worker pool"): a claim refuses the next job of a tenant that has this many running.
 */
export const MAX_RUNNING_PER_TENANT = 30;
