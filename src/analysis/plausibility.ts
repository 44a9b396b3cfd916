import type { Language, ListingFacts, PropertyType, Warning } from '../core/types.js';
import { propertyTypeLabel } from './labels.js';
import { MAD, sayer, spacedNumber, type Say, type Texts } from './say.js';
import { cityMedian, isKeyMoneyScheme, pricePerM2, pricingSurface } from './market/compare.js';

/**
 * Plausibility warnings (docs/analysis.md): values are kept as stated, a warning says what looks
 * wrong. Codes are stable; messages are in the request's language (English by default) and quote
 * the values as the listing gives them; a warning on the price or the surface names it (`field`).
 * Bounds and their sources are listed in docs/analysis.md.
 */

export const PLAUSIBILITY_CODES = [
  'PRICE_PER_M2_IMPLAUSIBLE',
  'PRICE_IMPLAUSIBLE',
  'SALE_PRICE_LOOKS_LIKE_RENT',
  'RENT_LOOKS_LIKE_SALE',
  'SURFACE_IMPLAUSIBLE',
  'ROOMS_IMPLAUSIBLE',
  'FLOOR_IMPLAUSIBLE',
] as const;
export type PlausibilityCode = (typeof PLAUSIBILITY_CODES)[number];

/** Codes that make the price per m² unreliable: no "good deal" talk after one of these. */
export const PRICE_DOUBT_CODES: ReadonlySet<string> = new Set([
  'PRICE_PER_M2_IMPLAUSIBLE',
  'PRICE_IMPLAUSIBLE',
  'SALE_PRICE_LOOKS_LIKE_RENT',
  'RENT_LOOKS_LIKE_SALE',
  'SURFACE_IMPLAUSIBLE',
]);

const LAND_TYPES: ReadonlySet<PropertyType | null> = new Set(['land', 'farm']);
const RESIDENTIAL_TYPES: ReadonlySet<PropertyType | null> = new Set([
  null,
  'apartment',
  'studio',
  'duplex',
  'penthouse',
  'villa',
  'house',
  'riad',
]);
/** Types whose total surface may be a plot, with floors built above it. */
const PLOT_TYPES: ReadonlySet<PropertyType | null> = new Set(['villa', 'house', 'riad', 'farm']);

/**
 * Sane DH/m² of a sale: the filter the research applied to 2,628 listings (docs/analysis.md:
 * 2,000 ≤ DH/m² ≤ 80,000). Land and farms sell far lower per m², so only the ceiling applies.
 */
const SALE_PER_M2: readonly [number, number] = [2_000, 80_000];
const LAND_SALE_PER_M2: readonly [number, number] = [5, 80_000];
/**
 * Sane DH/m²/month of a rent: 0.3× the lowest and 4× the highest district medians the research
 * reports (48, Oulfa 2014; 153, Palmier 2025 — docs/analysis.md), the ratios below.
 */
const RENT_PER_M2: readonly [number, number] = [15, 600];
/** docs/analysis.md: a price per m² outside 0.3×–4× the city median is suspect. */
const CITY_RATIO: readonly [number, number] = [0.3, 4];

/** A sale between these looks like a monthly rent or a price per m² (docs/analysis.md: 1,000–40,000 in price fields). */
const SALE_LIKE_RENT: readonly [number, number] = [3_000, 30_000];
/** Lowest sale price that can be a price at all: below, "75" probably meant "75 millions" (centimes). */
const MIN_SALE_PRICE = 3_000;
const MAX_SALE_PRICE = 500_000_000;
/** Below this, a "monthly" rent is a price per night or a typo; the research's rent sample starts at 1,500 (docs/analysis.md). */
const MIN_MONTHLY_RENT = 500;
/** Above this a residential rent looks like a sale: ≈ 3× the dearest rents found (Anfa Supérieur villas, 25–65 k, docs/analysis.md). */
const MAX_RESIDENTIAL_RENT = 200_000;
const MAX_OTHER_RENT = 1_000_000;

/** Sane (living) surface in m² by type. */
const SURFACE_BOUNDS: Readonly<Record<PropertyType, readonly [number, number]>> = {
  apartment: [15, 1_000],
  studio: [10, 150],
  duplex: [30, 1_500],
  penthouse: [30, 2_000],
  villa: [40, 5_000],
  house: [20, 5_000],
  riad: [30, 3_000],
  land: [10, 100_000_000],
  office: [5, 50_000],
  commercial: [3, 50_000],
  farm: [100, 1_000_000_000],
  building: [50, 100_000],
};
const UNKNOWN_TYPE_SURFACE: readonly [number, number] = [5, 1_000_000_000];

