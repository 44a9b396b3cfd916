import type { Language, ListingFacts, PortalName, Transaction } from '../../core/types.js';
import type { Page } from './html.js';

/** What a URL is on a portal: one listing (with its id), or a page that is not a listing. */
export type UrlVerdict =
  | {
      kind: 'listing';
      portal: PortalName;
      listingId: string;
      /** The URL as given, normalised (scheme, host case). */
      url: string;
      /** What the URL itself says about sale/rent, when it says anything ("/acheter-", "/rent/"). */
      transactionHint: Transaction | null;
    }
  | { kind: 'not_listing'; portal: PortalName; what: string };

export interface PortalAdapter {
  name: PortalName;
  /** How users call it: "Mubawab". */
  label: string;
  /** The domain users know: "mubawab.ma". */
  domain: string;
  /** Whether a host (lower case, without www./m./mobile.) belongs to this portal. */
  ownsHost(host: string): boolean;
  recognize(url: URL): UrlVerdict;
  /** Smallest gap between two requests to this portal's hosts (politeness, robots.txt). */
  paceMs: number;
  /** URLs to try, in order, for a listing (default: the listing URL itself). */
  fetchPlan?(listing: Extract<UrlVerdict, { kind: 'listing' }>): FetchStep[];
  /** True when a fetched page says the listing is gone (a portal's "not available" page). */
  isRemovedPage?(page: Page): boolean;
  /** True when the content alone shows the page comes from this portal (saved page, no URL). */
  sniff(page: Page): boolean;
  parse(page: Page, listing: Extract<UrlVerdict, { kind: 'listing' }> | null, options: ParseOptions): PageParse;
}

/** What a page's reading depends on besides the page. */
export interface ParseOptions {
  /** MAD per EUR for prices stated in euros (docs/portals.md). */
  eurToMad: number;
  /** The language of the warnings' messages (docs/analysis.md "Warnings"). */
  language: Language;
}

export interface FetchStep {
  url: string;
  accept: 'html' | 'json';
}

/** An adapter's reading of one page, before the text of the page is read and merged in. */
export interface PageParse {
  facts: ListingFacts;
  /** The listing id the page itself states (data, canonical link), or null. */
  listingId: string | null;
  /** The listing's own URL when the page states it (canonical link, JSON-LD url). */
  canonicalUrl: string | null;
  /** The page's description text (without the title), for the text extractor. */
  descriptionText: string | null;
  /** Seller names, phone numbers and e-mails seen on the page: scrubbed from every text that leaves. */
  privateStrings: string[];
}

// Small readers for untyped JSON.

export function str(value: unknown): string | null {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

/** Path segments, percent-decoded where possible (Avito slugs carry Arabic and "²"). */
export function pathSegments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

/** Adds each non-empty string once. */
export function addPrivate(target: string[], ...values: unknown[]): void {
  for (const value of values) {
    const text = str(value);
    if (text !== null && text.length >= 3 && !target.includes(text)) target.push(text);
  }
}

/** Absolute http(s) photo URLs, in order, each once. */
export function photoList(urls: unknown[], base: string | null): string[] {
  const seen = new Set<string>();
  const photos: string[] = [];
  for (const candidate of urls) {
    const text = str(candidate);
    if (text === null || text.startsWith('data:')) continue;
    let absolute: string;
    try {
      absolute = new URL(text.startsWith('//') ? `https:${text}` : text, base ?? undefined).toString();
    } catch {
      continue;
    }
    if (!/^https?:/.test(absolute) || seen.has(absolute)) continue;
    seen.add(absolute);
    photos.push(absolute);
  }
  return photos;
}
