/**
 * What a photo, logo or music reference is: one rule shared by the request validators and the
 * readers, so a reference the validator takes for a URL is never read as a local path
 * (`http:/host/x` is a URL to both; docs/security.md).
 */
export type RefKind = 'http' | 'asset' | 'file' | 'unsupported';

export function refKind(ref: string): RefKind {
  if (/^https?:/i.test(ref)) return 'http';
  if (ref.startsWith('asset:')) return 'asset';
  // Any other scheme is refused; a Windows drive letter (C:\…) is a path.
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) && !/^[a-z]:[\\/]/i.test(ref)) return 'unsupported';
  return 'file';
}

/** The normalised form of an http(s) reference (`http:/host/x` → `http://host/x`), or null when it is not one. */
export function normalizeHttpUrl(ref: string, maxChars = 2048): string | null {
  if (ref.length > maxChars || refKind(ref) !== 'http') return null;
  try {
    const url = new URL(ref);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A photo, logo or music reference the tool does not read from the local disk: an http(s) URL or
 * an `asset:<id>` uploaded to a server. Anything else is a local path.
 */
export function isRemoteRef(value: string): boolean {
  const kind = refKind(value.trim());
  return kind === 'http' || kind === 'asset';
}
