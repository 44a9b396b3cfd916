import type { ListingFacts, PropertyType, Warning } from '../../core/types.js';
import { emptyFacts } from '../facts.js';
import {
  addPrivate,
  list,
  pathSegments,
  photoList,
  record,
  str,
  type PageParse,
  type ParseOptions,
  type PortalAdapter,
  type UrlVerdict,
} from './adapter.js';
import { addFeatures, featureFromLabel } from './amenity-labels.js';
import { findInTree, htmlToText, isRecord, labelledValues, parseLooseJson, vocabulary, type Page } from './html.js';
import { cityName, districtName, splitLocation } from './portal-places.js';
import {
  fold,
  parseAmount,
  parseCount,
  parseCurrency,
  parseFloor,
  parseSurface,
  priceInMad,
  propertyTypeFromWords,
  tidy,
  transactionFromWords,
} from './values.js';
import { sayer, type Say } from '../say.js';

/**
 * Sarouty (sarouty.ma). The site was rebuilt on WordPress and renders listings in the browser
 * from a public JSON API (docs/portals.md), so a listing is fetched from
 * `https://b2c-be-prod.api.sarouty.ma/api/properties/{id}` and its JSON read directly. A page
 * saved from the browser is read from any embedded API object, then JSON-LD, then the DOM.
 * No real Sarouty sample exists: the field names are those of three independent API clients.
 */

export const SAROUTY_API = 'https://b2c-be-prod.api.sarouty.ma/api/properties/';

function recognize(url: URL): UrlVerdict {
  const host = url.hostname.toLowerCase();
  const segments = pathSegments(url);
  const apiId = /^\/api\/properties\/(\d{3,10})\/?$/.exec(url.pathname)?.[1];
  if (host.endsWith('api.sarouty.ma')) {
    if (apiId !== undefined) return { kind: 'listing', portal: 'sarouty', listingId: apiId, url: url.toString(), transactionHint: null };
    return { kind: 'not_listing', portal: 'sarouty', what: 'an API address that is not one property' };
  }
  const hint = transactionFromWords(segments.slice(0, 3).join(' '));
  const queryId = url.searchParams.get('listing_id');
  if (queryId !== null && /^\d{3,10}$/.test(queryId)) {
    return { kind: 'listing', portal: 'sarouty', listingId: queryId, url: url.toString(), transactionHint: hint };
  }
  const last = segments[segments.length - 1] ?? '';
  const id = /-(\d{5,10})(?:\.html?)?$/.exec(last)?.[1] ?? (segments.at(-2) === 'property' && /^\d{3,10}$/.test(last) ? last : undefined);
  if (id !== undefined) return { kind: 'listing', portal: 'sarouty', listingId: id, url: url.toString(), transactionHint: hint };
  const folded = segments.map((s) => fold(s));
  if (segments.length === 0 || (segments.length === 1 && /^[a-z]{2}$/.test(folded[0])))
    return { kind: 'not_listing', portal: 'sarouty', what: 'the home page' };
  if (folded.some((s) => /agence|agency|agent/.test(s))) return { kind: 'not_listing', portal: 'sarouty', what: 'an agency page' };
  if (folded.some((s) => /recherche|search/.test(s)) || url.search !== '')
    return { kind: 'not_listing', portal: 'sarouty', what: 'a search results page' };
  return { kind: 'not_listing', portal: 'sarouty', what: 'a category page' };
}

const TYPE_KEYS: Record<string, PropertyType> = {
  apartment: 'apartment',
  appartement: 'apartment',
  flat: 'apartment',
  villa: 'villa',
  house: 'house',
  maison: 'house',
  riad: 'riad',
  studio: 'studio',
  duplex: 'duplex',
  penthouse: 'penthouse',
  land: 'land',
  terrain: 'land',
  office: 'office',
  bureau: 'office',
  shop: 'commercial',
  commercial: 'commercial',
  farm: 'farm',
  building: 'building',
};

/** Prefers the French text, then English, then Arabic (the site's default is French). */
function localized(data: Record<string, unknown>, base: string): string | null {
  return str(data[`${base}_fr`]) ?? str(data[`${base}_en`]) ?? str(data[`${base}_ar`]) ?? str(data[base]);
}

function isApiProperty(node: Record<string, unknown>): boolean {
  return (
    'property_id' in node && ('property_title_fr' in node || 'property_title_en' in node || 'property_price' in node || 'price' in node)
  );
}

/** The property object of an API response: `{data: {...}}`, `{data: {data: {...}}}` or bare. */
export function apiProperty(json: unknown): Record<string, unknown> | null {
  return findInTree(json, isApiProperty, 4);
}

