import { randomBytes } from 'node:crypto';
import { BASE32_CLASS, bytesToBase32 } from './base32.js';

/** `prefix_` + `length` random lowercase Crockford base32 characters (5 bits each). */
export function randomId(prefix: string, length = 24): string {
  return `${prefix}_${bytesToBase32(randomBytes(length))}`;
}

export function idPattern(prefix: string, length = 24): RegExp {
  return new RegExp(`^${prefix}_${BASE32_CLASS}{${length}}$`);
}
