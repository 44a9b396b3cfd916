/**
 * Lowercase Crockford base32 (no i, l, o, u: nothing to misread), the alphabet of every id immoreel
 * makes: job ids (core/job-ids.ts) and the server's key, asset and request ids (server/ids.ts).
 */
export const BASE32_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A regex character class matching one character of the alphabet. */
export const BASE32_CLASS = '[0-9a-hjkmnp-tv-z]';

/** The `length` low 5-bit digits of `value`, most significant first. */
export function encodeBase32(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = BASE32_ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** One character per byte (its low 5 bits): random bytes give uniformly random characters. */
export function bytesToBase32(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += BASE32_ALPHABET[byte & 31];
  return out;
}
