// The API's own types: the page and the server cannot disagree on a field.
export type { JobRecord, Property, Warning } from '../../src/core/types.js';
