/** The job layer's hashes are the ones every layer shares (`core/hash.ts`). */
export { hashInputs, sha256Hex, stableStringify } from '../core/hash.js';
