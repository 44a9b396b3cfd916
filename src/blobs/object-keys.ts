import { formatPathOf, posterPathOf } from '../core/paths.js';
import { storageError } from './errors.js';
import type { ByteRange } from './types.js';

/** A segment starts with a letter or digit, so keys never collide with the local store's hidden temp and metadata files. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws unless `key` is `segment(/segment)*` of safe segments (no `.`/`..`, no empty segment, ≤ 512 chars). */
export function assertBlobKey(key: string): string {
  const ok = key.length > 0 && key.length <= 512 && key.split('/').every((segment) => SEGMENT.test(segment) && !segment.includes('..'));
  if (!ok)
    throw storageError(
      'blob_key_invalid',
      `Invalid blob key ${JSON.stringify(key.slice(0, 80))}: use /-separated segments of letters, digits, ".", "-", "_".`,
    );
  return key;
}

/** A list prefix may end in `/` or part-way through a segment; it must not escape the store. */
export function assertBlobPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const segments = trimmed.split('/');
  const last = segments.pop()!;
  const ok =
    segments.every((s) => SEGMENT.test(s) && !s.includes('..')) &&
    (last === '' ? segments.length === 0 : /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(last) && !last.includes('..'));
  if (!ok) throw storageError('blob_key_invalid', `Invalid blob prefix ${JSON.stringify(prefix.slice(0, 80))}.`);
  return prefix;
}

/** Checks a requested range against the object size and clamps its end, as HTTP does. */
export function resolveRange(key: string, range: ByteRange, size: number): ByteRange {
  if (
    !Number.isSafeInteger(range.start) ||
    !Number.isSafeInteger(range.end) ||
    range.start < 0 ||
    range.end < range.start ||
    range.start >= size
  ) {
    throw storageError('range_not_satisfiable', `Range ${range.start}-${range.end} is outside ${key} (${size} bytes).`);
  }
  return { start: range.start, end: Math.min(range.end, size - 1) };
}

/**
 * Where a job's finished video lives. Each attempt uploads to its own key and the transition to
 * `succeeded` names the one that won, so a late worker whose attempt expired can never replace
 * (or add to) the output of a finished job; the embedded default keeps `output.mp4`.
 */
export function videoKey(jobId: string, attempt?: number): string {
  return assertBlobKey(attempt === undefined ? `jobs/${jobId}/output.mp4` : `jobs/${jobId}/output-${attempt}.mp4`);
}

/**
 * Where the poster of the video at `videoKey` lives: next to it, `…/output[-<attempt>]-poster.jpg`,
 * so the succeeded row that names the video's attempt names its poster too (docs/api.md "The poster").
 */
export function posterKey(videoKey: string): string {
  const key = posterPathOf(videoKey);
  if (key === null) throw storageError('blob_key_invalid', `Not a video key: ${JSON.stringify(videoKey.slice(0, 80))}.`);
  return assertBlobKey(key);
}

/**
 * Where the output in `format` of a job whose primary video is at `videoKey` lives: the primary
 * keeps `videoKey` itself (jobs and routes from before packs read it unchanged), every other
 * output sits beside it, `…/output[-<attempt>]-<format>.mp4` (docs/jobs.md "Outputs").
 */
export function outputKey(videoKey: string, format: string, primary: boolean): string {
  if (primary) return videoKey;
  const key = formatPathOf(videoKey, format);
  if (key === null) throw storageError('blob_key_invalid', `Not a video key: ${JSON.stringify(videoKey.slice(0, 80))}.`);
  return assertBlobKey(key);
}

/** Where an uploaded asset's bytes live: `assets/<asset_id>.<ext>`, as in the data directory. */
export function assetKey(file: string): string {
  return assertBlobKey(`assets/${file}`);
}
