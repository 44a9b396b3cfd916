import { AppError, badRequest } from '../../core/errors.js';
import type { Language, ListingFacts, ListingSource, PortalName, Provenance, Warning } from '../../core/types.js';
import { PROVENANCE_FIELDS } from '../../core/types.js';
import { openFetch, type FetchPort, type FetchResult, type PortFetchOptions } from '../../net/fetch.js';
import { mergeFacts } from '../merge.js';
import { DEFAULT_EUR_TO_MAD, extractFacts } from '../text/extract.js';
import type { FetchStep, PageParse, PortalAdapter, UrlVerdict } from './adapter.js';
import { avito } from './avito.js';
import { Page } from './html.js';
import { mubawab } from './mubawab.js';
import { scrubPrivate } from '../privacy.js';
import { MAX_PAGE_TEXT_CHARS, MAX_PAGE_TITLE_CHARS } from '../../core/limits.js';
import { sarouty } from './sarouty.js';
import { yakeey } from './yakeey.js';
import { sayer } from '../say.js';

/**
 * Listing URLs and pages of the supported portals (docs/portals.md): which URL is a
 * listing, how to fetch it politely, and how to read it into ListingFacts. One adapter per
 * portal; this module picks the adapter, maps portal failures to clear errors, scrubs seller
 * details, and runs the text extractor over the page's own description.
 */

export type { UrlVerdict } from './adapter.js';

export interface PageAnalysis {
  facts: ListingFacts;
  source: ListingSource;
}

export interface FetchPageOptions {
  signal?: AbortSignal;
  /** The network (default: open). The server passes its guarded port: see docs/architecture.md. */
  fetch?: FetchPort;
  /** Overrides of the HTTP client's settings (tests pass a MockAgent dispatcher, short backoffs). */
  http?: Partial<PortFetchOptions>;
}

export const PORTALS: readonly PortalAdapter[] = [mubawab, avito, sarouty, yakeey];

export const SUPPORTED_PORTALS = PORTALS.map((p) => `${p.label} (${p.domain})`).join(', ');

type Listing = Extract<UrlVerdict, { kind: 'listing' }>;

function adapterFor(portal: PortalName): PortalAdapter {
  return PORTALS.find((p) => p.name === portal) as PortalAdapter;
}

function unsupported(message: string, detail: string): AppError {
  return badRequest(message, { reason: 'unsupported_url', details: [{ field: 'url', message: detail }] });
}

