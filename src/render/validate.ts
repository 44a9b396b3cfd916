import { isAbsolute, resolve } from 'node:path';
import { portalLink, requireListingUrl } from '../analysis/portals/index.js';
import { isAppError, type ErrorDetail } from '../core/errors.js';
import {
  FEATURE_KEYS,
  LANGUAGES,
  PROPERTY_TYPES,
  TRANSACTIONS,
  VIDEO_FORMATS,
  type AudienceRequest,
  type FeatureKey,
  type Language,
  type Property,
  type VideoFormat,
} from '../core/types.js';
import { type Branding, type RenderRequest } from '../core/requests.js';
import {
  AUDIENCE_CHOICES,
  checkInput,
  inputProblems,
  invalidInput,
  MAX_DESCRIPTION_CHARS,
  MAX_DURATION_S,
  MAX_EMAIL_CHARS,
  MAX_HTML_BYTES,
  MAX_METADATA_BYTES,
  MAX_NAME_CHARS,
  MAX_PHONE_CHARS,
  MAX_PHOTOS,
  MAX_URL_CHARS,
  MIN_DURATION_S,
  RenderRequestSchema,
} from '../core/requests.js';
import { MISSING_LISTING } from '../core/validate.js';
import { normalizeHttpUrl, refKind } from '../core/refs.js';
import { safeStrings, safeText } from '../core/safe-text.js';
import { MAX_LISTING_ITEM_CHARS, MAX_LISTING_LIST_ITEMS, MAX_LISTING_TITLE_CHARS, requestShapeProblems } from '../core/limits.js';
import { MUSIC_TRACKS, trackByName } from './music-tracks.js';
import { listTemplates, templateExists } from './templates.js';
import type { ValidRenderRequest } from './types.js';

/**
 * validateRenderRequest: every field of a render request (docs/api.md), checked at the front door
 * (CLI, CSV row, HTTP body) before a job is queued. Synchronous and free of I/O apart from the
 * template list of the package; every problem is reported at once, each with its field.
 */

export { MAX_METADATA_BYTES, MAX_PHOTOS } from '../core/requests.js';
/** Longest city/district kept from a given listing. */
const MAX_TEXT_FIELD = 120;
const DEFAULT_TEMPLATE = 'classic';

const REQUEST_FIELDS = new Set([
  'url',
  'html',
  'description',
  'listing',
  'language',
  'target_audience',
  'photos',
  'template',
  'format',
  'duration_s',
  'music',
  'branding',
  'webhook_url',
  'metadata',
]);
const BRANDING_FIELDS = new Set(['agency_name', 'agent_name', 'phone', 'email', 'logo_url', 'primary_color', 'unbranded']);

const ASSET_REF = /^asset:[A-Za-z0-9_-]{1,80}$/;
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{5,23}$/;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function httpUrl(value: string): boolean {
  return normalizeHttpUrl(value, MAX_URL_CHARS) !== null;
}

class Problems {
  readonly details: ErrorDetail[] = [];
  add(field: string, message: string): void {
    this.details.push({ field, message });
  }
}

/** A photo or logo reference: http(s) URL, asset:<id>, or (local mode) a path made absolute. */
function imageRef(value: unknown, field: string, mode: 'local' | 'server', problems: Problems): string | null {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.add(field, 'must be a non-empty string: an http(s) URL, asset:<id>, or (CLI only) a file path');
    return null;
  }
  const ref = value.trim();
  const kind = refKind(ref);
  if (kind === 'http') {
    // Normalised, so the reader sees the same URL the validator accepted.
    const url = normalizeHttpUrl(ref, MAX_URL_CHARS);
    if (url !== null) return url;
    problems.add(field, 'is not a valid http(s) URL');
    return null;
  }
  if (kind === 'asset' && ASSET_REF.test(ref)) return ref;
  if (kind !== 'file') {
    problems.add(field, 'has an unsupported scheme: use an http(s) URL, asset:<id>, or (CLI only) a file path');
    return null;
  }
  if (mode === 'server') {
    problems.add(field, 'must be an http(s) URL or asset:<id> (upload local files with POST /api/v1/assets)');
    return null;
  }
  return isAbsolute(ref) ? ref : resolve(ref);
}

