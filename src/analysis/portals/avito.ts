import { badRequest } from '../../core/errors.js';
import type { FeatureKey, ListingFacts, PropertyType, Transaction } from '../../core/types.js';
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
import { findInTree, isTextLeaf, labelledValues, vocabulary, type Page } from './html.js';
import { cityName, districtName, splitAtWord } from './portal-places.js';
import {
  fold,
  isPriceOnRequest,
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
 * Avito (avito.ma), real-estate categories. Everything sits in the Next.js `__NEXT_DATA__`
 * script (docs/portals.md): the ad object with typed params. The visible DOM uses hashed
 * class names that change between deployments, so the fallback reads only stable hooks
 * (og: tags, h1, label/value pairs).
 */

function recognize(url: URL): UrlVerdict {
  const host = url.hostname.toLowerCase();
  if (host.startsWith('immoneuf.')) {
    return {
      kind: 'not_listing',
      portal: 'avito',
      what: 'an Avito Immoneuf new-build page (hosted on another site, without listing data)',
    };
  }
  const mobileId = url.searchParams.get('id') ?? url.searchParams.get('ad_id');
  if (/^\/(ad|vi)\/?$/.test(url.pathname) && mobileId !== null && /^\d{5,12}$/.test(mobileId)) {
    return { kind: 'listing', portal: 'avito', listingId: mobileId, url: url.toString(), transactionHint: null };
  }
  const segments = pathSegments(url);
  const last = segments[segments.length - 1] ?? '';
  const id = /[_-](\d{5,12})\.html?$/.exec(last)?.[1] ?? /^(\d{5,12})\.html?$/.exec(last)?.[1];
  if (id !== undefined) {
    // The slug before the id is the advertiser's title: it may say "à louer" / "à vendre".
    return { kind: 'listing', portal: 'avito', listingId: id, url: url.toString(), transactionHint: transactionFromWords(last) };
  }
  if (segments.length <= 1) return { kind: 'not_listing', portal: 'avito', what: 'the home page' };
  if (segments.some((s) => /^(boutique|boutiques|store|shop)$/i.test(s)))
    return { kind: 'not_listing', portal: 'avito', what: 'a shop (agency) page' };
  return { kind: 'not_listing', portal: 'avito', what: 'a search or category page' };
}

/** Param keys of `params.extra` (docs/portals.md), then labels for keys we do not know. */
const EXTRA_KEYS: Record<string, FeatureKey> = {
  elevator: 'elevator',
  balcony: 'balcony',
  parking: 'parking',
  garage: 'garage',
  security: 'security',
  heater: 'heating',
  heating: 'heating',
  airconditioner: 'air_conditioning',
  air_conditioner: 'air_conditioning',
  furnished_kitchen: 'equipped_kitchen',
  equipped_kitchen: 'equipped_kitchen',
  terrace: 'terrace',
  janitor: 'concierge',
  concierge: 'concierge',
  duplex: 'duplex',
  furnished: 'furnished',
  garden: 'garden',
  pool: 'pool',
  swimming_pool: 'pool',
  sea_view: 'sea_view',
  fireplace: 'fireplace',
};

/** Category tracking values of listing URLs (Nov 2025 dataset) and their property type. */
function typeFromCategory(category: Record<string, unknown>, title: string | null): PropertyType | null {
  const key = fold(str(category.trackingValue) ?? str(category.trackingName) ?? str(category.slug) ?? str(category.name) ?? '').replace(
    /[\s-]+/g,
    '_',
  );
  const titleType = propertyTypeFromWords(title);
  if (key.startsWith('appartement')) return 'apartment';
  if (key.startsWith('maison')) return 'house';
  if (key.startsWith('villas_et_riads')) return titleType === 'riad' ? 'riad' : 'villa';
  if (key.startsWith('terrains_et_fermes')) return titleType === 'farm' ? 'farm' : 'land';
  if (key.startsWith('bureau')) return 'office';
  if (key.startsWith('local') || key.startsWith('magasin') || key.startsWith('commerce')) return 'commercial';
  if (key.startsWith('autre')) return titleType;
  return propertyTypeFromWords(str(category.name)) ?? titleType;
}

function transactionOf(ad: Record<string, unknown>, category: Record<string, unknown>): Transaction | null {
  const type = record(ad.type);
  const key = fold(str(type.key) ?? '');
  const parent = record(category.parent);
  return (
    transactionFromWords(str(type.label)) ??
    (['s', 'sell', 'sale'].includes(key) ? 'sale' : ['k', 'l', 'u', 'let', 'rent', 'rental'].includes(key) ? 'rent' : null) ??
    transactionFromWords(str(parent.name)) ??
    transactionFromWords(str(category.slug)) ??
    transactionFromWords(str(ad.vertical))
  );
}

function isRealEstate(ad: Record<string, unknown>, category: Record<string, unknown>): boolean {
  const names: string[] = [str(ad.vertical) ?? '', ...list(category.parentsNames).map((n) => str(n) ?? '')];
  for (let node = record(category.parent), depth = 0; depth < 4 && Object.keys(node).length > 0; node = record(node.parent), depth += 1) {
    names.push(str(node.name) ?? '', str(node.slug) ?? '');
  }
  const text = fold(names.join(' '));
  // No category at all: nothing to refuse on (the structure may have moved).
  if (text.trim() === '') return true;
  return /immobili|real estate|عقار/.test(text);
}

function paramsOf(ad: Record<string, unknown>): Record<string, unknown>[] {
  const params = record(ad.params);
  return [...list(params.primary), ...list(params.secondary), ...list(params.extra)].map(record);
}

function fromNextData(ad: Record<string, unknown>, facts: ListingFacts, privateStrings: string[], eurToMad: number): string | null {
  const category = record(ad.category);
  if (!isRealEstate(ad, category)) {
    throw badRequest(
      `This Avito listing is in "${str(category.name) ?? 'another category'}", not in real estate. immoreel analyzes property listings only.`,
      {
        reason: 'unsupported_url',
        details: [{ field: 'url', message: 'not a real-estate listing' }],
      },
    );
  }
  facts.title = str(ad.subject);
  facts.transaction = transactionOf(ad, category);
  facts.property_type = typeFromCategory(category, facts.title);

  const price = record(ad.price);
  Object.assign(facts, priceInMad(parseAmount(price.value), parseCurrency(str(price.currency)) ?? 'MAD', eurToMad));

  let living: number | null = null;
  let total: number | null = null;
  const extra = new Set(list(record(ad.params).extra).map((p) => record(p)));
  for (const param of paramsOf(ad)) {
    const key = fold(str(param.key) ?? '');
    const value = param.value;
    if (extra.has(param)) {
      if (value === undefined || value === null || value === '0' || value === 0 || value === false) continue;
      addFeatures(facts.feature_keys, EXTRA_KEYS[key] ?? featureFromLabel(str(param.label) ?? ''));
      continue;
    }
    if (key === 'habitable_size') living = parseSurface(value);
    else if (key === 'size') total = parseSurface(value);
    else if (key === 'rooms')
      facts.bedrooms = parseCount(value); // "Chambres": bedrooms on Avito
    else if (key === 'bathrooms') facts.bathrooms = parseCount(value);
    else if (key === 'floor') facts.floor = parseFloor(value);
    else if (key === 'furnished' && String(value) === '1') addFeatures(facts.feature_keys, 'furnished');
  }
  facts.surface_m2 = living ?? total;
  facts.surface_total_m2 = total;

  const location = record(ad.location);
  facts.city = cityName(str(record(location.city).name));
  // The area is Avito's sector ("2 Mars", "Skikina"), or a placeholder ("Toute la ville").
  facts.district = districtName(str(record(location.area).name), facts.city);

  facts.photos = photoList(
    list(ad.images).map((image) => {
      const paths = record(record(image).paths);
      return paths.fullHd ?? paths.standard ?? record(image).url ?? image;
    }),
    null,
  );

  const seller = record(ad.seller);
  addPrivate(privateStrings, ad.phone, seller.name, seller.phone, seller.email, seller.website);
  return str(ad.description);
}

const DOM_LABELS = vocabulary({
  living: ['surface habitable', 'المساحة الصالحة للسكن'],
  total: ['surface totale', 'superficie', 'surface', 'المساحة الإجمالية', 'المساحة'],
  bedrooms: ['chambres', 'chambre', 'nombre de chambres', 'غرف النوم', 'عدد الغرف'],
  bathrooms: ['salle de bain', 'salles de bain', 'salles de bains', 'حمامات', 'الحمامات'],
  floor: ['etage', 'الطابق'],
  sector: ['secteur', 'quartier', 'الحي'],
  city: ['ville', 'المدينة'],
  type: ['type', 'النوع'],
});

/** Fallback for a page without `__NEXT_DATA__`: stable hooks only (og: tags, h1, label/value pairs). */
function fromDom(page: Page, facts: ListingFacts, privateStrings: string[], eurToMad: number): string | null {
  const $ = page.dom();
  // og:title = "{title} | {Category} à {City} | Avito.ma"
  const ogParts = (page.meta('og:title') ?? '').split(' | ').map(tidy);
  facts.title = tidy($('h1').first().text()) || ogParts[0] || null;
  const categoryPart = ogParts.length >= 3 ? ogParts[1] : '';
  const categoryMatch = splitAtWord(categoryPart, /(?<!\s)\s+(?:à|a|في)\s+/gu);

  const values = labelledValues($, DOM_LABELS);
  facts.surface_total_m2 = parseSurface(values.get('total'));
  facts.surface_m2 = parseSurface(values.get('living')) ?? facts.surface_total_m2;
  facts.bedrooms = parseCount(values.get('bedrooms'));
  facts.bathrooms = parseCount(values.get('bathrooms'));
  facts.floor = parseFloor(values.get('floor') ?? null);
  facts.city = cityName(values.get('city') ?? categoryMatch?.[1] ?? null);
  facts.district = districtName(values.get('sector') ?? null, facts.city);
  const typeText = values.get('type') ?? '';
  const categoryName = categoryMatch?.[0] ?? typeText.split(',')[0];
  facts.property_type = categoryName ? typeFromCategory({ name: categoryName }, facts.title) : propertyTypeFromWords(facts.title);
  facts.transaction = transactionFromWords(typeText) ?? transactionFromWords(facts.title) ?? transactionFromWords(categoryPart);

  // The price is a short leaf "1 950 000 DH"; "Prix non spécifié" means none.
  $('h1')
    .first()
    .parent()
    .find('*')
    .add($('[data-testid*="price" i], [class*="price" i]'))
    .each((_, element) => {
      if (facts.price_mad !== null || facts.price_original !== null) return false;
      const text = tidy($(element).text());
      if (text.length > 40) return;
      if (isPriceOnRequest(text)) return false;
      if (/^\d[\d\s.,]*(dh|dhs|mad|€|eur)$/i.test(text)) Object.assign(facts, priceInMad(parseAmount(text), parseCurrency(text), eurToMad));
      return;
    });

  // Amenities: leaves whose whole text is an amenity label, outside navigation.
  $('li, span, p, div').each((_, element) => {
    if (!isTextLeaf(element)) return;
    const text = tidy($(element).text());
    if (text.length > 30 || $(element).closest('nav, header, footer, a, button').length > 0) return;
    addFeatures(facts.feature_keys, featureFromLabel(text));
  });

  facts.photos = photoList(
    page.metaAll('og:image').map((src) => src.replace(/([?&]t=)(?:images|card|thumb\w*)\b/, '$1full_hd')),
    page.link('canonical'),
  );
  addPrivate(
    privateStrings,
    ...$('[data-testid="SellerName"]')
      .map((_, e) => tidy($(e).text()))
      .get(),
  );
  const description = page.meta('og:description') ?? page.meta('description');
  return description === null ? null : description.replace(/(?<!\s)\s*Voir plus\s*$/i, '');
}

function findAd(page: Page): Record<string, unknown> | null {
  const data = page.nextData();
  if (data === null) return null;
  const props = record(record(record(record(data).props).pageProps).componentProps);
  const direct = record(record(props.adInfo).ad);
  if (typeof direct.subject === 'string') return direct;
  // The ad moved inside the props (or only the Apollo cache copy is left): find it by its shape.
  return findInTree(
    data,
    (node) => typeof node.subject === 'string' && ('listId' in node || 'params' in node) && ('price' in node || 'location' in node),
  );
}

function parse(page: Page, listing: Extract<UrlVerdict, { kind: 'listing' }> | null, options: ParseOptions): PageParse {
  const facts = emptyFacts();
  const privateStrings: string[] = [];
  const ad = findAd(page);
  const description =
    ad !== null ? fromNextData(ad, facts, privateStrings, options.eurToMad) : fromDom(page, facts, privateStrings, options.eurToMad);
  facts.transaction ??= listing?.transactionHint ?? null;
  const canonicalUrl = str(record(ad?.friendlyUrl).url) ?? page.link('canonical');
  const idFromPage = str(ad?.listId) ?? (canonicalUrl ? (/[_-](\d{5,12})\.htm/.exec(canonicalUrl)?.[1] ?? null) : null);
  return { facts, listingId: idFromPage, canonicalUrl, descriptionText: description, privateStrings };
}

export const avito: PortalAdapter = {
  name: 'avito',
  label: 'Avito',
  domain: 'avito.ma',
  ownsHost: (host) => host === 'avito.ma' || host === 'immoneuf.avito.ma',
  recognize,
  paceMs: 1000,
  sniff: (page) => /avito\.ma/i.test(page.link('canonical') ?? page.meta('og:url') ?? '') || page.html.includes('content.avito.ma'),
  parse,
};
