/** The header's syntax (docs/api.md "Idempotency-Key"); the records live in src/store/idempotency.ts. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export { fingerprint, IDEMPOTENCY_TTL_MS, type StoredAnswer } from '../store/idempotency.js';
