/** API keys are records (src/store/keys.ts); the server authenticates through the RecordStore. */
export {
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  resolveScopes,
  type ApiKeyRecord,
  type CreatedKey,
  type CreateKeyOptions,
} from '../store/keys.js';
