import { isAbsolute, resolve } from 'node:path';
import { portalLink, requireListingUrl } from '../analysis/portals/index.js';
import { isAppError, type ErrorDetail } from '../core/errors.js';
import { requestShapeProblems } from '../core/limits.js';
import { ListingLimitsSchema, type PropertyInput } from '../core/property-schema.js';
import { photoRef } from '../core/photo-ref.js';
import { normalizeHttpUrl, refKind } from '../core/refs.js';
import {
  checkRequest,
  inputProblems,
  invalidInput,
  MAX_URL_CHARS,
  RenderRequestSchema,
  ruleProblems,
  type Branding,
  type InputRule,
  type RenderRequest,
} from '../core/requests.js';
import { safeStrings, safeText } from '../core/safe-text.js';
import type { ConfirmableFact, Language, Property } from '../core/types.js';
import { descriptionIsNotBlank, MISSING_LISTING } from '../core/analyze-rules.js';
import { MUSIC_TRACKS, trackByName } from './music-tracks.js';
import { listTemplates, templateExists } from './templates.js';
import type { ValidRenderRequest } from './types.js';

/**
 * validateRenderRequest: a render request (docs/api.md) checked at every front door (CLI, CSV row,
 * HTTP body) before a job is queued: its schema (core/requests.ts), the one statement of each
 * field's type, enum and length, then the rules below, one named function each, which read only
 * what the schema accepted (docs/api.md "One schema per input"). Synchronous and free of I/O
 * apart from the template list of the package.
 */

export { MAX_METADATA_BYTES, MAX_PHOTOS } from '../core/requests.js';
/** Longest city/district kept from a given listing. */
const MAX_TEXT_FIELD = 120;
const DEFAULT_TEMPLATE = 'classic';

const ASSET_REF = /^asset:[A-Za-z0-9_-]{1,80}$/;
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{5,23}$/;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

type Mode = 'local' | 'server';
/** What the rules know beyond the request: local mode may name files, the server may not. */
export interface RenderRuleContext {
  mode: Mode;
}
export type RenderRule = InputRule<RenderRequest, RenderRuleContext>;

/** An input counts as given when it is not absent or empty (a CSV cell left blank). */
const given = (value: string | undefined): value is string => value !== undefined && value !== '';

// ---------------------------------------------------------------------------------------------
// Resolutions shared by the rules (which report what fails) and the result (which keeps what passes).

type Resolved = { value: string } | { problem: string };

/** A photo or logo reference: http(s) URL (normalised), asset:<id>, or (local mode) a path made absolute. */
function resolveImageRef(value: string, mode: Mode): Resolved {
  const ref = value.trim();
  if (ref === '') return { problem: 'must be a non-empty string: an http(s) URL, asset:<id>, or (CLI only) a file path' };
  const kind = refKind(ref);
  if (kind === 'http') {
    // Normalised, so the reader sees the same URL the validator accepted.
    const url = normalizeHttpUrl(ref, MAX_URL_CHARS);
    return url === null ? { problem: 'is not a valid http(s) URL' } : { value: url };
  }
  if (kind === 'asset' && ASSET_REF.test(ref)) return { value: ref };
  if (kind !== 'file') return { problem: 'has an unsupported scheme: use an http(s) URL, asset:<id>, or (CLI only) a file path' };
  if (mode === 'server') return { problem: 'must be an http(s) URL or asset:<id> (upload local files with POST /api/v1/assets)' };
  return { value: isAbsolute(ref) ? ref : resolve(ref) };
}

/** `auto`, `none`, a bundled track, or (local mode) an audio file made absolute. */
function resolveMusic(value: string, mode: Mode): Resolved {
  const name = value.trim();
  if (name === 'auto' || name === 'none' || trackByName(name) !== undefined) return { value: name };
  if (mode === 'local' && (name.includes('/') || name.includes('\\') || /\.[a-z0-9]{2,5}$/i.test(name)))
    return { value: isAbsolute(name) ? name : resolve(name) };
  return { problem: `must be one of ${['auto', 'none', ...MUSIC_TRACKS.map((t) => t.name)].join(', ')}, or (CLI only) an audio file path` };
}

/** A branding text as drawn on the video: no invisible controls or bidi overrides (docs/security.md), one space between words. */
function brandingText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = safeText(value).replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text;
}

const problemAt = (field: string, resolved: Resolved): ErrorDetail | undefined =>
  'problem' in resolved ? { field, message: resolved.problem } : undefined;

