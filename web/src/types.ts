import type { JobRecord as ApiJobRecord, VideoFormat, VideoResult } from '../../src/core/types.js';

// The API's own types: the page and the server cannot disagree on a field.
export type { Property, VideoFormat, Warning } from '../../src/core/types.js';

/** One file of a pack job (docs/studio.md "Packs"): the verified video of one format, and its poster. */
export type JobOutput = VideoResult & { format: VideoFormat; poster_url: string | null };

/**
 * A job as GET /api/v1/jobs/{id} answers it. `formats` and `outputs` are optional here: a job
 * read from a server older than packs has neither, and the page then shows it as before.
 */
export type JobRecord = ApiJobRecord & { formats?: VideoFormat[]; outputs?: JobOutput[] | null };