function fromApi(data: Record<string, unknown>, facts: ListingFacts, privateStrings: string[], options: ParseOptions): string | null {
  const { eurToMad } = options;
  facts.title = localized(data, 'property_title');
  const priceBlock = record(data.price);
  const period = fold(str(priceBlock.price_type) ?? str(data.property_price_type) ?? '');
  const category = fold(str(data.property_category_key) ?? str(data.property_category) ?? str(data.transaction_type) ?? '');
  facts.transaction =
    /rent|louer|location/.test(category) || /month|mensuel|year|annuel|week|day|jour/.test(period)
      ? 'rent'
      : /sale|sell|buy|vente|achat/.test(category)
        ? 'sale'
        : transactionFromWords(str(data.property_type_sale_name_en) ?? facts.title);

  const amount = parseAmount(data.property_price ?? priceBlock.price ?? (typeof data.price === 'number' ? data.price : null));
  Object.assign(facts, priceInMad(amount, parseCurrency(str(data.property_currency) ?? str(priceBlock.currency)) ?? 'MAD', eurToMad));
  if (facts.price_mad !== null && /year|annuel/.test(period)) {
    // Facts hold a monthly rent.
    facts.price_mad = Math.round(facts.price_mad / 12);
    facts.warnings.push(yearlyRentWarning(sayer(options.language)));
  }

  const typeKey = fold(str(data.property_housing_type) ?? str(data.property_type) ?? '');
  facts.property_type =
    TYPE_KEYS[typeKey] ??
    propertyTypeFromWords(typeKey) ??
    propertyTypeFromWords(str(data.property_type_sale_name_en)) ??
    propertyTypeFromWords(facts.title);
  // property_sqft: despite the name, the three API clients read it as m² (docs/portals.md).
  facts.surface_m2 = parseSurface(data.property_living_area ?? data.property_sqft ?? data.property_area);
  facts.surface_total_m2 = parseSurface(data.property_land_area ?? data.property_total_area);
  facts.bedrooms = parseCount(data.total_bedroom ?? data.property_bedrooms);
  facts.bathrooms = parseCount(data.total_bathroom ?? data.property_bathrooms);
  facts.rooms = parseCount(data.total_rooms ?? data.property_rooms);
  facts.floor = parseFloor(data.property_floor ?? null);

  const location = record(data.location);
  const citySlug = str(location.url_city_slug) ?? str(data.location_url_slug) ?? str(data.city_slug);
  facts.city = cityName(str(location.city_name) ?? str(data.city_name) ?? citySlug);
  facts.district = districtName(str(location.name_primary) ?? str(data.location_name), facts.city);

  if (/^(yes|oui|true|1)$/i.test(String(data.property_furnished ?? ''))) addFeatures(facts.feature_keys, 'furnished');
  for (const amenity of list(data.amenities ?? data.property_amenities ?? data.features)) {
    const label = isRecord(amenity)
      ? (str(amenity.name_fr) ?? str(amenity.name_en) ?? str(amenity.name) ?? str(amenity.label))
      : str(amenity);
    if (label !== null) addFeatures(facts.feature_keys, featureFromLabel(label));
  }

  facts.photos = photoList(
    list(data.images ?? data.property_images).map((image) =>
      isRecord(image) ? (image.property_image_url ?? image.url ?? image.original) : image,
    ),
    null,
  );

  const agentUser = record(data.agent_user);
  const agentCompany = record(data.agent_company);
  addPrivate(
    privateStrings,
    data.agent_broker_name,
    agentUser.agent_user_name,
    agentUser.agent_user_phone,
    agentUser.agent_user_whatsapp_phone,
    agentUser.agent_user_email,
    agentCompany.agent_company_name,
    agentCompany.agent_company_phone,
    agentCompany.agent_company_phone2,
    agentCompany.agent_company_email,
  );
  const text = localized(data, 'property_text');
  return text === null ? null : htmlToText(text);
}

/** RENT_PERIOD_CONVERTED, about the price, in the request's language. */
function yearlyRentWarning(say: Say): Warning {
  return {
    code: 'RENT_PERIOD_CONVERTED',
    field: 'price',
    message: say({
      en: 'The rent is stated per year; it was divided by 12 to give a monthly rent.',
      fr: 'Le loyer est indiqué à l’année ; il a été divisé par 12 pour donner un loyer mensuel.',
      ar: 'الكراء مذكور سنويا؛ قُسم على 12 لإعطاء كراء شهري.',
    }),
  };
}

const DOM_LABELS = vocabulary({
  living: ['surface habitable', 'surface', 'superficie', 'area', 'size', 'المساحة'],
  bedrooms: ['chambres', 'bedrooms', 'غرف النوم'],
  bathrooms: ['salles de bain', 'salle de bain', 'bathrooms', 'الحمامات'],
  floor: ['etage', 'floor', 'الطابق'],
  type: ['type de bien', 'type', 'property type', 'نوع العقار'],
  location: ['localisation', 'location', 'adresse', 'quartier', 'الموقع'],
});

