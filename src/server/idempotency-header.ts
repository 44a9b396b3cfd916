/** The header's syntax (docs/api.md "Idempotency-Key"); the records live in src/records/idempotency.ts. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
