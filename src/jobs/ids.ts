import { randomBytes } from 'node:crypto';
import { badRequest } from '../core/errors.js';

/**
 * Job ids: `job_` + 26 lowercase Crockford base32 characters, ULID-like (10 characters of
 * millisecond time, then 16 of randomness), so ids sort by creation time and cursor pagination
 * can compare them as strings. One regex validates them everywhere, before storage is touched.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const JOB_ID_PATTERN = /^job_[0-9a-hjkmnp-tv-z]{26}$/;

let lastTime = -1;
let lastRandom = 0n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

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
