import type { ErrorDetail } from './errors.js';

/**
 * Every size limit on what a caller sends, in one place (docs/security.md lists them). The HTTP
 * schemas, the request validators and the analysis all read them from here.
 */

/** Largest description accepted, in characters: listings are a few KB; this stops abuse. */
export const MAX_DESCRIPTION_CHARS = 50_000;
/** Largest saved page accepted, in bytes. Real portal pages are 0.2–1.5 MB. */
export const MAX_HTML_BYTES = 5 * 1024 * 1024;
/** Texts read from a page (its description, its title) are capped like a description is. */
export const MAX_PAGE_TEXT_CHARS = MAX_DESCRIPTION_CHARS;
export const MAX_PAGE_TITLE_CHARS = 500;

/** `metadata`: the caller's own data, echoed in the job and its webhook. */
export const MAX_METADATA_BYTES = 4096;
/** A `listing` object (an analysis `property`): real ones are 2–6 KB of JSON. */
export const MAX_LISTING_BYTES = 64 * 1024;
/** Nesting of `metadata` and of the free-form objects of `listing` (market, target_buyer, source). */
export const MAX_JSON_DEPTH = 16;
/** `listing.title`: portal titles are under 150 characters. */
export const MAX_LISTING_TITLE_CHARS = 200;
/** `listing.features` and `listing.marketing_angles`: entries, and characters per entry. */
export const MAX_LISTING_LIST_ITEMS = 60;
export const MAX_LISTING_ITEM_CHARS = 400;

/** Bytes of a string in UTF-8, without Node's Buffer (this module is also type-checked for the Studio page). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte character
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Checks that a free-form JSON value nests at most `maxDepth` levels and weighs at most
 * `maxBytes` as JSON, without recursion (a deeply nested value must not overflow the stack) and
 * stopping as soon as a limit is passed. Null when it is within both; else the problem, naming
 * `field`, for a 400.
 */
export function checkJsonShape(value: unknown, field: string, limits: { maxDepth: number; maxBytes: number }): ErrorDetail | null {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current !== null && typeof current === 'object') {
      if (depth > limits.maxDepth) return { field, message: `is nested more than ${limits.maxDepth} levels deep` };
      const children = Array.isArray(current) ? current : Object.entries(current as Record<string, unknown>);
      bytes += 2 + children.length;
      for (const child of children) {
        if (Array.isArray(current)) stack.push({ value: child, depth: depth + 1 });
        else {
          const [key, inner] = child as [string, unknown];
          bytes += utf8Length(key) + 3;
          stack.push({ value: inner, depth: depth + 1 });
        }
      }
    } else if (typeof current === 'string') {
      bytes += utf8Length(current) + 2;
    } else {
      bytes += String(current).length;
    }
    if (bytes > limits.maxBytes) return { field, message: `is larger than ${limits.maxBytes} bytes of JSON` };
  }
  return null;
}

/**
 * The free-form parts of a render request (`metadata`, `listing`) within their depth and size
 * limits: every problem, each naming its field. Checked before anything else reads the body
 * (hashing it for idempotency included).
 */
export function requestShapeProblems(body: unknown): ErrorDetail[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const { metadata, listing } = body as { metadata?: unknown; listing?: unknown };
  const problems: ErrorDetail[] = [];
  const metadataProblem =
    metadata == null ? null : checkJsonShape(metadata, 'metadata', { maxDepth: MAX_JSON_DEPTH, maxBytes: MAX_METADATA_BYTES });
  if (metadataProblem !== null) problems.push(metadataProblem);
  const listingProblem =
    listing == null ? null : checkJsonShape(listing, 'listing', { maxDepth: MAX_JSON_DEPTH, maxBytes: MAX_LISTING_BYTES });
  if (listingProblem !== null) problems.push(listingProblem);
  return problems;
}
