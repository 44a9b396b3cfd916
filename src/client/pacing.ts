/**
 * Client-side pacing under the rate limits a server advertises (docs/api.md "Rate limits",
 * docs/remote.md). The server sends, on every limited route, the IETF draft fields
 *
 *   RateLimit-Policy: "analyze";q=60;w=60      (quota q per window of w seconds)
 *   RateLimit: "analyze";r=12;t=7              (r left now; t seconds until a slot frees)
 *
 * and `Retry-After` on a 429. The pacer learns which policy guards which route from the first
 * answer on that route, then admits a request only while it can be sure the server will count it
 * within quota, so a long batch runs at the advertised rate and never sees a 429.
 *
 * How it stays on the safe side of a server-side sliding window:
 * - a request occupies a slot from the moment it is sent until `window` after its ANSWER arrived
 *   (the server counted it at some instant in between, so its slot frees no later than that);
 * - the last answer's `r` minus what was sent since then bounds what other clients (another
 *   process with the same key) left us; at zero, nothing is sent until its `t` has passed, and
 *   then only one request, whose answer brings fresh figures;
 * - a 429 blocks the policy until `Retry-After` (the client rule of the draft: Retry-After wins).
 * Requests a 429 refused were not counted by the server, so they give their slot back.
 */

import { sleep } from '../core/time.js';
import { parseRetryAfter } from '../net/retry.js';

export interface RatePolicyInfo {
  name: string;
  quota: number;
  windowS: number;
}

export interface RateLimitState {
  name: string;
  remaining: number;
  resetS: number;
}

/** Splits a structured-field list on commas outside quoted strings. */
function listMembers(header: string): string[] {
  const members: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < header.length; i += 1) {
    const ch = header[i]!;
    if (ch === '\\' && quoted && i + 1 < header.length) {
      current += ch + header[i + 1]!;
      i += 1;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      members.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') members.push(current.trim());
  return members;
}

/** One member `"name";k=v;k2=v2` → name and numeric parameters; null when malformed. */
function parseMember(member: string): { name: string; params: Map<string, number> } | null {
  const [head, ...rest] = member.split(';').map((p) => p.trim());
  if (head === undefined || head === '') return null;
  const name = /^"((?:[^"\\]|\\.)*)"$/.exec(head)?.[1] ?? (/^[A-Za-z*][A-Za-z0-9_.:%*/-]*$/.test(head) ? head : null);
  if (name === null) return null;
  const params = new Map<string, number>();
  for (const param of rest) {
    const match = /^([a-z*][a-z0-9_.*-]*)=(-?\d+(?:\.\d+)?)$/.exec(param);
    if (match !== null) params.set(match[1]!, Number(match[2]));
  }
  return { name, params };
}

/** `RateLimit-Policy`; malformed members are ignored, as the draft tells clients to. */
export function parseRateLimitPolicy(header: string | undefined): RatePolicyInfo[] {
  if (header === undefined || header === '') return [];
  const policies: RatePolicyInfo[] = [];
  for (const member of listMembers(header)) {
    const parsed = parseMember(member);
    const quota = parsed?.params.get('q');
    if (parsed === null || quota === undefined || !(quota > 0)) continue;
    // The draft's `w` is optional; without it the window is unknown, and a minute is the usual one.
    const windowS = parsed.params.get('w') ?? 60;
    if (!(windowS > 0)) continue;
    policies.push({ name: parsed.name, quota: Math.floor(quota), windowS });
  }
  return policies;
}

/** `RateLimit`; malformed members are ignored. */
export function parseRateLimit(header: string | undefined): RateLimitState[] {
  if (header === undefined || header === '') return [];
  const states: RateLimitState[] = [];
  for (const member of listMembers(header)) {
    const parsed = parseMember(member);
    const remaining = parsed?.params.get('r');
    if (parsed === null || remaining === undefined || remaining < 0) continue;
    states.push({ name: parsed.name, remaining: Math.floor(remaining), resetS: Math.max(0, parsed.params.get('t') ?? 0) });
  }
  return states;
}

interface Slot {
  seq: number;
  /** When the answer (or the failure) arrived; null while in flight. */
  doneAt: number | null;
}

interface PolicyState {
  quota: number;
  windowMs: number;
  slots: Slot[];
  /** The freshest server figures: from the answer to the latest-sent request that carried them. */
  observed: { seq: number; remaining: number; resetAt: number } | null;
  blockedUntil: number;
}

export interface PacerTicket {
  readonly route: string;
  readonly seq: number;
  /** Policies the request was counted under when it was sent (empty for the first request of a route). */
  readonly policies: string[];
  /** The caller's first request on a route nobody has answered yet: others wait for its answer. */
  readonly probe: boolean;
}

export interface PacerOptions {
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A little slack for the time between our clock and the server's decision (at least 100 ms, 1 % of the window). */
function marginMs(windowMs: number): number {
  return Math.max(100, Math.ceil(windowMs * 0.01));
}

export class RatePacer {
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly policies = new Map<string, PolicyState>();
  /** Route → the policies guarding it, as learned from its answers ([] = none). */
  private readonly routes = new Map<string, string[]>();
  private readonly probes = new Map<string, Promise<void>>();
  private readonly probeDone = new Map<number, () => void>();
  private seq = 0;

