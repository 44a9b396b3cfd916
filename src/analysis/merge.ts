import type {
  ListingFacts,
  Offer,
  PropertyType,
  Provenance,
  ProvenanceField,
  ProvenanceSource,
  Warning,
  WarningValue,
} from '../core/types.js';
import { PROVENANCE_FIELDS } from '../core/types.js';

/**
 * Combines the facts of a portal page with those of a free text (docs/analysis.md): page fields
 * win for numbers, the text fills gaps and adds features, contradictions become warnings
 * (code CONTRADICTION) so the user sees both values. The text is the page's own description
 * (sellers often write other figures than they typed in the form: docs/portals.md)
 * or the description the user passed with a URL.
 *
 * Compared: price, surfaces, room counts, floor, sale/rent and the property family. City and
 * district are not: descriptions name other towns for search engines ("Appartement oujda …").
 */

/** Kinds of property that can be called by one another's name without contradiction. */
const FAMILIES: Record<PropertyType, string> = {
  apartment: 'flat',
  studio: 'flat',
  duplex: 'flat',
  penthouse: 'flat',
  villa: 'house',
  house: 'house',
  riad: 'house',
  land: 'land',
  farm: 'land',
  office: 'business',
  commercial: 'business',
  building: 'building',
};

function floorLabel(floor: number): string {
  return floor === 0 ? 'the ground floor (0)' : floor < 0 ? `basement level ${floor}` : `floor ${floor}`;
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US').replace(/,/g, ' ');
}

const SOURCE_WORDS: Record<ProvenanceSource, string> = {
  structured_data: "the listing's fields say",
  page_text: 'its text says',
  description: 'the description says',
};
const KEPT: Record<ProvenanceSource, string> = {
  structured_data: "the fields' value is kept",
  page_text: "the listing text's value is kept",
  description: "the description's value is kept",
};

/**
 * A CONTRADICTION warning: both values, each with the words it was read from (docs/analysis.md
 * "Provenance"), in the message and in `values`. The first side's value is kept.
 */
function contradictionOf(
  what: string,
  field: ProvenanceField,
  pageValue: string,
  textValue: string,
  sides: { page: Provenance; text: Provenance },
): Warning {
  const pageSource = sides.page[field];
  const textSource = sides.text[field];
  const values: WarningValue[] = [
    { source: pageSource?.source ?? 'structured_data', value: pageValue, excerpt: pageSource?.excerpt ?? null },
    { source: textSource?.source ?? 'page_text', value: textValue, excerpt: textSource?.excerpt ?? null },
  ];
  const quoted = (v: WarningValue): string =>
    v.excerpt === null || v.source === 'structured_data' ? v.value : `${v.value} ("${v.excerpt}")`;
  const [first, second] = values as [WarningValue, WarningValue];
  return {
    code: 'CONTRADICTION',
    message: `${what}: ${SOURCE_WORDS[first.source]} ${quoted(first)} but ${SOURCE_WORDS[second.source]} ${quoted(second)}; ${KEPT[first.source]}.`,
    values,
  };
}

/** Relative gap above which two amounts are different figures, not rounding. */
function differ(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) > Math.max(1, tolerance * Math.max(a, b));
}

function contradictions(page: ListingFacts, text: ListingFacts): Warning[] {
  const warnings: Warning[] = [];
  const sides = { page: page.provenance, text: text.provenance };
  const contradiction = (what: string, field: ProvenanceField, pageValue: string, textValue: string): Warning =>
    contradictionOf(what, field, pageValue, textValue, sides);
  if (page.price_mad !== null && text.price_mad !== null && differ(page.price_mad, text.price_mad, 0.02)) {
    const shown = (facts: ListingFacts): string =>
      facts.price_original !== null
        ? `${formatNumber(facts.price_original.amount)} ${facts.price_original.currency}`
        : `${formatNumber(facts.price_mad as number)} MAD`;
    warnings.push(contradiction('Price', 'price_mad', shown(page), shown(text)));
  }
  if (page.surface_m2 !== null && text.surface_m2 !== null) {
    // The text may quote the total surface where the fields give the living one, or the reverse.
    const matchesOne = [page.surface_m2, page.surface_total_m2].some((s) => s !== null && !differ(s, text.surface_m2 as number, 0.03));
    if (!matchesOne)
      warnings.push(contradiction('Surface', 'surface_m2', `${formatNumber(page.surface_m2)} m²`, `${formatNumber(text.surface_m2)} m²`));
  }
  const counts: ['rooms' | 'bedrooms' | 'bathrooms', string][] = [
    ['rooms', 'Rooms'],
    ['bedrooms', 'Bedrooms'],
    ['bathrooms', 'Bathrooms'],
  ];
  for (const [field, label] of counts) {
    const a = page[field];
    const b = text[field];
    if (typeof a === 'number' && typeof b === 'number' && a !== b) warnings.push(contradiction(label, field, String(a), String(b)));
  }
  if (page.floor !== null && text.floor !== null && page.floor !== text.floor) {
    warnings.push(contradiction('Floor', 'floor', floorLabel(page.floor), floorLabel(text.floor)));
  }
  if (page.transaction !== null && text.transaction !== null && page.transaction !== text.transaction) {
    const word = (t: string): string => (t === 'sale' ? 'for sale' : 'for rent');
    warnings.push(contradiction('Transaction', 'transaction', word(page.transaction), word(text.transaction)));
  }
  if (page.property_type !== null && text.property_type !== null && FAMILIES[page.property_type] !== FAMILIES[text.property_type]) {
    warnings.push(contradiction('Property type', 'property_type', page.property_type, text.property_type));
  }
  return warnings;
}

