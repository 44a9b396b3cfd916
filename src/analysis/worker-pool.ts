import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError, type ErrorCode } from '../core/errors.js';
import type { Property } from '../core/types.js';
import { BodyFingerprint } from '../core/hash.js';
import { RawJsonBody } from '../core/json-body.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { validateAnalyzeRequest, type ValidAnalyzeRequest } from '../core/analyze-rules.js';
import { linkAsUrl, type FetchPageOptions } from './portals/index.js';
import {
  analysisTask,
  type AnalysisWorkerData,
  type FingerprintAnswer,
  type JsonBodyAnswer,
  type WorkerAnswer,
} from './analysis-thread.js';

/**
 * Analysis off the server's event loop (docs/security.md): parsing a page and reading its text
 * is CPU work, so it runs in a pool of worker threads sized to the machine, each request within
 * a time budget. A request over its budget gets a clear 503 and its thread is replaced; health
 * checks and other tenants never wait for it.
 */

export interface AnalysisPoolOptions {
  /** Worker threads; default one per core but one, at least one (`spareCores`). */
  threads?: number;
  /** Longest one analysis may take, waiting for a thread included (default 15 s). */
  timeBudgetMs?: number;
  /** MAD per EUR for prices stated in euros (the configuration's); default the extractor's. */
  eurToMad?: number;
}

export interface PoolAnalyzeDeps {
  fetchPage: (url: string, options: FetchPageOptions) => Promise<string>;
  signal?: AbortSignal;
}

export const DEFAULT_ANALYSIS_BUDGET_MS = 15_000;

/**
 * The cores left once the server's event loop has one (at least one): busy analysis threads never
 * outnumber them, so the thread that answers every request finds a core free rather than waiting
 * for a thread's time slice to end (docs/security.md "Large bodies off the event loop").
 */
export function spareCores(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * The worker's module next to this one: `analysis-thread.js` in `dist/`; under the test runner, which
 * runs the TypeScript sources, `analysis-thread.ts` loaded through tsx in the worker thread.
 */
function workerModule(): { filename: string; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts');
  const filename = new URL(fromSources ? './analysis-thread.ts' : './analysis-thread.js', import.meta.url).href;
  return { filename, execArgv: fromSources ? ['--import', 'tsx'] : [] };
}

export class AnalysisPool {
  private readonly piscina: Piscina;
  readonly timeBudgetMs: number;
  readonly threads: number;

  constructor(options: AnalysisPoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? spareCores());
    this.timeBudgetMs = options.timeBudgetMs ?? DEFAULT_ANALYSIS_BUDGET_MS;
    const { filename, execArgv } = workerModule();
    this.piscina = new Piscina({
      filename,
      execArgv,
      minThreads: 1,
      maxThreads: this.threads,
      // A full queue answers "busy" at once rather than letting requests pile up behind slow ones.
      maxQueue: this.threads * 16,
      idleTimeout: 60_000,
      workerData: (options.eurToMad === undefined ? {} : { eurToMad: options.eurToMad }) satisfies AnalysisWorkerData,
    });
  }

  /** Fetches the page here (network I/O, never CPU-bound), then analyses it in a worker thread. */
  async analyze(request: AnalyzeRequest, deps: PoolAnalyzeDeps): Promise<Property> {
    return this.analyzeChecked(validateAnalyzeRequest(request), deps);
  }

  /** `analyze` for a request its front door has checked already (the server's route): not checked again. */
  async analyzeChecked(checked: ValidAnalyzeRequest, deps: PoolAnalyzeDeps): Promise<Property> {
    // A description that is only a portal's address is fetched here like a url (docs/portals.md).
    return this.analyzeValid(linkAsUrl(checked), deps);
  }

  /**
   * A large JSON body, unparsed (docs/security.md "Measured"): its bytes are moved to a worker,
   * which parses, checks and analyses it; the event loop only sees the small answer. A body that
   * names a URL and no page comes back checked, for the page to be fetched here.
   */
  async analyzeJson(body: RawJsonBody, deps: PoolAnalyzeDeps): Promise<Property> {
    // One budget for the whole analysis, the page's fetch included.
    const budget = AbortSignal.timeout(this.timeBudgetMs);
    const answer = await this.runTask<JsonBodyAnswer>(
      { chunks: body.chunks },
      deps.signal,
      { name: 'analyzeJsonBody', transferList: body.transferList() },
      budget,
    );
    if (answer.ok === 'fetch') return this.analyzeValid(answer.request, deps, budget);
    return propertyOf(answer);
  }

  /**
   * The idempotency fingerprint of a large JSON body, computed in a worker (where the body is also
   * checked: a bad body gets its 400 first, as when the server parses it), with the bytes back.
   */
  async fingerprintJson(
    body: RawJsonBody,
    route: string,
    signal?: AbortSignal,
  ): Promise<{ fingerprint: BodyFingerprint; body: RawJsonBody }> {
    const answer = await this.runTask<FingerprintAnswer>({ chunks: body.chunks, route }, signal, {
      name: 'fingerprintJsonBody',
      transferList: body.transferList(),
    });
    if (!answer.ok) throw errorOf(answer);
    return { fingerprint: new BodyFingerprint(route, answer.fingerprint), body: RawJsonBody.of([answer.bytes]) };
  }

  private async analyzeValid(
    valid: ValidAnalyzeRequest,
    deps: PoolAnalyzeDeps,
    budget: AbortSignal = AbortSignal.timeout(this.timeBudgetMs),
  ): Promise<Property> {
    const signal = deps.signal === undefined ? budget : AbortSignal.any([budget, deps.signal]);
    const html = valid.html ?? (valid.url !== null ? await deps.fetchPage(valid.url, { signal }) : null);
    return propertyOf(await this.runTask<WorkerAnswer>(analysisTask(valid, html), deps.signal, {}, budget));
  }

  /** One task in a worker within the time budget; the pool's failures become clear errors. */
  private async runTask<T>(
    task: object,
    callerSignal: AbortSignal | undefined,
    options: { name?: string; transferList?: ArrayBuffer[] },
    budget: AbortSignal = AbortSignal.timeout(this.timeBudgetMs),
  ): Promise<T> {
    const signal = callerSignal === undefined ? budget : AbortSignal.any([budget, callerSignal]);
    try {
      return (await this.piscina.run(task, { ...options, signal })) as T;
    } catch (error) {
      if (budget.aborted) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `The analysis took longer than its ${this.timeBudgetMs / 1000} s budget and was stopped. The server may be busy: retry in a few seconds; ` +
            'if it happens again, send a shorter page or description.',
          { reason: 'analysis_time_budget', retryAfterS: 5, cause: error },
        );
      }
      if (callerSignal?.aborted) throw new AppError('BAD_REQUEST', 'The request was canceled.', { reason: 'canceled', cause: error });
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new AppError('SERVICE_UNAVAILABLE', 'Too many analyses are waiting: retry in a few seconds.', {
          reason: 'analysis_busy',
          retryAfterS: 5,
          cause: error,
        });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}

function errorOf(answer: {
  error: { code: string; message: string; reason?: string; details: { field: string; message: string }[] };
}): AppError {
  const { code, message, reason, details } = answer.error;
  return new AppError(code as ErrorCode, message, { reason, details });
}

function propertyOf(answer: WorkerAnswer): Property {
  if (answer.ok) return answer.property;
  throw errorOf(answer);
}
