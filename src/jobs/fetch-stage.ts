import { FETCH_BUDGET_MESSAGE_START } from '../core/job-errors.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../core/errors.js';
import { PRIVATE_DIR_MODE } from '../core/paths.js';
import { refKind } from '../core/refs.js';
import { MAX_PHOTOS } from '../core/requests.js';
import type { Property } from '../core/types.js';
import type { FetchPort, FetchResult, PortFetchOptions } from '../net/fetch.js';
import type { RenderContext, ValidRenderRequest } from '../render/types.js';

/**
 * The fetch stage of a job (docs/scaling.md "Fairness"): the listing page (its analysis), the
 * photos and the logo are downloaded before the job asks for a render slot, under a total time
 * budget per job, so a host that trickles bytes holds a network wait, never a render slot. The
 * render then runs on what was fetched: its fetch port answers from the job's scratch directory
 * with exactly what the network answered (the same bytes, status or error), so its warnings and
 * errors are the ones it would have given fetching itself.
 */

/** Default total time a job may spend fetching its inputs (`IMMOREEL_FETCH_BUDGET_SECONDS`). */
export const DEFAULT_FETCH_BUDGET_MS = 120_000;
/** Jobs of one tenant fetching at once in one process (docs/scaling.md "Fairness"). */
export const FETCHES_PER_TENANT = 2;

/** The overall progress a job reaches once its downloads are done, inside the fetching_assets slice. */
const FETCH_PROGRESS = 0.07;

/** Jobs one pool fetches at once: fetching is network waiting, so more than the render slots. */
export function fetchSlots(concurrency: number): number {
  return Math.max(8, 2 * concurrency);
}

export interface PrefetchOptions {
  workDir: string;
  signal: AbortSignal;
  fetch: FetchPort;
  budgetMs: number;
  resolveAsset?: (assetId: string) => Promise<string>;
  analyze: (input: ValidRenderRequest['input'], signal: AbortSignal) => Promise<Property>;
  onProgress: RenderContext['onProgress'];
}

export interface Prefetched {
  /** The analysed listing; null when the analysis needs no network (a description, or a page when photos are given): the engine analyses it, as always. */
  listing: Property | null;
  /** The render's fetch port: what was fetched, replayed; anything else goes to the network. */
  fetch: FetchPort;
  resolveAsset?: (assetId: string) => Promise<string>;
}

type Outcome = { ok: true; status: number; url: string; headers: Record<string, string>; file: string } | { ok: false; error: unknown };

function hostOf(ref: string): string {
  try {
    return new URL(ref).host;
  } catch {
    return ref.slice(0, 80);
  }
}

/** The failure of a job whose fetches outlast its budget, naming the budget and the slow hosts. */
export function fetchBudgetError(budgetMs: number, pending: readonly string[]): AppError {
  const hosts = [...new Set(pending.map(hostOf))];
  const seconds = Math.round(budgetMs / 1000);
  const what = pending.length === 1 ? 'one download' : `${pending.length} downloads`;
  return new AppError(
    'UPSTREAM_ERROR',
    `${FETCH_BUDGET_MESSAGE_START}${seconds} s budget: ${what} from ${hosts.join(', ')} had not finished ` +
      '(the host sends too slowly). Give photos from a faster host, or upload them with POST /api/v1/assets and name them asset:<id>; ' +
      'the budget is IMMOREEL_FETCH_BUDGET_SECONDS.',
    {
      reason: 'fetch_budget_exceeded',
      details: hosts.map((host) => ({ field: 'photos', message: `${host} did not finish sending within ${seconds} s` })),
    },
  );
}

/**
 * Fetches a job's inputs into `<workDir>/inputs/` within `budgetMs` (the analysis included). Rejects
 * with the job's abort reason when it is canceled, and with an UPSTREAM_ERROR naming the budget and
 * the slow hosts when the budget runs out.
 */