function optionalText(value: unknown, field: string, problems: Problems, max = MAX_TEXT_FIELD): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    problems.add(field, 'must be a string');
    return undefined;
  }
  // Drawn on the video: no invisible controls or bidi overrides (docs/security.md).
  const text = safeText(value).replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  if (text.length > max) {
    problems.add(field, `is longer than ${max} characters`);
    return undefined;
  }
  return text;
}

function validateBranding(value: unknown, mode: 'local' | 'server', problems: Problems): Branding {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    problems.add('branding', 'must be an object');
    return {};
  }
  for (const key of Object.keys(value))
    if (!BRANDING_FIELDS.has(key)) problems.add(`branding.${key}`, `is not a branding field (use ${[...BRANDING_FIELDS].join(', ')})`);
  const branding: Branding = {};
  const agency = optionalText(value.agency_name, 'branding.agency_name', problems, MAX_NAME_CHARS);
  if (agency !== undefined) branding.agency_name = agency;
  const agent = optionalText(value.agent_name, 'branding.agent_name', problems, MAX_NAME_CHARS);
  if (agent !== undefined) branding.agent_name = agent;
  const phone = optionalText(value.phone, 'branding.phone', problems, MAX_PHONE_CHARS);
  if (phone !== undefined) {
    if (PHONE.test(phone)) branding.phone = phone;
    else problems.add('branding.phone', 'must be a phone number: digits, spaces, + ( ) . - (e.g. +212 6 12 34 56 78)');
  }
  const email = optionalText(value.email, 'branding.email', problems, MAX_EMAIL_CHARS);
  if (email !== undefined) {
    if (EMAIL.test(email)) branding.email = email;
    else problems.add('branding.email', 'must be an e-mail address like name@agency.ma');
  }
  if (value.logo_url !== undefined && value.logo_url !== null && value.logo_url !== '') {
    const logo = imageRef(value.logo_url, 'branding.logo_url', mode, problems);
    if (logo !== null) branding.logo_url = logo;
  }
  if (value.primary_color !== undefined && value.primary_color !== null && value.primary_color !== '') {
    if (typeof value.primary_color === 'string' && HEX_COLOR.test(value.primary_color.trim()))
      branding.primary_color = value.primary_color.trim().toUpperCase();
    else problems.add('branding.primary_color', 'must be a colour like #1A73E8');
  }
  if (value.unbranded !== undefined && value.unbranded !== null) {
    if (typeof value.unbranded === 'boolean') branding.unbranded = value.unbranded;
    else problems.add('branding.unbranded', 'must be true or false');
  }
  return branding;
}

function nullableNumber(value: unknown, field: string, problems: Problems, min = 0): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    problems.add(field, `must be a number ≥ ${min}, or null`);
    return null;
  }
  return value;
}

function stringList(
  value: unknown,
  field: string,
  problems: Problems,
  limits = { items: MAX_LISTING_LIST_ITEMS, chars: MAX_LISTING_ITEM_CHARS },
): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.add(field, 'must be a list of strings');
    return [];
  }
  if (value.length > limits.items) {
    problems.add(field, `has ${value.length} entries; at most ${limits.items}`);
    return [];
  }
  if ((value as string[]).some((v) => v.length > limits.chars)) {
    problems.add(field, `has an entry longer than ${limits.chars} characters`);
    return [];
  }
  return value as string[];
}

function oneOfOrNull<T extends string>(value: unknown, field: string, allowed: readonly T[], problems: Problems): T | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  problems.add(field, `must be one of ${allowed.join(', ')}, or null`);
  return null;
}

/**
 * An analysis `property` given to skip analysis: the contract's eight fields are enough (a CRM
 * may send only those); every field present must have the right type.
 */
