import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { withHeaders } from './errors.js';

/**
 * The bytes of request bodies the process holds at once (docs/security.md "Bodies"): a body is
 * held from its first byte until its answer is sent, whether it is still arriving, parsed, or
 * checked in a thread. Without a bound, 100 slowly-sent 5.5 MB bodies held ~500 MB for a minute.
 * Each caller (an API key, or the address of a caller without one) may hold `perCaller` bytes,
 * and all of them together `total`; a body that does not fit is refused with 503 and
 * Retry-After as soon as it is seen not to fit (from its Content-Length, before it is read, when
 * it announces one), and nothing more of it is read.
 */
export class BodyBudget {
  private held = 0;
  private readonly heldBy = new Map<string, number>();

  constructor(
    readonly total: number,
    readonly perCaller: number,
  ) {}

  /** Bytes held now, by everyone. */
  get inFlight(): number {
    return this.held;
  }

  /** Takes `bytes` for `caller` if both its share and the total allow it. */
  take(caller: string, bytes: number): boolean {
    const mine = this.heldBy.get(caller) ?? 0;
    if (mine + bytes > this.perCaller || this.held + bytes > this.total) return false;
    this.heldBy.set(caller, mine + bytes);
    this.held += bytes;
    return true;
  }

  give(caller: string, bytes: number): void {
    const left = (this.heldBy.get(caller) ?? 0) - bytes;
    if (left <= 0) this.heldBy.delete(caller);
    else this.heldBy.set(caller, left);
    this.held = Math.max(0, this.held - bytes);
  }

  /** One request's account: what it takes is given back, all at once, by `release` (call it when the answer is sent). */
  holdFor(caller: string): BodyHold {
    let holding = 0;
    return {
      take: (bytes: number) => {
        if (!this.take(caller, bytes)) return false;
        holding += bytes;
        return true;
      },
      release: () => {
        if (holding === 0) return;
        this.give(caller, holding);
        holding = 0;
      },
    };
  }
}

export interface BodyHold {
  take(bytes: number): boolean;
  release(): void;
}

/** How long a refused caller is told to wait: bodies in flight are sent in seconds, or time out in a minute. */
const BODY_BUDGET_RETRY_AFTER_S = 5;

/** The answer to a body that does not fit: 503, Retry-After, and the connection closed (the rest is never read). */
export function bodyBudgetExceeded(): AppError {
  return withHeaders(
    new AppError('SERVICE_UNAVAILABLE', 'The server is receiving as many request bodies as it can hold: retry in a few seconds.', {
      reason: 'server_busy',
      retryAfterS: BODY_BUDGET_RETRY_AFTER_S,
      details: [{ field: 'body', message: 'does not fit in what the server holds now' }],
    }),
    { Connection: 'close' },
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The bytes of this request's body held against the process's budget; released with the answer. */
    bodyHold: BodyHold | null;
  }
}

/** Who holds a request's body: its API key, or the address of a caller without one (the Studio sign-in). */
export function bodyCaller(request: FastifyRequest): string {
  return request.auth === null ? `address:${request.ip}` : `key:${request.auth.key.key_id}`;
}