// ---------------------------------------------------------------------------------------------
// The rules, in the order their problems are reported.

/** A render needs something to show: a listing, or a page or text to analyse (given, even if refused for its form). */
export function needsAListing(request: RenderRequest, _context: RenderRuleContext, refused: ReadonlySet<string>): ErrorDetail | undefined {
  if (['listing', 'url', 'html', 'description'].some((key) => refused.has(key))) return undefined;
  if (request.listing === undefined && !given(request.url) && !given(request.html) && request.description === undefined)
    return { field: 'url', message: `${MISSING_LISTING}, or listing (an analysis property)` };
  return undefined;
}

/** A listing skips analysis: nothing to analyse may come with it. */
export function listingComesAlone(request: RenderRequest): ErrorDetail | undefined {
  if (request.listing !== undefined && (given(request.url) || given(request.html) || given(request.description)))
    return { field: 'listing', message: 'comes alone: give either a listing object or url / html / description to analyse, not both' };
  return undefined;
}

/** A url is a listing page of a supported portal. */
export function urlIsAListingPage(request: RenderRequest): ErrorDetail | undefined {
  if (!given(request.url)) return undefined;
  try {
    requireListingUrl(request.url);
    return undefined;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { field: 'url', message: error.message };
  }
}

/** The free-form parts (`listing`, `metadata`) within their depth and size (core/limits.ts). */
export function freeFormPartsWithinLimits(request: RenderRequest): ErrorDetail[] {
  return requestShapeProblems(request);
}

/** A listing sent in is drawn and echoed: within the sizes of `ListingLimitsSchema`. */
export function listingWithinLimits(request: RenderRequest): ErrorDetail[] | undefined {
  return request.listing === undefined ? undefined : inputProblems(ListingLimitsSchema, request.listing, 'listing');
}

/** A listing's photos are fetched by the server: web addresses only. */
export function listingPhotosAreWebAddresses(request: RenderRequest): ErrorDetail[] | undefined {
  return request.listing?.photos
    ?.filter((url) => normalizeHttpUrl(url, MAX_URL_CHARS) === null)
    .map((url) => ({ field: 'listing.photos', message: `has ${JSON.stringify(url.slice(0, 80))}, which is not an http(s) URL` }));
}

/** One video (`format`) or a pack (`formats`), not both: which would be the primary output is then unclear. */
export function formatOrFormats(
  request: RenderRequest,
  _context: RenderRuleContext,
  refused: ReadonlySet<string>,
): ErrorDetail | undefined {
  const format = request.format !== undefined || refused.has('format');
  const formats = request.formats !== undefined || refused.has('formats');
  if (!format || !formats) return undefined;
  return { field: 'formats', message: 'comes alone: give format (one video) or formats (a pack of videos), not both' };
}

/** Each format of a pack once (docs/api.md "Video packs"): a second copy would be the same video. */
export function formatsAreDistinct(request: RenderRequest): ErrorDetail[] | undefined {
  return request.formats?.flatMap((format, i) =>
    request.formats?.indexOf(format) === i ? [] : [{ field: `formats[${i}]`, message: `repeats ${format}: give each format once` }],
  );
}

export function photosAreImages(request: RenderRequest, { mode }: RenderRuleContext): ErrorDetail[] | undefined {
  return request.photos?.flatMap((photo, i) => problemAt(`photos[${i}]`, resolveImageRef(photoRef(photo), mode)) ?? []);
}

export function templateIsInstalled(request: RenderRequest): ErrorDetail | undefined {
  if (request.template === undefined || templateExists(request.template.trim())) return undefined;
  return { field: 'template', message: `must be one of ${listTemplates().join(', ')}` };
}

export function musicIsKnown(request: RenderRequest, { mode }: RenderRuleContext): ErrorDetail | undefined {
  return request.music === undefined ? undefined : problemAt('music', resolveMusic(request.music, mode));
}

export function brandingPhoneIsANumber(request: RenderRequest): ErrorDetail | undefined {
  const phone = brandingText(request.branding?.phone);
  if (phone === undefined || PHONE.test(phone)) return undefined;
  return { field: 'branding.phone', message: 'must be a phone number: digits, spaces, + ( ) . - (e.g. +212 6 12 34 56 78)' };
}