function validateListing(value: unknown, language: Language, problems: Problems): Property | null {
  if (!isObject(value)) {
    problems.add('listing', 'must be an analysis property object (as printed by `immoreel analyze --json`)');
    return null;
  }
  const title = typeof value.title === 'string' ? value.title.replace(/\s+/g, ' ').trim() : null;
  if (title === null) problems.add('listing.title', 'must be a string');
  else if (title.length > MAX_LISTING_TITLE_CHARS) problems.add('listing.title', `is longer than ${MAX_LISTING_TITLE_CHARS} characters`);
  const featureKeys = stringList(value.feature_keys, 'listing.feature_keys', problems).filter((key) => {
    if ((FEATURE_KEYS as readonly string[]).includes(key)) return true;
    problems.add('listing.feature_keys', `has an unknown feature ${JSON.stringify(key)} (known: ${FEATURE_KEYS.join(', ')})`);
    return false;
  }) as FeatureKey[];
  const photos = stringList(value.photos, 'listing.photos', problems).filter((url) => {
    if (httpUrl(url)) return true;
    problems.add('listing.photos', `has ${JSON.stringify(url.slice(0, 80))}, which is not an http(s) URL`);
    return false;
  });
  const listingLanguage =
    value.language === undefined ? language : (oneOfOrNull(value.language, 'listing.language', LANGUAGES, problems) ?? language);
  const text = (key: 'city' | 'district' | 'metro_area'): string | null => {
    const v = value[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') {
      problems.add(`listing.${key}`, 'must be a string or null');
      return null;
    }
    return v.trim() === '' ? null : v.trim().slice(0, MAX_TEXT_FIELD);
  };
  const integer = (key: 'rooms' | 'bedrooms' | 'bathrooms' | 'toilets'): number | null => {
    const v = nullableNumber(value[key], `listing.${key}`, problems);
    return v === null ? null : Math.round(v);
  };
  const floor = value.floor === undefined || value.floor === null ? null : nullableNumber(value.floor, 'listing.floor', problems, -10);
  const currency = value.currency;
  if (currency !== undefined && currency !== 'MAD') problems.add('listing.currency', 'must be MAD (prices are in dirhams)');
  const market =
    isObject(value.market) && typeof value.market.median_price_per_m2_mad === 'number'
      ? (value.market as unknown as Property['market'])
      : null;
  const audience =
    isObject(value.target_buyer) && typeof value.target_buyer.primary === 'string'
      ? (value.target_buyer as unknown as Property['target_buyer'])
      : null;
  const source = isObject(value.source) && typeof value.source.kind === 'string' ? (value.source as unknown as Property['source']) : null;
  // Every text of the listing is drawn or echoed: made safe as a whole (docs/security.md).
  return safeStrings({
    title: title ?? '',
    city: text('city'),
    district: text('district'),
    price_mad: nullableNumber(value.price_mad, 'listing.price_mad', problems),
    currency: 'MAD',
    features: stringList(value.features, 'listing.features', problems),
    marketing_angles: stringList(value.marketing_angles, 'listing.marketing_angles', problems)
      .slice(0, 10)
      .map((a) => a.slice(0, 400)),
    transaction: oneOfOrNull(value.transaction, 'listing.transaction', TRANSACTIONS, problems),
    property_type: oneOfOrNull(value.property_type, 'listing.property_type', PROPERTY_TYPES, problems),
    surface_m2: nullableNumber(value.surface_m2, 'listing.surface_m2', problems),
    surface_total_m2: nullableNumber(value.surface_total_m2, 'listing.surface_total_m2', problems),
    rooms: integer('rooms'),
    bedrooms: integer('bedrooms'),
    bathrooms: integer('bathrooms'),
    toilets: integer('toilets'),
    floor,
    metro_area: text('metro_area'),
    // Offers and provenance describe the analysis, not the video: a listing passed in keeps none.
    offers: [],
    feature_keys: featureKeys,
    price_per_m2_mad: nullableNumber(value.price_per_m2_mad, 'listing.price_per_m2_mad', problems),
    price_original: null,
    market,
    target_buyer: audience ?? {
      primary: 'family',
      segments: [],
      demographics: { household: '', age_range: '', budget_mad: null, financing: '' },
    },
    photos,
    source: source ?? { kind: 'text', portal: null, listing_id: null, url: null },
    language: listingLanguage,
    warnings: [],
    provenance: {},
  });
}

