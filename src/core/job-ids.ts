import { randomBytes } from 'node:crypto';
import { BASE32_CLASS, encodeBase32 as encode } from './base32.js';
import { badRequest } from './errors.js';

/**
 * Job ids: `job_` + 26 lowercase Crockford base32 characters, ULID-like (10 characters of
 * millisecond time, then 16 of randomness), so ids sort by creation time and cursor pagination
 * can compare them as strings. One regex validates them everywhere, before storage is touched.
 */
export const JOB_ID_PATTERN = new RegExp(`^job_${BASE32_CLASS}{26}$`);

let lastTime = -1;
let lastRandom = 0n;

/** A new job id; ids made by one process within the same millisecond still sort in creation order. */
export function newJobId(now: number = Date.now()): string {
  let random: bigint;
  if (now <= lastTime) {
    // Monotonic within a process: same (or earlier, clock step back) millisecond → previous + 1.
    now = lastTime;
    random = (lastRandom + 1n) & ((1n << 80n) - 1n);
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  }
  lastTime = now;
  lastRandom = random;
  return `job_${encode(BigInt(now), 10)}${encode(random, 16)}`;
}

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && JOB_ID_PATTERN.test(value);
}

/** Rejects anything that is not a job id, before it reaches SQL or the file system. */
export function assertJobId(value: unknown, field = 'job_id'): string {
  if (isJobId(value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : String(value);
  throw badRequest(`${shown} is not a job id: job ids look like job_01jabcdefghjkmnpqrstvwxyz0 (job_ and 26 letters or digits).`, {
    reason: 'invalid_job_id',
    details: [{ field, message: 'must be job_ followed by 26 lowercase base32 characters' }],
  });
}
