import type { FeatureKey, PropertyType } from '../../core/types.js';
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
import { FlightData } from './flight.js';
import { findInTree, labelledValues, vocabulary, type Page } from './html.js';
import { cityName, districtName } from './portal-places.js';
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

/**
 * Yakeey (yakeey.com/fr-ma). A Next.js app-router page: the property object travels in the
 * flight payload (`self.__next_f`), with typed fields and a boolean amenity map. The rendered
 * DOM carries the same facts as label/value pairs ("Nb. de chambres", "Surface habitable"),
 * used to tell living from total surface and as the fallback.
 */

/** Listing references look like CA002544: two letters, six digits (docs/portals.md). */
const REFERENCE = /(?:^|-)([A-Za-z]{2}\d{5,8})$/;

function recognize(url: URL): UrlVerdict {
  const segments = pathSegments(url);
  const offset = segments.length > 0 && /^[a-z]{2}(-[a-z]{2})?$/i.test(segments[0]) ? 1 : 0;
  const rest = segments.slice(offset);
  const last = rest[rest.length - 1] ?? '';
  const reference = REFERENCE.exec(last)?.[1];
  const detailRoute = rest.some((s) => /^property-details?$/i.test(s));
  const listingSlug = /^(acheter|louer|buy|rent|achat|location)-/i.test(last);
  if (reference !== undefined && (listingSlug || detailRoute || rest.length === 1)) {
    const hint = transactionFromWords(last.split('-')[0]) ?? transactionFromWords(rest.join(' '));
    return { kind: 'listing', portal: 'yakeey', listingId: reference.toUpperCase(), url: url.toString(), transactionHint: hint };
  }
  if (rest.length === 0) return { kind: 'not_listing', portal: 'yakeey', what: 'the home page' };
  if (/^(achat|location|louer|acheter|buy|rent)$/i.test(rest[0]))
    return { kind: 'not_listing', portal: 'yakeey', what: 'a search results page' };
  if (rest.some((s) => /neuf|programme|project/i.test(s)))
    return { kind: 'not_listing', portal: 'yakeey', what: 'a new-build programme page' };
  return { kind: 'not_listing', portal: 'yakeey', what: 'not a listing page' };
}

const TYPES: Record<string, PropertyType> = {
  APARTMENT: 'apartment',
  FLAT: 'apartment',
  STUDIO: 'studio',
  DUPLEX: 'duplex',
  PENTHOUSE: 'penthouse',
  VILLA: 'villa',
  HOUSE: 'house',
  RIAD: 'riad',
  LAND: 'land',
  PLOT: 'land',
  OFFICE: 'office',
  COMMERCIAL: 'commercial',
  SHOP: 'commercial',
  STORE: 'commercial',
  FARM: 'farm',
  BUILDING: 'building',
};

/** The amenity map of a Yakeey property (`features`): any true flag of a group gives the key. */
const FLAGS: [FeatureKey, string[]][] = [
  ['elevator', ['elevator']],
  ['balcony', ['balcony']],
  ['terrace', ['terrace']],
  ['garden', ['garden', 'privateGarden']],
  ['pool', ['pool', 'privateSwimmingPool']],
  ['parking', ['undergroundParking', 'outdoorParking', 'box']],
  ['garage', ['garage']],
  ['concierge', ['concierge', 'janitor']],
  ['security', ['securityAgent', 'videoSurveillance']],
  ['gated_community', ['gatedCommunity']],
  ['air_conditioning', ['splitAirConditioning', 'centralizedAirConditioning', 'airConditioning']],
  ['heating', ['splitHeating', 'centralizedHeating', 'heating']],
  ['fireplace', ['fireplace']],
  ['storage', ['storageSpace', 'basement']],
  ['equipped_kitchen', ['equippedKitchen']],
  ['furnished', ['furniture']],
];

const DOM_LABELS = vocabulary({
  bedrooms: ['nb. de chambres', 'nombre de chambres', 'chambres', 'bedrooms', 'عدد غرف النوم'],
  rooms: ['nb. de pieces', 'nombre de pieces'],
  bathrooms: ['nb. de salles de bains', 'salles de bains', 'bathrooms', 'عدد الحمامات'],
  floor: ['etage du bien', 'etage', 'floor', 'الطابق'],
  total: ['surface totale', 'total area', 'المساحة الإجمالية'],
  living: ['surface habitable', 'living area', 'المساحة الصالحة للسكن'],
});

function findProperty(flight: FlightData | null): Record<string, unknown> | null {
  if (flight === null) return null;
  for (const row of flight.values()) {
    const found = findInTree(row, (node) => typeof node.userRef === 'string' && ('transactionType' in node || 'globalPrice' in node));
    if (found !== null) return record(flight.resolve(found));
  }
  return null;
}