/**
 * Checks a render request from any front door: first its schema (requests.ts, the same check the
 * HTTP route runs), then the rules a schema cannot say (inputs that exclude each other, formats,
 * templates and tracks installed, local paths). Throws one BAD_REQUEST listing every bad field.
 */
export function validateRenderRequest(request: RenderRequest, mode: 'local' | 'server'): ValidRenderRequest {
  if (!isObject(request)) checkInput(RenderRequestSchema, request);
  const schemaProblems = inputProblems(RenderRequestSchema, request);
  const problems = new Problems();
  const body = request as unknown as Json;
  for (const key of Object.keys(body)) {
    if (!REQUEST_FIELDS.has(key)) problems.add(key, `is not a render request field (use ${[...REQUEST_FIELDS].join(', ')})`);
  }

  // Language and audience first: the listing check needs the language.
  let language: Language = 'fr';
  if (body.language !== undefined && body.language !== null && body.language !== '') {
    if (typeof body.language === 'string' && (LANGUAGES as readonly string[]).includes(body.language.toLowerCase()))
      language = body.language.toLowerCase() as Language;
    else problems.add('language', `must be one of ${LANGUAGES.join(', ')}`);
  }
  let audience: AudienceRequest = 'auto';
  if (body.target_audience !== undefined && body.target_audience !== null && body.target_audience !== '') {
    if (typeof body.target_audience === 'string' && (AUDIENCE_CHOICES as readonly string[]).includes(body.target_audience.toLowerCase())) {
      audience = body.target_audience.toLowerCase() as AudienceRequest;
    } else problems.add('target_audience', `must be one of ${AUDIENCE_CHOICES.join(', ')}`);
  }

  // Listing inputs: a listing object alone, or url / html / description (combinable, as in analysis).
  const given = (key: string): boolean => body[key] !== undefined && body[key] !== null && body[key] !== '';
  let url: string | undefined;
  let html: string | undefined;
  let description: string | undefined;
  if (given('url')) {
    if (typeof body.url !== 'string') problems.add('url', 'must be a string');
    else {
      try {
        requireListingUrl(body.url);
        url = body.url.trim();
      } catch (error) {
        if (!isAppError(error)) throw error;
        problems.add('url', error.message);
      }
    }
  }
  if (given('html')) {
    if (typeof body.html !== 'string') problems.add('html', 'must be a string (the saved page)');
    else if (Buffer.byteLength(body.html) > MAX_HTML_BYTES) problems.add('html', `is larger than ${MAX_HTML_BYTES / 1024 / 1024} MB`);
    else html = body.html;
  }
  if (body.description !== undefined && body.description !== null) {
    if (typeof body.description !== 'string') problems.add('description', 'must be a string');
    else if (body.description.trim() === '') problems.add('description', 'is empty: paste the listing text (title and description)');
    else if (body.description.length > MAX_DESCRIPTION_CHARS)
      problems.add('description', `is longer than ${MAX_DESCRIPTION_CHARS} characters`);
    else description = body.description;
  }
  let listing: Property | null = null;
  if (given('listing')) {
    if (given('url') || given('html') || given('description')) {
      problems.add('listing', 'comes alone: give either a listing object or url / html / description to analyse, not both');
    }
    const shape = requestShapeProblems({ listing: body.listing })[0];
    if (shape !== undefined) problems.add(shape.field, shape.message);
    else listing = validateListing(body.listing, language, problems);
  } else if (!given('url') && !given('html') && body.description === undefined) {
    problems.add('url', `${MISSING_LISTING}, or listing (an analysis property)`);
  }

  const photos: string[] = [];
  if (body.photos !== undefined && body.photos !== null) {
    if (!Array.isArray(body.photos)) problems.add('photos', 'must be a list of photo references');
    else if (body.photos.length > MAX_PHOTOS) problems.add('photos', `has ${body.photos.length} entries; at most ${MAX_PHOTOS}`);
    else
      body.photos.forEach((value, i) => {
        const ref = imageRef(value, `photos[${i}]`, mode, problems);
        if (ref !== null) photos.push(ref);
      });
  }

  let template = DEFAULT_TEMPLATE;
  if (given('template')) {
    if (typeof body.template === 'string' && templateExists(body.template.trim())) template = body.template.trim();
    else problems.add('template', `must be one of ${listTemplates().join(', ')}`);
  }

  let format: VideoFormat = 'landscape';
  if (given('format')) {
    if (typeof body.format === 'string' && (VIDEO_FORMATS as readonly string[]).includes(body.format)) format = body.format as VideoFormat;
    else problems.add('format', `must be one of ${VIDEO_FORMATS.join(', ')}`);
  }

  let duration: number | null = null;
  if (body.duration_s !== undefined && body.duration_s !== null) {
    if (
      typeof body.duration_s === 'number' &&
      Number.isFinite(body.duration_s) &&
      body.duration_s >= MIN_DURATION_S &&
      body.duration_s <= MAX_DURATION_S
    ) {
      duration = Math.round(body.duration_s * 1000) / 1000;
    } else problems.add('duration_s', `must be a number of seconds from ${MIN_DURATION_S} to ${MAX_DURATION_S}`);
  }

  let music = 'auto';
  if (given('music')) {
    const names = ['auto', 'none', ...MUSIC_TRACKS.map((t) => t.name)];
    if (typeof body.music !== 'string') problems.add('music', `must be one of ${names.join(', ')}`);
    else {
      const value = body.music.trim();
      if (value === 'auto' || value === 'none' || trackByName(value) !== undefined) music = value;
      else if (mode === 'local' && (value.includes('/') || value.includes('\\') || /\.[a-z0-9]{2,5}$/i.test(value)))
        music = isAbsolute(value) ? value : resolve(value);
      else problems.add('music', `must be one of ${names.join(', ')}, or (CLI only) an audio file path`);
    }
  }

  const branding = validateBranding(body.branding, mode, problems);

  let webhook: string | null = null;
  if (given('webhook_url')) {
    if (typeof body.webhook_url === 'string' && httpUrl(body.webhook_url.trim())) webhook = body.webhook_url.trim();
    else problems.add('webhook_url', 'must be an http(s) URL');
  }

  let metadata: Record<string, unknown> | null = null;
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObject(body.metadata)) problems.add('metadata', 'must be a JSON object');
    else {
      const shape = requestShapeProblems({ metadata: body.metadata })[0];
      if (shape !== undefined) problems.add('metadata', `${shape.message} (at most ${MAX_METADATA_BYTES} bytes)`);
      else metadata = body.metadata;
    }
  }

  // Schema problems first, with the schema's wording (what HTTP answers); the rules below add
  // only fields the schema found nothing wrong with.
  const within = (inner: string, outer: string): boolean =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  const flagged = (field: string): boolean => schemaProblems.some((p) => within(field, p.field) || within(p.field, field));
  const details = [...schemaProblems, ...problems.details.filter((d) => !flagged(d.field))];
  // A render that cannot succeed is refused now, not accepted, billed and failed later: a text
  // has no photos, and without a page (url or html) there is nowhere to take them from. Checked
  // once the request is otherwise valid, so that it never hides what else is wrong.
  if (details.length === 0 && photos.length === 0) {
    if (listing !== null && listing.photos.length === 0) {
      details.push({ field: 'photos', message: 'give photos: the listing object has none (listing.photos is empty)' });
    } else if (
      listing === null &&
      url === undefined &&
      html === undefined &&
      description !== undefined &&
      portalLink(description) === null
    ) {
      details.push({
        field: 'photos',
        message: 'give photos: a description has none, and there is no listing page (url or html) to take them from',
      });
    }
  }
  if (details.length > 0) throw invalidInput('render request', details);
  return {
    input: {
      ...(url === undefined ? {} : { url }),
      ...(html === undefined ? {} : { html }),
      ...(description === undefined ? {} : { description }),
      language,
      target_audience: audience,
    },
    listing,
    photos,
    template,
    format,
    duration_s: duration,
    language,
    music,
    branding,
    webhook_url: webhook,
    metadata,
  };
}