export function brandingEmailIsAnAddress(request: RenderRequest): ErrorDetail | undefined {
  const email = brandingText(request.branding?.email);
  if (email === undefined || EMAIL.test(email)) return undefined;
  return { field: 'branding.email', message: 'must be an e-mail address like name@agency.ma' };
}

export function brandingLogoIsAnImage(request: RenderRequest, { mode }: RenderRuleContext): ErrorDetail | undefined {
  const logo = request.branding?.logo_url;
  return logo === undefined ? undefined : problemAt('branding.logo_url', resolveImageRef(logo, mode));
}

export function brandingColourIsHex(request: RenderRequest): ErrorDetail | undefined {
  const colour = request.branding?.primary_color;
  if (!given(colour) || HEX_COLOR.test(colour.trim())) return undefined;
  return { field: 'branding.primary_color', message: 'must be a colour like #1A73E8' };
}

export function webhookIsAWebAddress(request: RenderRequest): ErrorDetail | undefined {
  if (request.webhook_url === undefined || normalizeHttpUrl(request.webhook_url.trim(), MAX_URL_CHARS) !== null) return undefined;
  return { field: 'webhook_url', message: 'must be an http(s) URL' };
}

/**
 * A render that cannot succeed is refused now, not accepted, billed and failed later: a text has
 * no photos, and without a page (url or html) there is nowhere to take them from. Run once the
 * request is otherwise valid, so that it never hides what else is wrong.
 */
export function photosToShow(request: RenderRequest): ErrorDetail | undefined {
  if ((request.photos ?? []).length > 0) return undefined;
  if (request.listing !== undefined && (request.listing.photos ?? []).length === 0)
    return { field: 'photos', message: 'give photos: the listing object has none (listing.photos is empty)' };
  // A description that is only a portal link (scheme left out) is read as that page, which has photos.
  if (
    request.listing === undefined &&
    !given(request.url) &&
    !given(request.html) &&
    request.description !== undefined &&
    portalLink(request.description) === null
  )
    return {
      field: 'photos',
      message: 'give photos: a description has none, and there is no listing page (url or html) to take them from',
    };
  return undefined;
}

/** The rules of a render request, run in this order on what its schema accepted. */
export const RENDER_RULES: readonly RenderRule[] = [
  needsAListing,
  listingComesAlone,
  urlIsAListingPage,
  descriptionIsNotBlank,
  freeFormPartsWithinLimits,
  listingWithinLimits,
  listingPhotosAreWebAddresses,
  photosAreImages,
  formatOrFormats,
  formatsAreDistinct,
  templateIsInstalled,
  musicIsKnown,
  brandingPhoneIsANumber,
  brandingEmailIsAnAddress,
  brandingLogoIsAnImage,
  brandingColourIsHex,
  webhookIsAWebAddress,
];
/** Run only when `RENDER_RULES` found nothing. */
export const FINAL_RENDER_RULES: readonly RenderRule[] = [photosToShow];

// ---------------------------------------------------------------------------------------------
// The valid request, with its defaults filled and its texts made safe.

const resolvedValue = (resolved: Resolved): string => ('value' in resolved ? resolved.value : '');

function validBranding(branding: Branding | undefined, mode: Mode): Branding {
  if (branding === undefined) return {};
  const valid: Branding = {};
  for (const key of ['agency_name', 'agent_name', 'phone', 'email'] as const) {
    const text = brandingText(branding[key]);
    if (text !== undefined) valid[key] = text;
  }
  if (branding.logo_url !== undefined) valid.logo_url = resolvedValue(resolveImageRef(branding.logo_url, mode));
  if (given(branding.primary_color)) valid.primary_color = branding.primary_color.trim().toUpperCase();
  if (branding.unbranded !== undefined) valid.unbranded = branding.unbranded;
  return valid;
}

/** The nested parts the renderer and the job answer read are kept only when they carry their key field. */
const hasMarketFigures = (market: PropertyInput['market']): market is Property['market'] =>
  typeof market?.median_price_per_m2_mad === 'number';
const hasPrimaryBuyer = (buyer: PropertyInput['target_buyer']): buyer is Property['target_buyer'] => typeof buyer?.primary === 'string';
const hasSourceKind = (source: PropertyInput['source']): source is Property['source'] => typeof source?.kind === 'string';