/** A page saved from the browser: JSON-LD, og: tags and label/value pairs. */
function fromHtml(page: Page, facts: ListingFacts, privateStrings: string[], eurToMad: number): string | null {
  const ld = page
    .jsonLd()
    .find((o) =>
      list(o['@type']).some((t) => ['RealEstateListing', 'Product', 'Offer', 'Residence', 'Apartment', 'House'].includes(String(t))),
    );
  const offer = record(list(ld?.offers)[0] ?? (ld !== undefined && list(ld['@type']).includes('Offer') ? ld : undefined));
  const $ = page.dom();
  const values = labelledValues($, DOM_LABELS);

  facts.title = str(ld?.name) ?? (tidy($('h1').first().text()) || null) ?? page.meta('og:title');
  Object.assign(facts, priceInMad(parseAmount(offer.price ?? null), parseCurrency(str(offer.priceCurrency)) ?? 'MAD', eurToMad));
  if (facts.price_mad === null && facts.price_original === null) {
    $('[data-testid*="price" i], [class*="price" i]').each((_, element) => {
      const text = tidy($(element).text());
      if (text.length > 0 && text.length < 40 && /\d/.test(text)) {
        Object.assign(facts, priceInMad(parseAmount(text), parseCurrency(text) ?? 'MAD', eurToMad));
        if (/mois|month|monthly|\/\s*m/i.test(text)) facts.transaction = 'rent';
        return false;
      }
      return;
    });
  }
  const item = record(ld?.itemOffered ?? ld);
  facts.surface_m2 = parseSurface(record(item.floorSize).value) ?? parseSurface(values.get('living'));
  facts.bedrooms = parseCount(item.numberOfBedrooms) ?? parseCount(values.get('bedrooms'));
  facts.bathrooms = parseCount(item.numberOfBathroomsTotal) ?? parseCount(values.get('bathrooms'));
  facts.rooms = parseCount(item.numberOfRooms);
  facts.floor = parseFloor(values.get('floor') ?? null);
  facts.property_type = propertyTypeFromWords(values.get('type')) ?? propertyTypeFromWords(facts.title);
  facts.transaction ??= transactionFromWords(facts.title) ?? transactionFromWords(page.meta('og:title'));

  const address = record(item.address ?? ld?.address);
  const located = splitLocation(values.get('location') ?? null);
  facts.city = cityName(str(address.addressLocality)) ?? located.city;
  facts.district = districtName(str(address.addressNeighborhood) ?? located.district, facts.city);

  $('[class*="amenit" i] li, [class*="feature" i] li, [class*="amenit" i] span').each((_, element) => {
    addFeatures(facts.feature_keys, featureFromLabel(tidy($(element).text())));
  });
  facts.photos = photoList([...list(ld?.image).map((i) => (isRecord(i) ? i.url : i)), ...page.metaAll('og:image')], page.link('canonical'));
  addPrivate(
    privateStrings,
    ...$('[class*="agent-name" i], [class*="agency-name" i], a[href*="trouver-une-agence"]')
      .map((_, e) => tidy($(e).text()))
      .get(),
  );
  return str(ld?.description) ?? page.meta('og:description') ?? page.meta('description');
}

/** Objects of the API embedded in a saved page (inline JSON, or window.__X = {...}). */
function embeddedApiProperty(page: Page): Record<string, unknown> | null {
  for (const script of page.scripts()) {
    if (!script.content.includes('property_id')) continue;
    const start = script.content.indexOf('{');
    const found = start < 0 ? null : apiProperty(parseLooseJson(script.content.slice(start).replace(/;\s*$/, '')));
    if (found !== null) return found;
  }
  return null;
}

function parse(page: Page, listing: Extract<UrlVerdict, { kind: 'listing' }> | null, options: ParseOptions): PageParse {
  const facts = emptyFacts();
  const privateStrings: string[] = [];
  const trimmed = page.html.trimStart();
  const api = trimmed.startsWith('{') || trimmed.startsWith('[') ? apiProperty(parseLooseJson(trimmed)) : embeddedApiProperty(page);
  const description = api !== null ? fromApi(api, facts, privateStrings, options) : fromHtml(page, facts, privateStrings, options.eurToMad);
  facts.transaction ??= listing?.transactionHint ?? null;
  const id = str(api?.property_id);
  const canonicalUrl = api !== null ? null : page.link('canonical');
  return { facts, listingId: id, canonicalUrl, descriptionText: description, privateStrings };
}

export const sarouty: PortalAdapter = {
  name: 'sarouty',
  label: 'Sarouty',
  domain: 'sarouty.ma',
  ownsHost: (host) => host === 'sarouty.ma' || host.endsWith('.api.sarouty.ma'),
  recognize,
  // robots.txt asks for "Crawl-delay: 10" (docs/portals.md).
  paceMs: 10_000,
  fetchPlan: (listing) => [
    { url: `${SAROUTY_API}${listing.listingId}`, accept: 'json' },
    ...(new URL(listing.url).hostname.endsWith('api.sarouty.ma') ? [] : [{ url: listing.url, accept: 'html' as const }]),
  ],
  isRemovedPage: (page) => /Property not available|property you're looking for isn't available|bien n'est plus disponible/i.test(page.html),
  sniff: (page) =>
    /sarouty\.ma/i.test(page.link('canonical') ?? page.meta('og:url') ?? '') ||
    apiProperty(parseLooseJson(page.html.trimStart().startsWith('{') ? page.html : 'null')) !== null,
  parse,
};
