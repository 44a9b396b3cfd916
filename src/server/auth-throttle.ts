import { AppError } from '../core/errors.js';

const isLoopback = (address: string): boolean => address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');

/**
 * Failed sign-ins and unknown API keys, counted per client address (docs/security.md "Keys and sign-ins"):
 * past `limit` failures in a window, the address is answered 429 `auth_attempts` with
 * Retry-After before its key is even looked up, until the window has passed. A key is 32 random
 * bytes, so guessing was already hopeless; this keeps a guesser from costing a key lookup (a
 * database read) per try. Per process: each API node counts its own. Loopback callers are not
 * counted: the CLI and tools on the server's own machine, and every caller behind a reverse
 * proxy on the same host started without --trust-proxy, whom one guesser must not lock out.
 */
export class AuthAttempts {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Throws the 429 when `address` has used up its failures for this window. */
  check(address: string): void {
    if (isLoopback(address)) return;
    const entry = this.current(address);
    if (entry !== undefined && entry.count >= this.limit) {
      const retryAfterS = Math.max(1, Math.ceil((entry.windowStart + this.windowMs - this.now()) / 1000));
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Too many attempts with unknown API keys from this address: retry in ${retryAfterS} s with a valid key.`,
        { reason: 'auth_attempts', retryAfterS },
      );
    }
  }

  failed(address: string): void {
    if (isLoopback(address)) return;
    const entry = this.current(address);
    if (entry === undefined) {
      // Old windows are forgotten as new failures come: the map holds at most the addresses of one window.
      if (this.failures.size > 10_000) this.sweep();
      this.failures.set(address, { count: 1, windowStart: this.now() });
    } else entry.count += 1;
  }

  private current(address: string): { count: number; windowStart: number } | undefined {
    const entry = this.failures.get(address);
    if (entry !== undefined && entry.windowStart + this.windowMs <= this.now()) {
      this.failures.delete(address);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    for (const address of [...this.failures.keys()]) this.current(address);
  }
}

/** Failures an address may have per window before it waits: a person retyping a key never comes near. */
export const AUTH_FAILURES_PER_WINDOW = 20;
