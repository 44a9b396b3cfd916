import type { CheerioAPI } from 'cheerio';
import { badRequest } from '../../core/errors.js';
import type { FeatureKey } from '../../core/types.js';
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
import { htmlToText, isRecord, type Page } from './html.js';
import { districtName, samePlace, splitLocation } from './portal-places.js';
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
 * Mubawab (mubawab.ma). Data sources, most stable first (docs/portals.md): the
 * RealEstateListing JSON-LD (title, description, photos, price, rooms, city), then the DOM for
 * what the JSON-LD lacks (district, property type, floor, amenities, sale/rent).
 */

/** Path kinds after the language prefix (docs/portals.md "URLs"). */
const NOT_LISTING_KINDS: Record<string, string> = {
  p: 'a new-build project page',
  b: 'an agency page',
  sd: 'a page of similar listings (Mubawab shows it for removed listings)',
  sc: 'a search results page',
  st: 'a search results page',
  ct: 'a search results page',
  cc: 'a search results page',
  cd: 'a search results page',
  listing: 'a search results page',
};

function recognize(url: URL): UrlVerdict {
  const segments = pathSegments(url);
  const offset = segments.length > 0 && /^[a-z]{2}$/i.test(segments[0]) ? 1 : 0;
  const kind = (segments[offset] ?? '').toLowerCase();
  const id = segments[offset + 1] ?? '';
  if ((kind === 'a' || kind === 'pa') && /^\d{4,10}$/.test(id)) {
    const slug = segments.slice(offset + 2).join(' ');
    return { kind: 'listing', portal: 'mubawab', listingId: id, url: url.toString(), transactionHint: transactionFromWords(slug) };
  }
  if (segments.length <= offset) return { kind: 'not_listing', portal: 'mubawab', what: 'the home page' };
  const what = NOT_LISTING_KINDS[kind] ?? (url.pathname.includes(':') ? 'a search results page' : 'not a listing page');
  return { kind: 'not_listing', portal: 'mubawab', what };
}

/** Key-figure icons: the class names are the same on FR, EN and AR pages. */
const FIGURE_ICONS: Record<string, 'surface' | 'rooms' | 'bedrooms' | 'bathrooms'> = {
  'icon-triangle': 'surface',
  'icon-house-boxes': 'rooms',
  'icon-bed': 'bedrooms',
  'icon-bath': 'bathrooms',
};

/** Amenity icons seen on Mubawab pages; labels are read first, icons cover unknown labels. */
const AMENITY_ICONS: Record<string, FeatureKey> = {
  'icon-garden': 'garden',
  'icon-terrace': 'terrace',
  'icon-garage': 'garage',
  'icon-parking': 'parking',
  'icon-elevator': 'elevator',
  'icon-pool': 'pool',
  'icon-seaViews': 'sea_view',
  'icon-mountainViews': 'mountain_view',
  'icon-doorman': 'concierge',
  'icon-storageRoom': 'storage',
  'icon-furnished': 'furnished',
  'icon-moroccanLounge': 'moroccan_lounge',
  'icon-airConditioning': 'air_conditioning',
  'icon-heating': 'heating',
  'icon-fireplace': 'fireplace',
  'icon-security': 'security',
  'icon-equippedKitchen': 'equipped_kitchen',
  'icon-doubleGlazing': 'double_glazing',
  'icon-reinforcedDoor': 'armored_door',
};

type MainFeature = 'type' | 'floor' | 'plot' | 'living';
const MAIN_FEATURE_LABELS: [RegExp, MainFeature][] = [
  [/^(type de bien|type du bien|type of property|property type|نوع العقار)$/, 'type'],
  [/^(etage du bien|etage|floor number|floor|الطابق)$/, 'floor'],
  [/^(surface de la parcelle|surface du terrain|plot surface|plot area|land area|مساحة الأرض)$/, 'plot'],
  [/^(surface habitable|living area|living surface|المساحة الصالحة للسكن)$/, 'living'],
];

function iconClasses($: CheerioAPI, element: Parameters<CheerioAPI>[0]): string[] {
  return ($(element).find('i').attr('class') ?? '').split(/\s+/).filter((c) => c.startsWith('icon-'));
}

/** The number of the price block, leaving out a nested "Decreased by …" amount. */
function domPrice($: CheerioAPI): { amount: number | null; currency: ReturnType<typeof parseCurrency>; onRequest: boolean } | null {
  let block = $('.mainInfoProp .orangeTit').first();
  if (block.length === 0) block = $('h3.orangeTit, .orangeTit').first();
  if (block.length === 0) return null;
  const copy = block.clone();
  copy.find('.downPrice, [class*="downPrice"], del, s, strike').remove();
  const text = tidy(copy.text());
  if (isPriceOnRequest(text)) return { amount: null, currency: null, onRequest: true };
  const bdi = copy.find('bdi').first();
  const amount = parseAmount(bdi.length > 0 ? bdi.text() : text);
  return { amount, currency: parseCurrency(text) ?? 'MAD', onRequest: false };
}

