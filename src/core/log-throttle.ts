/**
 * Rate limit for a log line that repeats (docs/operations.md "Logs"): a poll that fails every
 * second while a service is down must not write a line per second per node. The first occurrence
 * of a key is logged as it is; later ones within `intervalMs` are only counted, and the first
 * occurrence after the interval writes one summary line, "… (repeated N times in the last T s)",
 * with the fields `repeated` and `window_s`, and starts a new interval. A key quiet for a whole
 * interval starts over: its next occurrence is logged as a first one again.
 */
export type LogLine = (message: string, fields: Record<string, unknown>) => void;

interface KeyState {
  /** When the last line for this key was written. */
  since: number;
  /** Occurrences counted since then, not written. */
  suppressed: number;
}

export class RepeatedLogLimiter {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Writes (through `log`) what is due for one occurrence of `key`: the line itself, a summary,
   * or nothing. Returns true when a line was written.
   */
  log(key: string, log: LogLine, message: string, fields: Record<string, unknown> = {}): boolean {
    const now = this.now();
    const state = this.keys.get(key);
    if (state === undefined || (now - state.since >= this.intervalMs && state.suppressed === 0)) {
      this.keys.set(key, { since: now, suppressed: 0 });
      log(message, fields);
      return true;
    }
    if (now - state.since < this.intervalMs) {
      state.suppressed += 1;
      return false;
    }
    // This occurrence is counted in the summary it triggers.
    const repeated = state.suppressed + 1;
    const windowS = Math.round((now - state.since) / 1000);
    this.keys.set(key, { since: now, suppressed: 0 });
    log(`${message} (repeated ${repeated} times in the last ${windowS} s)`, { ...fields, repeated, window_s: windowS });
    return true;
  }

  /**
   * Writes the summary of occurrences still counted for `key` (when a process stops, or the
   * condition is over) and forgets the key. Returns true when a line was written.
   */
  flush(key: string, log: LogLine, message: string, fields: Record<string, unknown> = {}): boolean {
    const state = this.keys.get(key);
    this.keys.delete(key);
    if (state === undefined || state.suppressed === 0) return false;
    const windowS = Math.round((this.now() - state.since) / 1000);
    log(`${message} (repeated ${state.suppressed} times in the last ${windowS} s)`, {
      ...fields,
      repeated: state.suppressed,
      window_s: windowS,
    });
    return true;
  }
}
