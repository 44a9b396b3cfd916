import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** `prefix_` + `length` random lowercase Crockford base32 characters (5 bits each). */
export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i += 1) out += ALPHABET[bytes[i]! & 31];
  return `${prefix}_${out}`;
}

export function idPattern(prefix: string, length = 24): RegExp {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{${length}}$`);
}