function parseUserUrl(raw: string): URL | null {
  const text = raw.trim();
  // People paste "www.avito.ma/…" without a scheme.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : /^[\w-]+(\.[\w-]+)+(\/|$)/.test(text) ? `https://${text}` : text;
  try {
    const url = new URL(withScheme);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** What a URL is on the supported portals, or null when its host is not one of them. */
export function recognizeUrl(raw: string): UrlVerdict | null {
  const url = parseUserUrl(raw);
  if (url === null) return null;
  const host = url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^(www\d*|m|mobile)\./, '');
  const adapter = PORTALS.find((p) => p.ownsHost(host));
  return adapter === undefined ? null : adapter.recognize(url);
}

export interface PortalLink {
  /** The address with its scheme (`https://` added when the text had none). */
  url: string;
  schemeAdded: boolean;
}

/**
 * A text that is nothing but an address on a supported portal, with or without its scheme
 * (`www.avito.ma/fr/…`, `mubawab.ma/fr/a/…`), as agents paste it (docs/portals.md, "Links
 * without a scheme"). The one test used wherever a listing is given: the `url` field, a
 * `description` or the Studio's box that holds only such an address, and the CLI. Null for any
 * other text, including a portal's address inside a sentence.
 */
export function portalLink(text: string): PortalLink | null {
  const trimmed = text.trim();
  if (trimmed === '' || /\s/.test(trimmed) || recognizeUrl(trimmed) === null) return null;
  const schemeAdded = !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  return { url: schemeAdded ? `https://${trimmed}` : trimmed, schemeAdded };
}

/**
 * A request whose description is only a portal's address, as the request for that address
 * (docs/portals.md "Links without a scheme"): decided before any page is fetched or any worker
 * thread runs, so that the page is fetched where fetching happens. Other requests are unchanged.
 */
export function linkAsUrl<T extends { url: string | null; html: string | null; description: string | null }>(valid: T): T {
  if (valid.url !== null || valid.html !== null || valid.description === null || portalLink(valid.description) === null) return valid;
  return { ...valid, url: valid.description.trim(), description: null };
}

/** The warning a property carries when its address was given without `https://`. */
export function schemeAddedWarning(given: string, url: string, language: Language = 'en'): Warning {
  const message = sayer(language)({
    en: `${given} was read as the link ${url}: https:// was added. Paste links with their https:// to be sure they are read as links.`,
    fr: `${given} a été lu comme le lien ${url} : https:// a été ajouté. Collez les liens avec leur https:// pour qu’ils soient lus comme des liens.`,
    ar: `قُرئ ${given} على أنه الرابط ${url}: أضيف https://. الصق الروابط مع https:// لتُقرأ كروابط.`,
  });
  return { code: 'URL_SCHEME_ADDED', message };
}

function notAListing(verdict: Extract<UrlVerdict, { kind: 'not_listing' }>, shownUrl: string, subject = shownUrl): AppError {
  const label = adapterFor(verdict.portal).label;
  return unsupported(
    `${subject} is ${verdict.what} on ${label}, not a single listing. Open one listing and use its address. ` +
      `Supported portals: ${SUPPORTED_PORTALS}.`,
    `${verdict.what}, not a listing`,
  );
}

/** The listing a URL points to; anything else is BAD_REQUEST `unsupported_url` naming the portals. */
export function requireListingUrl(raw: string): Listing {
  const verdict = recognizeUrl(raw);
  if (verdict === null) {
    if (parseUserUrl(raw) === null) {
      throw badRequest(`${JSON.stringify(raw)} is not a web address (expected https://…).`, {
        reason: 'unsupported_url',
        details: [{ field: 'url', message: 'not a valid http(s) URL' }],
      });
    }
    throw unsupported(
      `${raw} is not on a supported portal. Supported portals: ${SUPPORTED_PORTALS}. ` +
        'For another site, paste the listing text as the description instead.',
      'not a supported portal',
    );
  }
  if (verdict.kind === 'not_listing') throw notAListing(verdict, raw);
  return verdict;
}

// ---------------------------------------------------------------------------------------------
// Fetching

function decodeBody(result: FetchResult): string {
  const charset = /charset=["']?([\w-]+)/i.exec(result.headers['content-type'] ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(result.body);
  } catch {
    return new TextDecoder('utf-8').decode(result.body);
  }
}

function upstream(message: string, reason: string, retryAfterS?: number): AppError {
  return new AppError('UPSTREAM_ERROR', message, { reason, retryAfterS });
}

function removed(label: string, url: string, how: string): AppError {
  return upstream(`This ${label} listing was removed: ${how} (${url}). It is no longer online.`, 'listing_removed');
}

/** Turns one HTTP answer into page text, or the error that says what the portal did. */
function checkAnswer(adapter: PortalAdapter, listing: Listing, step: FetchStep, result: FetchResult): string {
  const label = adapter.label;
  const status = result.status;
  if (status === 404 || status === 410) throw removed(label, listing.url, `${label} answers HTTP ${status} for it`);
  if (status === 401 || status === 403) {
    throw upstream(
      `${label} refused to serve ${step.url} (HTTP ${status}): the portal is blocking automated requests. ` +
        'Save the page from your browser and analyze it with --html-file (html in the API), or paste the listing text as the description.',
      'blocked',
    );
  }
  if (status === 429) {
    const wait = Number(result.headers['retry-after']);
    throw upstream(
      `${label} is limiting requests (HTTP 429)${Number.isFinite(wait) && wait > 0 ? `; it asks to wait ${wait} s` : ''}. Try again later.`,
      'rate_limited',
      Number.isFinite(wait) && wait > 0 ? wait : undefined,
    );
  }
  if (status >= 500) throw upstream(`${label} is failing (HTTP ${status}, after retries). Try again later.`, 'upstream_status');
  if (status < 200 || status >= 300) throw upstream(`${label} answered HTTP ${status} for ${step.url}.`, 'upstream_status');

  // A listing that moved to a non-listing page (Mubawab's /sd/ similar-ads page, a search page).
  const landed = recognizeUrl(result.url);
  if (step.accept === 'html' && landed !== null && landed.kind === 'not_listing') {
    throw removed(label, listing.url, `${label} now redirects it to ${landed.what}`);
  }
  const text = decodeBody(result);
  const page = new Page(text);
  if (adapter.isRemovedPage?.(page)) throw removed(label, listing.url, `${label} shows its "not available" page`);
  // An API answering 200 without the property (an error object): let the next step try the page.
  if (step.accept === 'json' && !adapter.sniff(page))
    throw upstream(`${label} answered ${step.url} without listing data.`, 'upstream_status');
  return text;
}

/**
 * Fetches a listing the way a browser would, politely (per-portal pace, retries with backoff,
 * Retry-After). Returns the page (or, for Sarouty, the API's JSON) for `parseListingPage`.
 */
export async function fetchListingPage(url: string, options: FetchPageOptions = {}): Promise<string> {
  const listing = requireListingUrl(url);
  const adapter = adapterFor(listing.portal);
  const steps = adapter.fetchPlan?.(listing) ?? [{ url: listing.url, accept: 'html' as const }];
  let firstFailure: AppError | null = null;
  for (const step of steps) {
    try {
      const result = await (options.fetch ?? openFetch)(step.url, {
        browserHeaders: true,
        headers:
          step.accept === 'json'
            ? { accept: 'application/json, text/plain, */*', 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' }
            : {},
        paceMs: adapter.paceMs,
        maxBytes: 8 * 1024 * 1024,
        signal: options.signal,
        ...options.http,
      });
      return checkAnswer(adapter, listing, step, result);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'UPSTREAM_ERROR') throw error;
      // A removed listing is the most telling answer of all the steps tried.
      if (firstFailure === null || error.reason === 'listing_removed') firstFailure = error;
    }
  }
  throw firstFailure ?? upstream(`Could not fetch ${url}.`, 'network_error');
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** The listing a saved page names as its own (canonical link), when it is on a supported portal. */
function ownUrlVerdict(page: Page): UrlVerdict | null {
  const canonical = page.link('canonical');
  return canonical === null ? null : recognizeUrl(canonical);
}

function statesListingFacts(facts: ListingFacts): boolean {
  return (
    facts.price_mad !== null ||
    facts.price_original !== null ||
    facts.surface_m2 !== null ||
    facts.bedrooms !== null ||
    facts.rooms !== null ||
    facts.photos.length > 0
  );
}

/**
 * The page's own title and description, private details removed. A page has no length limit of
 * its own text, so each is capped like a pasted description is (docs/security.md).
 */
function scrubbed(parse: PageParse): { title: string | null; description: string | null } {
  const clean = (text: string | null, cap: number): string | null =>
    text === null ? null : scrubPrivate(text.slice(0, cap), parse.privateStrings).trim() || null;
  return { title: clean(parse.facts.title, MAX_PAGE_TITLE_CHARS), description: clean(parse.descriptionText, MAX_PAGE_TEXT_CHARS) };
}

/**
 * Reads a listing page (fetched or saved by the user) into facts. The portal comes from `url`,
 * else from the page's canonical link, else from its content. The page's own title and
 * description then go through the text extractor: page fields win, the text fills gaps and adds
 * features, contradictions become warnings (mergeFacts).
 */
export function parseListingPage(html: string, url: string | null, options: { eurToMad?: number; language?: Language } = {}): PageAnalysis {
  const eurToMad = options.eurToMad ?? DEFAULT_EUR_TO_MAD;
  // The language of the warnings' messages (docs/analysis.md "Warnings").
  const language = options.language ?? 'en';
  const page = new Page(html);
  const given = url === null ? null : requireListingUrl(url);
  const own = ownUrlVerdict(page);
  if (own !== null && own.kind === 'not_listing') {
    const label = adapterFor(own.portal).label;
    if (adapterFor(own.portal).isRemovedPage?.(page)) {
      throw badRequest(`The page says this ${label} listing is no longer available: it was removed from ${label}.`, {
        reason: 'listing_removed',
        details: [{ field: 'html', message: 'the page of a removed listing' }],
      });
    }
    throw notAListing(own, page.link('canonical') as string, 'The page given');
  }
  const listing = given ?? (own !== null && own.kind === 'listing' ? own : null);
  const adapter = listing !== null ? adapterFor(listing.portal) : PORTALS.find((p) => p.sniff(page));
  if (adapter === undefined) {
    throw unsupported(
      `Cannot tell which portal this page comes from: it has no link to a listing on ${SUPPORTED_PORTALS}. ` +
        'Give the listing URL with it (--url, or url in the API).',
      'unknown portal',
    );
  }
  if (given !== null && own !== null && own.portal !== given.portal) {
    throw badRequest(
      `The page is from ${adapterFor(own.portal).label} but the URL is a ${adapter.label} listing: give the page and the URL of the same listing.`,
      {
        reason: 'unsupported_url',
        details: [{ field: 'html', message: `page of ${own.portal}, URL of ${given.portal}` }],
      },
    );
  }

  const parse = adapter.parse(page, listing, { eurToMad, language });
  if (given !== null && parse.listingId !== null && parse.listingId.toUpperCase() !== given.listingId.toUpperCase()) {
    throw badRequest(
      `The page is ${adapter.label} listing ${parse.listingId} but the URL is listing ${given.listingId}: give the page and the URL of the same listing.`,
      {
        reason: 'unsupported_url',
        details: [{ field: 'html', message: `page of listing ${parse.listingId}, URL of listing ${given.listingId}` }],
      },
    );
  }
  if (!statesListingFacts(parse.facts)) {
    throw unsupported(
      `The page holds no ${adapter.label} listing data (no price, surface, rooms or photos): it may be a search page, ` +
        'a removed listing or a page saved before it finished loading. Save the listing page again, or paste its text as the description.',
      'no listing data in the page',
    );
  }

  const { title, description } = scrubbed(parse);
  const pageFacts: ListingFacts = { ...parse.facts, title, provenance: structuredProvenance(parse.facts) };
  const ownText = [title, description].filter((t): t is string => t !== null).join('\n\n');
  const facts =
    ownText === '' ? pageFacts : mergeFacts(pageFacts, extractFacts(ownText, { source: 'page_text', eurToMad, language }), language);
  facts.description = ownText === '' ? null : ownText;
  // Descriptions name nearby places ("à 3 min de Maarif"): when the page states its city, its
  // district field (even empty) is the one to trust.
  if (pageFacts.city !== null) {
    facts.district = pageFacts.district;
    if (pageFacts.district === null) delete facts.provenance.district;
    else if (pageFacts.provenance.district !== undefined) facts.provenance.district = pageFacts.provenance.district;
  }
  // The text fills gaps: a page with an amenity list has no gap there (sellers' texts name
  // neighbouring amenities and search keywords: "proche piscine", "neuf meknes").
  if (pageFacts.feature_keys.length > 0) facts.feature_keys = pageFacts.feature_keys;

  const listingUrl = listing?.url ?? parse.canonicalUrl;
  return {
    facts,
    source: { kind: 'url', portal: adapter.name, listing_id: listing?.listingId ?? parse.listingId, url: listingUrl },
  };
}

/** How sure a value of the page's own fields is: the seller typed it in the portal's form (docs/analysis.md "Provenance"). */
const STRUCTURED_CONFIDENCE = 0.95;

/**
 * Provenance of the facts a portal page states in its data: the field and its value as the
 * page gives them ("bedrooms: 3"), since structured data has no sentence to quote.
 */
function structuredProvenance(facts: ListingFacts): Provenance {
  const provenance: Provenance = {};
  for (const field of PROVENANCE_FIELDS) {
    const value =
      field === 'price_mad' && facts.price_original !== null
        ? `${facts.price_original.amount} ${facts.price_original.currency}`
        : facts[field];
    if (value === null) continue;
    provenance[field] = { source: 'structured_data', excerpt: `${field}: ${value}`.slice(0, 120), confidence: STRUCTURED_CONFIDENCE };
  }
  return provenance;
}