export async function prefetchInputs(request: ValidRenderRequest, options: PrefetchOptions): Promise<Prefetched> {
  const { MAX_PHOTO_BYTES, MAX_LOGO_BYTES } = await import('../render/assets/photos.js');
  const budget = new AbortController();
  const pending = new Set<string>();
  let pendingAtTimeout: string[] = [];
  const timer = setTimeout(() => {
    pendingAtTimeout = [...pending];
    budget.abort(new Error('fetch budget exceeded'));
  }, options.budgetMs);
  const signal = AbortSignal.any([options.signal, budget.signal]);
  const overBudget = (): AppError => fetchBudgetError(options.budgetMs, pendingAtTimeout.length > 0 ? pendingAtTimeout : [...pending]);
  const track = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    pending.add(what);
    try {
      return await work();
    } finally {
      pending.delete(what);
    }
  };
  try {
    options.onProgress('fetching_assets', 0);
    // The analysis belongs here only when it reaches the network: a listing URL, or a saved page whose photos are the ones to fetch.
    const needsNetwork = request.input.url !== undefined || (request.photos.length === 0 && request.input.html !== undefined);
    let listing: Property | null = request.listing;
    try {
      if (listing === null && needsNetwork)
        listing = await track(request.input.url ?? 'the listing', () => options.analyze(request.input, signal));
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (budget.signal.aborted) throw overBudget();
      throw error;
    }
    const photos = (request.photos.length > 0 ? request.photos : (listing?.photos ?? [])).slice(0, MAX_PHOTOS);
    const wanted = new Map<string, number>();
    for (const ref of photos) if (refKind(ref) === 'http') wanted.set(`${MAX_PHOTO_BYTES} ${ref}`, MAX_PHOTO_BYTES);
    const logo = request.branding.unbranded === true ? undefined : request.branding.logo_url;
    if (logo !== undefined && refKind(logo) === 'http') wanted.set(`${MAX_LOGO_BYTES} ${logo}`, MAX_LOGO_BYTES);
    const dir = join(options.workDir, 'inputs');
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const outcomes = new Map<string, Outcome>();
    const keys = [...wanted.keys()];
    let next = 0;
    let done = 0;
    // Four downloads at once per job, as the renderer fetched them.
    const lane = async (): Promise<void> => {
      while (next < keys.length) {
        const index = next++;
        const key = keys[index]!;
        const url = key.slice(key.indexOf(' ') + 1);
        try {
          const response = await track(url, () => options.fetch(url, { maxBytes: wanted.get(key)!, timeoutMs: 20_000, signal }));
          const file = join(dir, String(index));
          await writeFile(file, response.body, { mode: 0o600 });
          outcomes.set(key, { ok: true, status: response.status, url: response.url, headers: response.headers, file });
        } catch (error) {
          if (options.signal.aborted) throw options.signal.reason;
          if (budget.signal.aborted) throw overBudget();
          outcomes.set(key, { ok: false, error });
        }
        done += 1;
        // Overall progress: the render's fetching_assets slice is 0 → 0.08 (src/render/pipeline.ts); the downloads fill most of it.
        options.onProgress('fetching_assets', (FETCH_PROGRESS * done) / keys.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, keys.length) }, lane));
    // Assets are the service's own storage: fetched now too, so a slow bucket holds no render slot either.
    const assets = new Map<string, Promise<string>>();
    const resolveAsset = options.resolveAsset;
    if (resolveAsset !== undefined) {
      for (const ref of [...photos, ...(logo === undefined ? [] : [logo])]) {
        if (refKind(ref) !== 'asset') continue;
        const id = ref.slice('asset:'.length);
        if (assets.has(id)) continue;
        // Its failure is the render's to report, as before (the photo is left out with a warning);
        // the allSettled below handles it meanwhile.
        assets.set(
          id,
          track(ref, () => resolveAsset(id)),
        );
      }
      await Promise.allSettled(assets.values());
      if (options.signal.aborted) throw options.signal.reason;
      if (budget.signal.aborted) throw overBudget();
    }
    const fetch: FetchPort = async (url: string, fetchOptions: PortFetchOptions = {}): Promise<FetchResult> => {
      const outcome = outcomes.get(`${fetchOptions.maxBytes ?? ''} ${url}`);
      if (outcome === undefined) return options.fetch(url, fetchOptions);
      if (!outcome.ok) throw outcome.error;
      return { status: outcome.status, url: outcome.url, headers: outcome.headers, body: await readFile(outcome.file) };
    };
    return {
      listing,
      fetch,
      ...(resolveAsset === undefined ? {} : { resolveAsset: (id: string) => assets.get(id) ?? resolveAsset(id) }),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** A fetch still running after this long is slow: it stops taking one of the stage's places. */
export const SLOW_FETCH_MS = 10_000;
/** Slow fetches set aside at once, beyond the stage's places: sockets waiting on slow hosts, little else. */
export const MAX_SLOW_FETCHES = 64;

/**
 * The fetch stage's admission in one pool: at most FETCHES_PER_TENANT jobs of a tenant fetch at
 * once; more wait their turn here. `held` counts a tenant's jobs in the stage or waiting for it,
 * which the pool's claims and the fair dispatch leave alone (docs/scaling.md "Fairness").
 *
 * A fetch still running after SLOW_FETCH_MS is set aside: it goes on (within its job's budget,
 * still counted in its tenant's share), but no longer takes one of the stage's places. Four
 * tenants colluding with two slow jobs each filled all 8 places and another tenant's render
 * waited 118 s; now a tenant with nothing slow waits SLOW_FETCH_MS at most, until more than
 * MAX_SLOW_FETCHES slow fetches run at once (32 colluding tenants).
 */
export class FetchStage {
  private readonly fetching = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly holding = new Map<string, number>();
  private slow = 0;

  constructor(
    readonly perTenant: number = FETCHES_PER_TENANT,
    private readonly slowAfterMs: number = SLOW_FETCH_MS,
    private readonly maxSlow: number = MAX_SLOW_FETCHES,
  ) {}

  /** Jobs this pool holds before their render slot (claimed and fetching, or waiting to), slow fetches set aside. */
  get size(): number {
    let n = 0;
    for (const count of this.holding.values()) n += count;
    return n - this.slow;
  }

  /** Slow fetches set aside now. */
  get slowCount(): number {
    return this.slow;
  }

  /** Called when a fetch is set aside as slow: a place of the stage is free for another job. */
  onSlow: (() => void) | undefined;

  /** Tenants this pool should take no more jobs of now. */
  fullTenants(): string[] {
    return [...this.holding.entries()].filter(([, n]) => n >= this.perTenant).map(([tenant]) => tenant);
  }

  /** Counts a job of `tenant` as held by the stage until `release` (from its claim to the end of its fetch). */
  hold(tenant: string): () => void {
    this.holding.set(tenant, (this.holding.get(tenant) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.holding.get(tenant) ?? 1) - 1;
      if (left === 0) this.holding.delete(tenant);
      else this.holding.set(tenant, left);
    };
  }

  /** Runs `work` when fewer than `perTenant` jobs of `tenant` are fetching in this pool. */
  async run<T>(tenant: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    while ((this.fetching.get(tenant) ?? 0) >= this.perTenant) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(tenant) ?? [];
        queue.push(resolve);
        this.waiting.set(tenant, queue);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    this.fetching.set(tenant, (this.fetching.get(tenant) ?? 0) + 1);
    let setAside = false;
    const slowTimer = setTimeout(() => {
      if (this.slow >= this.maxSlow) return;
      setAside = true;
      this.slow += 1;
      this.onSlow?.();
    }, this.slowAfterMs);
    slowTimer.unref();
    try {
      return await work();
    } finally {
      clearTimeout(slowTimer);
      if (setAside) this.slow -= 1;
      const left = (this.fetching.get(tenant) ?? 1) - 1;
      if (left === 0) this.fetching.delete(tenant);
      else this.fetching.set(tenant, left);
      const queue = this.waiting.get(tenant);
      const wake = queue?.shift();
      if (queue !== undefined && queue.length === 0) this.waiting.delete(tenant);
      wake?.();
    }
  }
}
