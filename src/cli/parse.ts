import { badRequest } from '../core/errors.js';

/** A whole-number flag (`--concurrency 4`) within bounds, or a usage error naming the flag. */
export function parseCount(value: string, flag: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw badRequest(`${flag} must be a whole number ${range}, not ${JSON.stringify(value)}.`, {
      details: [{ field: flag.replace(/^--/, ''), message: `must be a whole number ${range}` }],
    });
  }
  return n;
}
