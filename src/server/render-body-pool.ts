import { Piscina } from 'piscina';
import { AppError, type ErrorCode } from '../core/errors.js';
import { BodyFingerprint } from '../core/hash.js';
import { spareCores } from '../analysis/worker-pool.js';
import type { RawJsonBody } from '../core/json-body.js';
import type { ValidRenderRequest } from '../render/types.js';
import type { RenderBodyAnswer } from './render-body-thread.js';

/** A large render body, checked in a thread: what `POST /render-video` needs of it (docs/security.md "Measured"). */
export interface CheckedRenderBody {
  /** The checked request without its page: what the route's own checks read. */
  request: ValidRenderRequest;
  /** The job store's copy of the whole request, and the job's input hash, made in the thread. */
  prepared: { requestJson: string; inputHash: string };
  fingerprint: BodyFingerprint;
}

function workerModule(): { filename: string; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts');
  const filename = new URL(fromSources ? './render-body-thread.ts' : './render-body-thread.js', import.meta.url).href;
  return { filename, execArgv: fromSources ? ['--import', 'tsx'] : [] };
}

/**
 * Threads that parse and check large render bodies (docs/security.md "Large bodies off the event
 * loop"): started on first use, at a lower priority than the event loop. One per four cores left
 * to spare, at least one: a 6 MB body takes a thread about 50 ms, and on two cores a second busy
 * thread would take the core the event loop needs.
 */
export class RenderBodyPool {
  private readonly piscina: Piscina;

  constructor(options: { threads?: number } = {}) {
    const { filename, execArgv } = workerModule();
    const threads = Math.max(1, options.threads ?? Math.floor(spareCores() / 4));
    this.piscina = new Piscina({ filename, execArgv, minThreads: 0, maxThreads: threads, maxQueue: threads * 16, idleTimeout: 60_000 });
  }

  async check(body: RawJsonBody, route: string, signal?: AbortSignal): Promise<CheckedRenderBody> {
    let answer: RenderBodyAnswer;
    try {
      answer = (await this.piscina.run(
        { chunks: body.chunks, route },
        { transferList: body.transferList(), ...(signal === undefined ? {} : { signal }) },
      )) as RenderBodyAnswer;
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw new AppError('SERVICE_UNAVAILABLE', 'The server is too busy to read this request now; retry in a few seconds.', {
        reason: 'server_busy',
        retryAfterS: 5,
        cause: error,
      });
    }
    if (!answer.ok) {
      const { code, message, reason, details } = answer.error;
      throw new AppError(code as ErrorCode, message, { reason, details });
    }
    return {
      request: answer.light,
      prepared: { requestJson: answer.requestJson, inputHash: answer.inputHash },
      fingerprint: new BodyFingerprint(route, answer.fingerprint),
    };
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