function parse(page: Page, listing: Extract<UrlVerdict, { kind: 'listing' }> | null, options: ParseOptions): PageParse {
  const facts = emptyFacts();
  const privateStrings: string[] = [];
  const property = findProperty(FlightData.fromPage(page));
  const p = property ?? {};
  const $ = page.dom();
  const values = labelledValues($, DOM_LABELS);
  const h1 = tidy($('h1').first().text());

  facts.title = h1 || (page.meta('og:title') ?? page.title() ?? '').replace(/(?<!\s)\s+-\s[\d\s\u00a0\u202f.,]+(DH|MAD)\s*$/i, '') || null;
  const documentTitle = page.title() ?? '';
  facts.transaction =
    (fold(str(p.transactionType) ?? '') === 'sale' ? 'sale' : fold(str(p.transactionType) ?? '') === 'rent' ? 'rent' : null) ??
    listing?.transactionHint ??
    transactionFromWords(facts.title) ??
    transactionFromWords(documentTitle);
  facts.property_type =
    TYPES[(str(p.type) ?? '').toUpperCase()] ??
    TYPES[(str(p.category) ?? '').toUpperCase()] ??
    propertyTypeFromWords(facts.title) ??
    propertyTypeFromWords(documentTitle);

  // Price: the property's own price, never the fee lines listed after it on the page.
  const hidden = p.isPricePrivate === true;
  const amount = hidden ? null : parseAmount(p.globalPrice ?? record(p.priceDetails).salePrice ?? null);
  if (amount !== null) Object.assign(facts, priceInMad(amount, parseCurrency(str(p.currency)) ?? 'MAD', options.eurToMad));
  else if (property === null) {
    const fromTitle = /-([\d\s\u00a0\u202f.,]*[\d.,])\s*(DH|MAD|€)\s*$/i.exec(documentTitle);
    if (fromTitle) Object.assign(facts, priceInMad(parseAmount(fromTitle[1]), parseCurrency(fromTitle[2]), options.eurToMad));
  }

  // Surfaces: "de 127 m² dont 109 m² habitables" — the DOM labels tell living from total.
  const livingInTitle = /dont\s([\d\s.,]*\d)\s*m²?\s*habitables?/i.exec(h1)?.[1];
  facts.surface_total_m2 = parseSurface(values.get('total')) ?? parseSurface(p.area) ?? parseSurface(p.builtArea);
  facts.surface_m2 =
    parseSurface(values.get('living')) ??
    parseSurface(livingInTitle) ??
    parseSurface(p.livingArea ?? p.habitableArea) ??
    parseSurface(p.listingArea) ??
    facts.surface_total_m2;

  // "rooms" holds the bedroom count on Yakeey (the page labels it "Nb. de chambres").
  facts.bedrooms = parseCount(values.get('bedrooms')) ?? parseCount(p.bedrooms) ?? parseCount(p.rooms);
  facts.rooms = parseCount(values.get('rooms')) ?? (p.bedrooms !== undefined ? parseCount(p.rooms) : null);
  facts.bathrooms = parseCount(p.bathrooms) ?? parseCount(values.get('bathrooms'));
  facts.floor = parseFloor(p.floor ?? values.get('floor') ?? null);

  const address = record(p.mainInternalAddress ?? list(p.internalAddresses)[0]);
  facts.city = cityName(str(p.mainCity) ?? str(address.city) ?? str(p.city));
  facts.district = districtName(
    str(address.neighborhood) ?? str(p.mainNeighborhood) ?? str(p.neighborhood) ?? str(p.mainAddress),
    facts.city,
  );

  const flags = record(p.features);
  for (const [key, names] of FLAGS) if (names.some((name) => flags[name] === true)) addFeatures(facts.feature_keys, key);
  if (p.furnished === true) addFeatures(facts.feature_keys, 'furnished');
  if (p.closedResidence === true) addFeatures(facts.feature_keys, 'gated_community');
  if (/sea|mer/i.test(str(p.view) ?? '')) addFeatures(facts.feature_keys, 'sea_view');
  if (property === null) {
    // Fallback: the "Caractéristiques du bien" section lists amenity labels.
    $('h2')
      .filter((_, h) => /caract[eé]ristiques|features|المميزات/i.test($(h).text()))
      .first()
      .parent()
      .parent()
      .find('p, span')
      .each((_, e) => {
        addFeatures(facts.feature_keys, featureFromLabel(tidy($(e).text())));
      });
  }

  // Photos in gallery order (the main photo first), full-size originals.
  const photos = list(p.photos)
    .map(record)
    .sort((a, b) => Number(b.main === true) - Number(a.main === true) || Number(a.order ?? 0) - Number(b.order ?? 0))
    .map((photo) => photo.originUrl ?? photo.url);
  facts.photos = photoList(photos.length > 0 ? photos : page.metaAll('og:image'), null);

  for (const agent of [record(p.agent), record(p.managementDto)]) {
    addPrivate(
      privateStrings,
      agent.fullName,
      agent.firstName && agent.lastName ? `${String(agent.firstName)} ${String(agent.lastName)}` : null,
      agent.phoneNumber,
      agent.email,
    );
  }

  const description = str(p.description) ?? page.meta('description');
  const canonicalUrl = page.link('canonical');
  const idFromPage = str(p.userRef) ?? (canonicalUrl ? (REFERENCE.exec(canonicalUrl)?.[1] ?? null) : null);
  return { facts, listingId: idFromPage, canonicalUrl, descriptionText: description, privateStrings };
}

export const yakeey: PortalAdapter = {
  name: 'yakeey',
  label: 'Yakeey',
  domain: 'yakeey.com',
  ownsHost: (host) => host === 'yakeey.com' || host === 'yakeey.ma',
  recognize,
  paceMs: 1000,
  sniff: (page) => /yakeey\.com/i.test(page.link('canonical') ?? '') || page.html.includes('media.yakeey.com'),
  parse,
};
