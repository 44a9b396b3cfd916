import { badRequest } from '../core/errors.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30d", "12h", "90m", "45s", "2w" → milliseconds (for `jobs purge --older-than`). */
export function parseAge(value: string, field = '--older-than'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(value);
  if (match === null) {
    throw badRequest(`${field} ${JSON.stringify(value)} is not a duration: use a number and a unit, e.g. 30d, 12h, 90m, 45s or 2w.`, {
      reason: 'invalid_field',
      details: [{ field, message: 'a number followed by s, m, h, d or w' }],
    });
  }
  return Math.round(Number(match[1]) * UNITS[match[2]!.toLowerCase()]!);
}