function jsonLdListing(page: Page): Record<string, unknown> | null {
  const objects = page.jsonLd();
  const typed = (o: Record<string, unknown>, type: string): boolean => list(o['@type']).some((t) => t === type);
  return (
    objects.find((o) => typed(o, 'RealEstateListing')) ??
    objects.find((o) => isRecord(o.offers) && (isRecord(o.itemOffered) || o.name !== undefined)) ??
    null
  );
}

function parse(page: Page, listing: Extract<UrlVerdict, { kind: 'listing' }> | null, options: ParseOptions): PageParse {
  const facts = emptyFacts();
  const privateStrings: string[] = [];
  const ld = jsonLdListing(page);
  const item = record(ld?.itemOffered);
  const offer = record(list(ld?.offers)[0]);
  const $ = page.dom();
  if (ld === null && $('.listingBox').length > 1) {
    // Result cards carry the same figure blocks as a listing: never read a search page as one.
    throw badRequest(
      `This Mubawab page is a search results page (${$('.listingBox').length} cards), not a single listing. Open one listing and use its page.`,
      {
        reason: 'unsupported_url',
        details: [{ field: 'html', message: 'a search results page, not a listing' }],
      },
    );
  }

  // Title and description.
  facts.title =
    str(ld?.name) ?? (tidy($('.blockProp h1.searchTitle').first().text()) || tidy($('h1.searchTitle, h1').first().text()) || null);
  let description = str(ld?.description)?.replace(/\r\n?/g, '\n') ?? null;
  if (description === null) {
    const block = $('h1.searchTitle').closest('.blockProp').find('p').first();
    const html = block.html();
    description = html === null ? null : htmlToText(html) || null;
  }

  // Price: JSON-LD offer first; the DOM block otherwise (its nested "decreased by" is dropped).
  const dom = domPrice($);
  const ldAmount = parseAmount(offer.price);
  if (ldAmount !== null && ldAmount > 0) {
    Object.assign(facts, priceInMad(ldAmount, parseCurrency(str(offer.priceCurrency)) ?? 'MAD', options.eurToMad));
  } else if (dom !== null && !dom.onRequest) {
    Object.assign(facts, priceInMad(dom.amount, dom.currency, options.eurToMad));
  }

  // Key figures: JSON-LD, then the icon blocks.
  facts.rooms = parseCount(item.numberOfRooms);
  facts.bedrooms = parseCount(item.numberOfBedrooms);
  facts.bathrooms = parseCount(item.numberOfBathroomsTotal ?? item.numberOfFullBathrooms ?? item.numberOfBathrooms);
  const floorSize = record(item.floorSize);
  const sizeValue = parseSurface(floorSize.value ?? item.floorSize);
  facts.surface_m2 =
    sizeValue === null ? null : /FTK|sq\s*ft/i.test(String(floorSize.unitCode ?? '')) ? Math.round(sizeValue * 0.092903) : sizeValue;
  let figures = $('.mainInfoProp .adDetailFeature, .adDetails .adDetailFeature');
  if (figures.length === 0) figures = $('.adDetailFeature').not('.listingBox .adDetailFeature');
  figures.each((_, element) => {
    const text = tidy($(element).text());
    const field =
      iconClasses($, element)
        .map((c) => FIGURE_ICONS[c])
        .find((f) => f !== undefined) ??
      (/m²|m2/i.test(text)
        ? 'surface'
        : /pi[eè]ces?|pieces/i.test(fold(text))
          ? 'rooms'
          : /salles? de bains?|bathrooms?|حمام/i.test(fold(text))
            ? 'bathrooms'
            : /chambres?|bedrooms?|rooms?|غرف/i.test(fold(text))
              ? 'bedrooms'
              : undefined);
    if (field === 'surface') facts.surface_m2 ??= parseSurface(text);
    else if (field === 'rooms') facts.rooms ??= parseCount(text);
    else if (field === 'bedrooms') facts.bedrooms ??= parseCount(text);
    else if (field === 'bathrooms') facts.bathrooms ??= parseCount(text);
  });

  // General characteristics: property type (never the JSON-LD @type, always "Apartment"), floor, plot.
  let typeLabel: string | null = null;
  $('.adMainFeature').each((_, element) => {
    const label = fold($(element).find('.adMainFeatureContentLabel').text()).replace(/(?<![.:\s])[.:\s]+$/, '');
    const value = tidy($(element).find('.adMainFeatureContentValue').text());
    if (value === '') return;
    const field = MAIN_FEATURE_LABELS.find(([pattern]) => pattern.test(label))?.[1];
    if (field === 'type') typeLabel = value;
    else if (field === 'floor') facts.floor ??= parseFloor(value);
    else if (field === 'plot') facts.surface_total_m2 ??= parseSurface(value);
    else if (field === 'living') facts.surface_m2 ??= parseSurface(value);
  });
  const breadcrumb = $('.adBread a, [class*="breadcrumb"] a')
    .map((_, a) => tidy($(a).text()))
    .get()
    .filter((t) => t !== '');
  facts.property_type =
    propertyTypeFromWords(typeLabel) ?? propertyTypeFromWords(facts.title) ?? propertyTypeFromWords(breadcrumb.slice(2).join(' '));

  // Sale or rent: the JSON-LD has no field for it; the title, URL slug and breadcrumb do.
  const business = String(offer.businessFunction ?? '');
  facts.transaction =
    (/LeaseOut/i.test(business) ? 'rent' : /Sell/i.test(business) ? 'sale' : null) ??
    transactionFromWords(facts.title) ??
    listing?.transactionHint ??
    transactionFromWords(breadcrumb.join(' ')) ??
    transactionFromWords(page.title());

  // Location: JSON-LD gives the city only; "<district> à <city>" comes from the DOM.
  const address = record(item.address ?? ld?.address);
  // addressLocality is the city (docs/portals.md), but read it as a location line in case it carries the district too.
  const ldPlace = splitLocation(str(address.addressLocality));
  const ldCity = ldPlace.city;
  let locationLine = tidy($('.mainInfoProp h3.greyTit').first().text()) || tidy($('h3.greyTit').first().text());
  if (locationLine === '') locationLine = tidy($('i.icon-location').first().parent().text());
  const split = splitLocation(locationLine);
  facts.city = ldCity ?? split.city;
  facts.district = split.district;
  if (facts.district === null && split.city !== null && ldCity !== null && !samePlace(split.city, ldCity)) {
    facts.district = districtName(split.city, ldCity);
  }
  if (facts.district === null) facts.district = ldPlace.district ?? districtName(str(address.addressNeighborhood), facts.city);

  // Amenities: label first (FR/EN/AR), icon class for labels we do not know.
  $('.adFeature').each((_, element) => {
    const label = tidy($(element).find('p, span').first().text()) || tidy($(element).text());
    const byIcon = iconClasses($, element)
      .map((c) => AMENITY_ICONS[c])
      .find((k) => k !== undefined);
    addFeatures(facts.feature_keys, featureFromLabel(label) ?? byIcon);
  });

  // Photos: JSON-LD images, then the slider's `pics` JSON, then gallery <img>.
  let photos = list(ld?.image).map((image) => (isRecord(image) ? (image.url ?? image.contentUrl) : image));
  if (photos.length === 0) {
    const pics = $('[pics]').first().attr('pics');
    if (pics !== undefined) {
      try {
        photos = list(JSON.parse(pics)).map((p) => record(record(p).photo).url);
      } catch {
        photos = [];
      }
    }
  }
  if (photos.length === 0) {
    photos = $('#picturesGallery img, .picturesGallery img, #picturesSlider img, .overlayPhoto img')
      .map((_, img) => $(img).attr('data-lazy') ?? $(img).attr('data-src') ?? $(img).attr('src'))
      .get()
      // Gallery thumbnails use the /s/ or /m/ size folder; /h/ is the full-size photo.
      .map((src) => src.replace(/(mubawab-media\.com\/ad\/.+?\/)(?:s|m)\//, '$1h/'));
  }
  facts.photos = photoList(photos, listing?.url ?? null);

  // Seller: read only to scrub it from every text that leaves the parser.
  addPrivate(
    privateStrings,
    ...$('.businessInfo .businessName, .businessName, .agencyName, [class*="agentName"]')
      .map((_, e) => tidy($(e).text()))
      .get(),
    ...$('a[href^="tel:"]')
      .map((_, e) => ($(e).attr('href') ?? '').slice(4))
      .get(),
  );

  const canonicalUrl = page.link('canonical') ?? str(ld?.url) ?? null;
  const idFromPage = str($('input#adId').attr('value')) ?? (canonicalUrl ? (/\/a\/(\d+)/.exec(canonicalUrl)?.[1] ?? null) : null);
  return { facts, listingId: idFromPage, canonicalUrl, descriptionText: description, privateStrings };
}

export const mubawab: PortalAdapter = {
  name: 'mubawab',
  label: 'Mubawab',
  domain: 'mubawab.ma',
  ownsHost: (host) => host === 'mubawab.ma',
  recognize,
  paceMs: 1000,
  sniff: (page) => /mubawab(-media)?\.(ma|com)/i.test(page.link('canonical') ?? '') || page.html.includes('mubawab-media.com'),
  parse,
};
