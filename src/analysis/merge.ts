import type {
  Language,
  ListingFacts,
  Offer,
  PropertyType,
  Provenance,
  ProvenanceField,
  ProvenanceSource,
  Warning,
  WarningField,
  WarningValue,
} from '../core/types.js';
import { propertyTypeLabel } from './labels.js';
import { M2, MAD, sayer, spacedNumber, type Say, type Texts } from './say.js';
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

function floorLabel(floor: number, say: Say): string {
  if (floor === 0) return say({ en: 'the ground floor (0)', fr: 'le rez-de-chaussée (0)', ar: 'الطابق الأرضي (0)' });
  if (floor < 0) return say({ en: `basement level ${floor}`, fr: `le sous-sol ${floor}`, ar: `الطابق السفلي ${floor}` });
  return say({ en: `floor ${floor}`, fr: `l’étage ${floor}`, ar: `الطابق ${floor}` });
}

const SOURCE_WORDS: Record<ProvenanceSource, Texts> = {
  structured_data: { en: "the listing's fields say", fr: 'les champs de l’annonce disent', ar: 'تقول حقول الإعلان' },
  page_text: { en: 'its text says', fr: 'son texte dit', ar: 'يقول نصه' },
  description: { en: 'the description says', fr: 'la description dit', ar: 'يقول الوصف' },
};
const KEPT: Record<ProvenanceSource, Texts> = {
  structured_data: { en: "the fields' value is kept", fr: 'la valeur des champs est retenue', ar: 'تُعتمد قيمة الحقول' },
  page_text: { en: "the listing text's value is kept", fr: 'la valeur du texte de l’annonce est retenue', ar: 'تُعتمد قيمة نص الإعلان' },
  description: { en: "the description's value is kept", fr: 'la valeur de la description est retenue', ar: 'تُعتمد قيمة الوصف' },
};
const BUT: Texts = { en: ' but ', fr: ' mais ', ar: ' لكن ' };

/** The facts compared, each with its warning field and its name at the head of the message. */
const COMPARED = {
  price_mad: { field: 'price', name: { en: 'Price', fr: 'Prix', ar: 'الثمن' } },
  surface_m2: { field: 'surface', name: { en: 'Surface', fr: 'Surface', ar: 'المساحة' } },
  rooms: { field: 'rooms', name: { en: 'Rooms', fr: 'Pièces', ar: 'الغرف' } },
  bedrooms: { field: 'bedrooms', name: { en: 'Bedrooms', fr: 'Chambres', ar: 'غرف النوم' } },
  bathrooms: { field: 'bathrooms', name: { en: 'Bathrooms', fr: 'Salles de bain', ar: 'الحمامات' } },
  floor: { field: 'floor', name: { en: 'Floor', fr: 'Étage', ar: 'الطابق' } },
  transaction: { field: 'transaction', name: { en: 'Transaction', fr: 'Transaction', ar: 'المعاملة' } },
  property_type: { field: 'property_type', name: { en: 'Property type', fr: 'Type de bien', ar: 'نوع العقار' } },
} as const satisfies Partial<Record<ProvenanceField, { field: WarningField; name: Texts }>>;
type ComparedField = keyof typeof COMPARED;

/**
 * A CONTRADICTION warning: both values, each with the words it was read from (docs/analysis.md
 * "Provenance"), in the message and in `values`, in the request's language. The first side's value is kept.
 */