const MAX_FLOOR = 60;
const MIN_FLOOR = -3;
/** A bedroom needs about 9 m², and a home needs about 10 m² more for a bathroom and a kitchen. */
const M2_PER_BEDROOM = 9;
const M2_BESIDES_BEDROOMS = 10;
const MAX_ROOMS = 30;

const n = spacedNumber;
/** "an apartment", "a villa", "a property". */
const aType = (type: PropertyType | null): string => {
  const name = type === null ? 'property' : type === 'commercial' ? 'commercial unit' : type;
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
};

/** The property type in a sentence: "an apartment" / "un bien de type appartement" / "شقة". */
function typeIn(type: PropertyType | null, say: Say): string {
  return say({ en: aType(type), fr: `un bien de type ${propertyTypeLabel(type, 'fr').toLowerCase()}`, ar: propertyTypeLabel(type, 'ar') });
}

const DEAL: Readonly<Record<'sale' | 'rent', Texts>> = {
  sale: { en: 'sale', fr: 'une vente', ar: 'البيع' },
  rent: { en: 'rent', fr: 'une location', ar: 'الكراء' },
};
const PER_M2_UNIT: Readonly<Record<'sale' | 'rent', Texts>> = {
  sale: { en: 'MAD/m²', fr: 'DH/m²', ar: 'درهم/م²' },
  rent: { en: 'MAD/m²/month', fr: 'DH/m²/mois', ar: 'درهم/م²/شهر' },
};

function pricePerM2Warning(facts: ListingFacts, perM2: number | null, say: Say): Warning | null {
  if (perM2 === null || facts.transaction === null) return null;
  const land = LAND_TYPES.has(facts.property_type);
  const [lo, hi] = facts.transaction === 'rent' ? RENT_PER_M2 : land ? LAND_SALE_PER_M2 : SALE_PER_M2;
  const unit = say(PER_M2_UNIT[facts.transaction]);
  const price = n(facts.price_mad as number);
  const surface = n(pricingSurface(facts) as number);
  const stated = say({
    en: `${price} MAD for ${surface} m² gives ${n(perM2)} ${unit}`,
    fr: `${price} DH pour ${surface} m² font ${n(perM2)} ${unit}`,
    ar: `${price} درهم مقابل ${surface} م² تعطي ${n(perM2)} ${unit}`,
  });
  const check = say({ en: 'check the price and the surface.', fr: 'vérifiez le prix et la surface.', ar: 'تحقق من الثمن والمساحة.' });
  if (perM2 < lo || perM2 > hi) {
    const deal = say(DEAL[facts.transaction]);
    return {
      code: 'PRICE_PER_M2_IMPLAUSIBLE',
      field: 'price',
      message: say({
        en: `${stated}, outside the plausible ${n(lo)}–${n(hi)} ${unit} for a ${deal}; ${check}`,
        fr: `${stated}, hors de la fourchette plausible de ${n(lo)}–${n(hi)} ${unit} pour ${deal} ; ${check}`,
        ar: `${stated}، خارج النطاق المعقول ${n(lo)}–${n(hi)} ${unit} في ${deal}؛ ${check}`,
      }),
    };
  }
  if (isKeyMoneyScheme(facts)) return null;
  const median = cityMedian(facts);
  if (median === null) return null;
  const ratio = perM2 / median;
  if (ratio < CITY_RATIO[0] || ratio > CITY_RATIO[1]) {
    const city = facts.city ?? '';
    return {
      code: 'PRICE_PER_M2_IMPLAUSIBLE',
      field: 'price',
      message: say({
        en: `${stated}, ${ratio < 1 ? 'under 0.3×' : 'over 4×'} the ${city} median of ${n(median)} ${unit}; ${check}`,
        fr: `${stated}, ${ratio < 1 ? 'moins de 0,3 ×' : 'plus de 4 ×'} la médiane de ${city} (${n(median)} ${unit}) ; ${check}`,
        ar: `${stated}، ${ratio < 1 ? 'أقل من 0.3 ×' : 'أكثر من 4 ×'} الوسيط في ${city} (${n(median)} ${unit})؛ ${check}`,
      }),
    };
  }
  return null;
}