function joinTexts(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b;
  if (a.includes(b)) return a;
  if (b.includes(a)) return b;
  return `${a}\n\n${b}`;
}

export function mergeFacts(page: ListingFacts, text: ListingFacts): ListingFacts {
  const merged: ListingFacts = {
    title: page.title ?? text.title,
    transaction: page.transaction ?? text.transaction,
    property_type: page.property_type ?? text.property_type,
    // The price and its original currency travel together.
    ...(page.price_mad !== null || page.price_original !== null
      ? { price_mad: page.price_mad, price_original: page.price_original }
      : { price_mad: text.price_mad, price_original: text.price_original }),
    surface_m2: page.surface_m2 ?? text.surface_m2,
    surface_total_m2: page.surface_total_m2 ?? text.surface_total_m2,
    rooms: page.rooms ?? text.rooms,
    bedrooms: page.bedrooms ?? text.bedrooms,
    bathrooms: page.bathrooms ?? text.bathrooms,
    toilets: page.toilets ?? text.toilets,
    floor: page.floor ?? text.floor,
    city: page.city ?? text.city,
    // A district from the text only makes sense in the page's city (or when the page has none).
    district: page.district ?? (page.city === null || text.city === null || sameName(page.city, text.city) ? text.district : null),
    offers: [],
    feature_keys: [...new Set([...page.feature_keys, ...text.feature_keys])],
    photos: page.photos.length > 0 ? page.photos : text.photos,
    description: joinTexts(page.description, text.description),
    warnings: [],
    provenance: {},
  };
  for (const field of PROVENANCE_FIELDS) {
    // Each field's provenance follows its value: the side whose value was kept.
    const fromPage = field === 'price_mad' ? page.price_mad !== null || page.price_original !== null : page[field] !== null;
    const chosen = fromPage ? page.provenance[field] : text.provenance[field];
    if (chosen !== undefined && merged[field] !== null) merged.provenance[field] = chosen;
  }
  merged.offers = mergedOffers(merged, page, text);
  const seen = new Set<string>();
  for (const warning of [...page.warnings, ...text.warnings, ...contradictions(page, text)]) {
    const key = `${warning.code}\u0000${warning.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      merged.warnings.push(warning);
    }
  }
  return merged;
}

function sameName(a: string, b: string): boolean {
  const key = (s: string): string =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '');
  return key(a) === key(b);
}

/**
 * The merged deals: a dual offer stated on either side, reordered so that the main offer is the
 * merged transaction with the merged price; otherwise the one deal the merged facts state.
 */
function mergedOffers(merged: ListingFacts, page: ListingFacts, text: ListingFacts): Offer[] {
  const dual = page.offers.length > 1 ? page.offers : text.offers.length > 1 ? text.offers : null;
  const single = (transaction: Offer['transaction']): Offer => ({
    transaction,
    price_mad: merged.price_mad,
    period: transaction === 'rent' ? 'month' : null,
  });
  if (merged.transaction === null) return dual === null ? [] : dual.map((o) => ({ ...o }));
  if (dual === null) return [single(merged.transaction)];
  const main = dual.find((o) => o.transaction === merged.transaction);
  const others = dual.filter((o) => o !== main).map((o) => ({ ...o }));
  return [{ ...(main ?? single(merged.transaction)), price_mad: merged.price_mad }, ...others];
}