function contradictionOf(
  field: ComparedField,
  pageValue: string,
  textValue: string,
  sides: { page: Provenance; text: Provenance },
  say: Say,
): Warning {
  const pageSource = sides.page[field];
  const textSource = sides.text[field];
  const values: WarningValue[] = [
    { source: pageSource?.source ?? 'structured_data', value: pageValue, excerpt: pageSource?.excerpt ?? null },
    { source: textSource?.source ?? 'page_text', value: textValue, excerpt: textSource?.excerpt ?? null },
  ];
  const quoted = (v: WarningValue): string =>
    v.excerpt === null || v.source === 'structured_data'
      ? v.value
      : `${v.value} (${say({ en: `"${v.excerpt}"`, fr: `« ${v.excerpt} »`, ar: `«${v.excerpt}»` })})`;
  const [first, second] = values as [WarningValue, WarningValue];
  const separator = say({ en: ': ', fr: ' : ', ar: ': ' });
  const end = say({ en: '; ', fr: ' ; ', ar: '؛ ' });
  return {
    code: 'CONTRADICTION',
    field: COMPARED[field].field,
    message: `${say(COMPARED[field].name)}${separator}${say(SOURCE_WORDS[first.source])} ${quoted(first)}${say(BUT)}${say(SOURCE_WORDS[second.source])} ${quoted(second)}${end}${say(KEPT[first.source])}.`,
    values,
  };
}

/** Relative gap above which two amounts are different figures, not rounding. */
function differ(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) > Math.max(1, tolerance * Math.max(a, b));
}

function contradictions(page: ListingFacts, text: ListingFacts, language: Language): Warning[] {
  const say = sayer(language);
  const warnings: Warning[] = [];
  const sides = { page: page.provenance, text: text.provenance };
  const contradiction = (field: ComparedField, pageValue: string, textValue: string): Warning =>
    contradictionOf(field, pageValue, textValue, sides, say);
  if (page.price_mad !== null && text.price_mad !== null && differ(page.price_mad, text.price_mad, 0.02)) {
    const shown = (facts: ListingFacts): string =>
      facts.price_original !== null
        ? `${spacedNumber(facts.price_original.amount)} ${facts.price_original.currency}`
        : `${spacedNumber(facts.price_mad as number)} ${say(MAD)}`;
    warnings.push(contradiction('price_mad', shown(page), shown(text)));
  }
  if (page.surface_m2 !== null && text.surface_m2 !== null) {
    // The text may quote the total surface where the fields give the living one, or the reverse.
    const matchesOne = [page.surface_m2, page.surface_total_m2].some((s) => s !== null && !differ(s, text.surface_m2 as number, 0.03));
    if (!matchesOne)
      warnings.push(
        contradiction('surface_m2', `${spacedNumber(page.surface_m2)} ${say(M2)}`, `${spacedNumber(text.surface_m2)} ${say(M2)}`),
      );
  }
  for (const field of ['rooms', 'bedrooms', 'bathrooms'] as const) {
    const a = page[field];
    const b = text[field];
    if (typeof a === 'number' && typeof b === 'number' && a !== b) warnings.push(contradiction(field, String(a), String(b)));
  }
  if (page.floor !== null && text.floor !== null && page.floor !== text.floor) {
    warnings.push(contradiction('floor', floorLabel(page.floor, say), floorLabel(text.floor, say)));
  }
  if (page.transaction !== null && text.transaction !== null && page.transaction !== text.transaction) {
    const word = (t: string): string =>
      say(t === 'sale' ? { en: 'for sale', fr: 'à vendre', ar: 'للبيع' } : { en: 'for rent', fr: 'à louer', ar: 'للكراء' });
    warnings.push(contradiction('transaction', word(page.transaction), word(text.transaction)));
  }
  if (page.property_type !== null && text.property_type !== null && FAMILIES[page.property_type] !== FAMILIES[text.property_type]) {
    const type = (t: PropertyType): string => propertyTypeLabel(t, language);
    warnings.push(contradiction('property_type', type(page.property_type), type(text.property_type)));
  }
  return warnings;
}

function joinTexts(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b;
  if (a.includes(b)) return a;
  if (b.includes(a)) return b;
  return `${a}\n\n${b}`;
}

/** Page and text facts as one; contradictions are told in `language` (English by default). */
export function mergeFacts(page: ListingFacts, text: ListingFacts, language: Language = 'en'): ListingFacts {
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
  for (const warning of [...page.warnings, ...text.warnings, ...contradictions(page, text, language)]) {
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