function priceWarnings(facts: ListingFacts, say: Say): Warning[] {
  const price = facts.price_mad;
  if (price === null || facts.transaction === null) return [];
  const type = facts.property_type;
  const p = `${n(price)} ${say(MAD)}`;
  const warning = (code: PlausibilityCode, texts: Texts): Warning[] => [{ code, field: 'price', message: say(texts) }];
  if (facts.transaction === 'sale') {
    if (price < MIN_SALE_PRICE) {
      const centimes = `${n(price * 10_000)} ${say(MAD)}`;
      return warning('PRICE_IMPLAUSIBLE', {
        en: `A sale price of ${p} is too low to be a price: "${n(price)} millions" would be ${centimes} (millions of centimes).`,
        fr: `Un prix de vente de ${p} est trop bas pour être un prix : « ${n(price)} millions » feraient ${centimes} (millions de centimes).`,
        ar: `ثمن بيع ${p} منخفض جدا ليكون ثمنا: «${n(price)} مليون» تعني ${centimes} (ملايين السنتيمات).`,
      });
    }
    if (price > MAX_SALE_PRICE) {
      return warning('PRICE_IMPLAUSIBLE', {
        en: `A sale price of ${p} is implausibly high; check the price.`,
        fr: `Un prix de vente de ${p} est invraisemblablement élevé ; vérifiez le prix.`,
        ar: `ثمن بيع ${p} مرتفع بشكل غير معقول؛ تحقق من الثمن.`,
      });
    }
    if (!LAND_TYPES.has(type) && price >= SALE_LIKE_RENT[0] && price <= SALE_LIKE_RENT[1]) {
      return warning('SALE_PRICE_LOOKS_LIKE_RENT', {
        en: `A sale price of ${p} looks like a monthly rent or a price per m²; check the transaction and the price.`,
        fr: `Un prix de vente de ${p} ressemble à un loyer mensuel ou à un prix au m² ; vérifiez la transaction et le prix.`,
        ar: `ثمن بيع ${p} يشبه كراء شهريا أو ثمن المتر المربع؛ تحقق من نوع المعاملة والثمن.`,
      });
    }
    return [];
  }
  if (price < MIN_MONTHLY_RENT) {
    return warning('PRICE_IMPLAUSIBLE', {
      en: `A monthly rent of ${p} is implausibly low: is it a price per night or per day?`,
      fr: `Un loyer mensuel de ${p} est invraisemblablement bas : est-ce un prix à la nuit ou à la journée ?`,
      ar: `كراء شهري قدره ${p} منخفض بشكل غير معقول: هل هو ثمن لليلة أو لليوم؟`,
    });
  }
  const ceiling = RESIDENTIAL_TYPES.has(type) ? MAX_RESIDENTIAL_RENT : MAX_OTHER_RENT;
  if (price >= ceiling) {
    return warning('RENT_LOOKS_LIKE_SALE', {
      en: `A monthly rent of ${p} looks like a sale price; check the transaction.`,
      fr: `Un loyer mensuel de ${p} ressemble à un prix de vente ; vérifiez la transaction.`,
      ar: `كراء شهري قدره ${p} يشبه ثمن بيع؛ تحقق من نوع المعاملة.`,
    });
  }
  return [];
}

function surfaceWarning(facts: ListingFacts, say: Say): Warning | null {
  const type = facts.property_type;
  const [lo, hi] = type === null ? UNKNOWN_TYPE_SURFACE : SURFACE_BOUNDS[type];
  const living = facts.surface_m2;
  const total = facts.surface_total_m2;
  const warning = (texts: Texts): Warning => ({ code: 'SURFACE_IMPLAUSIBLE', field: 'surface', message: say(texts) });
  const range = `${n(lo)}–${n(hi)}`;
  const what = typeIn(type, say);
  if (living !== null && (living < lo || living > hi)) {
    return warning({
      en: `A surface of ${n(living)} m² is implausible for ${what} (expected ${range} m²).`,
      fr: `Une surface de ${n(living)} m² est invraisemblable pour ${what} (attendu : ${range} m²).`,
      ar: `مساحة ${n(living)} م² غير معقولة لـ${what} (المتوقع ${range} م²).`,
    });
  }
  if (living === null && total !== null && !PLOT_TYPES.has(type) && (total < lo || total > hi)) {
    return warning({
      en: `A total surface of ${n(total)} m² is implausible for ${what} (expected ${range} m²).`,
      fr: `Une surface totale de ${n(total)} m² est invraisemblable pour ${what} (attendu : ${range} m²).`,
      ar: `مساحة إجمالية قدرها ${n(total)} م² غير معقولة لـ${what} (المتوقع ${range} م²).`,
    });
  }
  if (living !== null && total !== null) {
    // Built floors can exceed a plot (R+1, R+2), not three times over; elsewhere living ≤ total.
    const limit = PLOT_TYPES.has(type) ? total * 3 : total * 1.05;
    if (living > limit) {
      return warning({
        en: `The surface (${n(living)} m²) is larger than the total surface (${n(total)} m²) allows.`,
        fr: `La surface (${n(living)} m²) dépasse ce que la surface totale (${n(total)} m²) permet.`,
        ar: `المساحة (${n(living)} م²) أكبر مما تسمح به المساحة الإجمالية (${n(total)} م²).`,
      });
    }
  }
  return null;
}