  constructor(options: PacerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /** What the pacer knows about a policy (for messages and tests). */
  policy(name: string): { quota: number; windowS: number } | null {
    const state = this.policies.get(name);
    return state === undefined ? null : { quota: state.quota, windowS: state.windowMs / 1000 };
  }

  /** Milliseconds before a request under `policy` may be sent (0 = now). */
  private waitFor(state: PolicyState, now: number): number {
    let wait = Math.max(0, state.blockedUntil - now);
    const margin = marginMs(state.windowMs);
    state.slots = state.slots.filter((slot) => slot.doneAt === null || slot.doneAt > now - state.windowMs - margin);
    if (state.slots.length >= state.quota) {
      const freeing = state.slots
        .filter((slot) => slot.doneAt !== null)
        .map((slot) => slot.doneAt! + state.windowMs + margin)
        .sort((a, b) => a - b);
      // Every slot in flight: the next answer frees nothing sooner than a window after it, so poll.
      wait = Math.max(wait, freeing.length > 0 ? freeing[0]! - now : 50);
    }
    const observed = state.observed;
    if (observed !== null) {
      const sentSince = state.slots.filter((slot) => slot.seq > observed.seq).length;
      const afterReset = now >= observed.resetAt ? 1 : 0;
      if (observed.remaining + afterReset - sentSince <= 0) {
        wait = Math.max(wait, observed.resetAt > now ? observed.resetAt - now : 50);
      }
    }
    return wait;
  }

  /** Waits until a request on `route` may be sent, and counts it. Pair with `settle`. */
  async acquire(route: string, signal?: AbortSignal): Promise<PacerTicket> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const known = this.routes.get(route);
      if (known === undefined) {
        const probe = this.probes.get(route);
        if (probe !== undefined) {
          await probe;
          continue;
        }
        const seq = ++this.seq;
        this.probes.set(route, new Promise<void>((resolve) => this.probeDone.set(seq, resolve)));
        return { route, seq, policies: [], probe: true };
      }
      const now = this.now();
      let wait = 0;
      for (const name of known) {
        const state = this.policies.get(name);
        if (state !== undefined) wait = Math.max(wait, this.waitFor(state, now));
      }
      if (wait <= 0) {
        const seq = ++this.seq;
        for (const name of known) this.policies.get(name)?.slots.push({ seq, doneAt: null });
        return { route, seq, policies: [...known], probe: false };
      }
      await this.sleep(wait, signal);
    }
  }

  /**
   * Records what happened to a request: `headers` of its answer (lower-case names), or null when
   * it failed without one (network error), in which case it is assumed counted.
   */
  settle(ticket: PacerTicket, status: number | null, headers: Record<string, string | undefined> | null): void {
    const now = this.now();
    const refused = status === 429;
    const advertised = headers === null ? null : parseRateLimitPolicy(headers['ratelimit-policy']);
    if (advertised !== null) {
      for (const info of advertised) {
        const state = this.policies.get(info.name);
        if (state === undefined) {
          this.policies.set(info.name, { quota: info.quota, windowMs: info.windowS * 1000, slots: [], observed: null, blockedUntil: 0 });
        } else {
          state.quota = info.quota;
          state.windowMs = info.windowS * 1000;
        }
      }
      // Only an answer that went through the limiter tells whether a route is limited:
      // a 401 or 404 comes back without the fields even on a limited route.
      if (advertised.length > 0 || (status !== null && status < 400))
        this.routes.set(
          ticket.route,
          advertised.map((p) => p.name),
        );
    }
    const names = new Set([...ticket.policies, ...(advertised ?? []).map((p) => p.name)]);
    const limits = headers === null ? [] : parseRateLimit(headers.ratelimit);
    const retryAfterS = headers === null ? null : parseRetryAfter(headers['retry-after'], now);
    for (const name of names) {
      const state = this.policies.get(name);
      if (state === undefined) continue;
      const index = state.slots.findIndex((slot) => slot.seq === ticket.seq);
      if (refused) {
        if (index >= 0) state.slots.splice(index, 1);
      } else if (index >= 0) {
        state.slots[index]!.doneAt = now;
      } else {
        // The probe was sent before its policy was known: it counts from now on.
        state.slots.push({ seq: ticket.seq, doneAt: now });
      }
      const figures = limits.find((l) => l.name === name);
      if (figures !== undefined && (state.observed === null || ticket.seq >= state.observed.seq)) {
        state.observed = { seq: ticket.seq, remaining: refused ? 0 : figures.remaining, resetAt: now + figures.resetS * 1000 };
      }
      if (refused) {
        const waitS = retryAfterS ?? figures?.resetS ?? 1;
        state.blockedUntil = Math.max(state.blockedUntil, now + waitS * 1000);
      }
    }
    if (ticket.probe) {
      this.probes.delete(ticket.route);
      this.probeDone.get(ticket.seq)?.();
      this.probeDone.delete(ticket.seq);
    }
  }
}