/** An analysis `property` given to skip analysis: the contract's seven fields are enough (a CRM may send only those). */
function listingProperty(listing: PropertyInput, language: Language, confirmed: readonly ConfirmableFact[]): Property {
  const text = (value: string | null | undefined): string | null => {
    const trimmed = value?.trim() ?? '';
    return trimmed === '' ? null : trimmed.slice(0, MAX_TEXT_FIELD);
  };
  // Every text of the listing is drawn or echoed: made safe as a whole (docs/security.md).
  return safeStrings({
    title: listing.title.replace(/\s+/g, ' ').trim(),
    city: text(listing.city),
    district: text(listing.district),
    price_mad: listing.price_mad,
    currency: 'MAD',
    features: listing.features,
    marketing_angles: listing.marketing_angles.slice(0, 10).map((a) => a.slice(0, 400)),
    transaction: listing.transaction ?? null,
    property_type: listing.property_type ?? null,
    surface_m2: listing.surface_m2 ?? null,
    surface_total_m2: listing.surface_total_m2 ?? null,
    rooms: listing.rooms ?? null,
    bedrooms: listing.bedrooms ?? null,
    bathrooms: listing.bathrooms ?? null,
    toilets: listing.toilets ?? null,
    floor: listing.floor ?? null,
    metro_area: text(listing.metro_area),
    // Offers and provenance describe the analysis, not the video: a listing passed in keeps none.
    offers: [],
    feature_keys: listing.feature_keys ?? [],
    price_per_m2_mad: listing.price_per_m2_mad ?? null,
    price_original: null,
    market: hasMarketFigures(listing.market) ? listing.market : null,
    target_buyer: hasPrimaryBuyer(listing.target_buyer)
      ? listing.target_buyer
      : { primary: 'family', segments: [], demographics: { household: '', age_range: '', budget_mad: null, financing: '' } },
    photos: listing.photos ?? [],
    source: hasSourceKind(listing.source) ? listing.source : { kind: 'text', portal: null, listing_id: null, url: null },
    language: listing.language ?? language,
    warnings: [],
    // Facts the analysis held back stay held back, unless this request confirms them (docs/analysis.md "Held back").
    held_back: (listing.held_back ?? []).filter((fact) => !confirmed.includes(fact.field)).map((fact) => ({ ...fact })),
    provenance: {},
  });
}

/**
 * Checks a render request from any front door: its schema, then `RENDER_RULES`, then
 * `FINAL_RENDER_RULES`. Throws one BAD_REQUEST listing every problem of the first stage that finds
 * any; the same request gets the same answer from the CLI, a CSV row and HTTP.
 */
export function validateRenderRequest(input: unknown, mode: Mode): ValidRenderRequest {
  const context = { mode };
  const request = checkRequest(RenderRequestSchema, RENDER_RULES, input, context);
  const final = ruleProblems(FINAL_RENDER_RULES, request, context);
  if (final.length > 0) throw invalidInput('render request', final);
  const language = request.language ?? 'fr';
  const formats = request.formats ?? [request.format ?? 'landscape'];
  return {
    input: {
      ...(given(request.url) ? { url: request.url.trim() } : {}),
      ...(given(request.html) ? { html: request.html } : {}),
      ...(request.description === undefined ? {} : { description: request.description }),
      language,
      target_audience: request.target_audience ?? 'auto',
      ...(request.confirmed_facts === undefined || request.confirmed_facts.length === 0
        ? {}
        : { confirmed_facts: [...new Set(request.confirmed_facts)] }),
    },
    listing: request.listing === undefined ? null : listingProperty(request.listing, language, request.confirmed_facts ?? []),
    photos: (request.photos ?? []).map((photo) => resolvedValue(resolveImageRef(photoRef(photo), mode))),
    // Only when some photo has one: requests stored before focus existed read the same.
    ...((request.photos ?? []).some((photo) => typeof photo !== 'string' && photo.focus !== undefined)
      ? { photo_focus: (request.photos ?? []).map((photo) => (typeof photo === 'string' ? null : (photo.focus ?? null))) }
      : {}),
    template: request.template?.trim() ?? DEFAULT_TEMPLATE,
    format: formats[0]!,
    formats,
    duration_s: request.duration_s === undefined ? null : Math.round(request.duration_s * 1000) / 1000,
    language,
    music: request.music === undefined ? 'auto' : resolvedValue(resolveMusic(request.music, mode)),
    branding: validBranding(request.branding, mode),
    webhook_url: request.webhook_url?.trim() ?? null,
    metadata: request.metadata ?? null,
  };
}