function roomsWarning(facts: ListingFacts, say: Say): Warning | null {
  const { bedrooms, rooms, bathrooms, property_type: type } = facts;
  const warning = (texts: Texts): Warning => ({ code: 'ROOMS_IMPLAUSIBLE', message: say(texts) });
  const many = (count: number | null): boolean => count !== null && count > MAX_ROOMS && type !== 'building';
  if (many(bedrooms) || many(rooms) || many(bathrooms)) {
    const most = n(Math.max(bedrooms ?? 0, rooms ?? 0, bathrooms ?? 0));
    const what = typeIn(type, say);
    return warning({
      en: `${most} rooms is implausible for ${what}.`,
      fr: `${most} pièces, c’est invraisemblable pour ${what}.`,
      ar: `${most} غرفة عدد غير معقول لـ${what}.`,
    });
  }
  if (bedrooms === null) return null;
  if (rooms !== null && bedrooms > rooms) {
    return warning({
      en: `${n(bedrooms)} bedrooms but only ${n(rooms)} rooms in total.`,
      fr: `${n(bedrooms)} chambres mais seulement ${n(rooms)} pièces en tout.`,
      ar: `${n(bedrooms)} غرف نوم لكن ${n(rooms)} غرف فقط في المجموع.`,
    });
  }
  if (type === 'studio' && bedrooms >= 2) {
    return warning({
      en: `A studio with ${n(bedrooms)} bedrooms is a contradiction; check the property type.`,
      fr: `Un studio de ${n(bedrooms)} chambres est une contradiction ; vérifiez le type de bien.`,
      ar: `استوديو بـ${n(bedrooms)} غرف نوم تناقض؛ تحقق من نوع العقار.`,
    });
  }
  const surface = facts.surface_m2;
  if (surface !== null && bedrooms >= 1 && surface < bedrooms * M2_PER_BEDROOM + M2_BESIDES_BEDROOMS) {
    return warning({
      en: `${n(bedrooms)} bedrooms do not fit in ${n(surface)} m².`,
      fr: `${n(bedrooms)} chambres ne tiennent pas dans ${n(surface)} m².`,
      ar: `${n(bedrooms)} غرف نوم لا تتسع لها ${n(surface)} م².`,
    });
  }
  return null;
}

function floorWarning(facts: ListingFacts, say: Say): Warning | null {
  const floor = facts.floor;
  if (floor === null) return null;
  const warning = (texts: Texts): Warning => ({ code: 'FLOOR_IMPLAUSIBLE', message: say(texts) });
  if (floor > MAX_FLOOR || floor < MIN_FLOOR) {
    return warning({
      en: `Floor ${n(floor)} is implausible (expected ${MIN_FLOOR} to ${MAX_FLOOR}).`,
      fr: `L’étage ${n(floor)} est invraisemblable (attendu : de ${MIN_FLOOR} à ${MAX_FLOOR}).`,
      ar: `الطابق ${n(floor)} غير معقول (المتوقع من ${MIN_FLOOR} إلى ${MAX_FLOOR}).`,
    });
  }
  if (LAND_TYPES.has(facts.property_type) && floor !== 0) {
    const what = typeIn(facts.property_type, say);
    return warning({
      en: `${what.replace(/^a/, 'A')} on floor ${n(floor)} is a contradiction; check the property type.`,
      fr: `${what.replace(/^u/, 'U')} à l’étage ${n(floor)} est une contradiction ; vérifiez le type de bien.`,
      ar: `${what} في الطابق ${n(floor)} تناقض؛ تحقق من نوع العقار.`,
    });
  }
  return null;
}

/**
 * Every plausibility warning the facts raise, at most one per code, in a fixed order, in
 * `language` (English by default).
 */
export function plausibilityWarnings(facts: ListingFacts, perM2: number | null = pricePerM2(facts), language: Language = 'en'): Warning[] {
  const say = sayer(language);
  const surface = surfaceWarning(facts, say);
  const perM2Doubt = pricePerM2Warning(facts, perM2, say);
  // A price per m² off because the surface is itself implausible is the surface's doubt, not the price's.
  if (perM2Doubt !== null && surface !== null) perM2Doubt.field = 'surface';
  const warnings = [perM2Doubt, ...priceWarnings(facts, say), surface, roomsWarning(facts, say), floorWarning(facts, say)];
  return warnings.filter((w): w is Warning => w !== null);
}
