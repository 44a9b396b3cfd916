// The API's own types: the page and the server cannot disagree on a field.
export type { JobOutput, JobRecord, Property, VideoFormat, Warning } from '../../src/core/types.js';
export type { PhotoItem as RequestPhoto } from '../../src/core/requests.js';
export type { ShareRecord as ShareLink } from '../../src/records/shares.js';
