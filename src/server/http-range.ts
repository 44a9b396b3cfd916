/**
 * `Range: bytes=…` for video downloads (RFC 9110 §14). One range is served; a header the server
 * does not understand, or several ranges, is ignored and the whole file is sent (which the RFC
 * allows). A range that starts past the end is unsatisfiable (416).
 */

export type RangeResult = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return { kind: 'full' };
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.replace(/\s/g, ''));
  if (match === null) return { kind: 'full' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (!Number.isSafeInteger(end) || end < start) return { kind: 'full' };
  return { kind: 'partial', start, end };
}

/** Entity tags listed in `If-None-Match` / `If-Range` (`W/` prefixes kept), or `*`. */
function entityTags(header: string): string[] {
  return header.match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
}

/**
 * `If-None-Match` (RFC 9110 §13.1.2): true when the client's copy is current, so the answer is
 * 304 Not Modified. The comparison is weak: `W/"x"` matches `"x"`.
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strip = (tag: string): string => tag.replace(/^W\//, '');
  return entityTags(ifNoneMatch).some((tag) => tag === '*' || strip(tag) === strip(etag));
}

/**
 * `If-Range` (RFC 9110 §13.1.5): the Range applies only if the validator still names this file —
 * a strong entity tag equal to ours, or exactly our Last-Modified date. Otherwise the client's
 * partial copy is stale and it gets the whole file (200).
 */
export function rangeStillValid(ifRange: string | undefined, etag: string | null, lastModified: string): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return etag !== null && !value.startsWith('W/') && value === etag;
  return value === lastModified;
}
