/**
 * Texts that are drawn on a video or echoed in an answer carry no invisible controls
 * (docs/security.md): C0 controls other than tab and newline, DEL and C1 controls, the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069: "U+202E gnp.exe" shows as
 * "exe.png"), and lone surrogates (half a character: invalid UTF-16 that breaks renderers and
 * JSON consumers). Left-to-right and right-to-left marks stay: Arabic text uses them.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function safeText(text: string): string {
  return text.replace(UNSAFE, '').replace(LONE_SURROGATE, '');
}

/** A copy of `value` with every string (object keys included) made safe. */
export function safeStrings<T>(value: T): T {
  if (typeof value === 'string') return safeText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => safeStrings(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) => [safeText(key), safeStrings(inner)]),
    ) as T;
  }
  return value;
}
