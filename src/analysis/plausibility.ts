import type { ListingFacts, PropertyType, Warning } from '../core/types.js';
import { cityMedian, isKeyMoneyScheme, pricePerM2, pricingSurface } from './market/compare.js';

/**
 * Plausibility warnings (docs/analysis.md): values are kept as stated, a warning says what looks
 * wrong. Codes are stable; messages are English and quote the values as the listing gives them.
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

/** 1234567.5 → "1 234 567.5": a space between thousands. */
function n(value: number): string {
  const [whole = '', fraction] = (Number.isInteger(value) ? String(value) : value.toFixed(1)).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign === '' ? whole : whole.slice(1);
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  return `${sign}${groups.join(' ')}${fraction === undefined ? '' : `.${fraction}`}`;
}
/** "an apartment", "a villa", "a property". */
const aType = (type: PropertyType | null): string => {
  const name = type === null ? 'property' : type === 'commercial' ? 'commercial unit' : type;
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
};

function pricePerM2Warning(facts: ListingFacts, perM2: number | null): Warning | null {
  if (perM2 === null || facts.transaction === null) return null;
  const land = LAND_TYPES.has(facts.property_type);
  const [lo, hi] = facts.transaction === 'rent' ? RENT_PER_M2 : land ? LAND_SALE_PER_M2 : SALE_PER_M2;
  const unit = facts.transaction === 'rent' ? 'MAD/m²/month' : 'MAD/m²';
  const stated = (): string => `${n(facts.price_mad as number)} MAD for ${n(pricingSurface(facts) as number)} m² gives ${n(perM2)} ${unit}`;
  if (perM2 < lo || perM2 > hi) {
    return {
      code: 'PRICE_PER_M2_IMPLAUSIBLE',
      message: `${stated()}, outside the plausible ${n(lo)}–${n(hi)} ${unit} for a ${facts.transaction}; check the price and the surface.`,
    };
  }
  if (isKeyMoneyScheme(facts)) return null;
  const median = cityMedian(facts);
  if (median === null) return null;
  const ratio = perM2 / median;
  if (ratio < CITY_RATIO[0] || ratio > CITY_RATIO[1]) {
    return {
      code: 'PRICE_PER_M2_IMPLAUSIBLE',
      message: `${stated()}, ${ratio < 1 ? 'under 0.3×' : 'over 4×'} the ${facts.city} median of ${n(median)} ${unit}; check the price and the surface.`,
    };
  }
  return null;
}

function priceWarnings(facts: ListingFacts): Warning[] {
  const price = facts.price_mad;
  if (price === null || facts.transaction === null) return [];
  const type = facts.property_type;
  if (facts.transaction === 'sale') {
    if (price < MIN_SALE_PRICE) {
      return [
        {
          code: 'PRICE_IMPLAUSIBLE',
          message: `A sale price of ${n(price)} MAD is too low to be a price: "${n(price)} millions" would be ${n(price * 10_000)} MAD (millions of centimes).`,
        },
      ];
    }
    if (price > MAX_SALE_PRICE) {
      return [{ code: 'PRICE_IMPLAUSIBLE', message: `A sale price of ${n(price)} MAD is implausibly high; check the price.` }];
    }
    if (!LAND_TYPES.has(type) && price >= SALE_LIKE_RENT[0] && price <= SALE_LIKE_RENT[1]) {
      return [
        {
          code: 'SALE_PRICE_LOOKS_LIKE_RENT',
          message: `A sale price of ${n(price)} MAD looks like a monthly rent or a price per m²; check the transaction and the price.`,
        },
      ];
    }
    return [];
  }
  if (price < MIN_MONTHLY_RENT) {
    return [
      { code: 'PRICE_IMPLAUSIBLE', message: `A monthly rent of ${n(price)} MAD is implausibly low: is it a price per night or per day?` },
    ];
  }
  const ceiling = RESIDENTIAL_TYPES.has(type) ? MAX_RESIDENTIAL_RENT : MAX_OTHER_RENT;
  if (price >= ceiling) {
    return [{ code: 'RENT_LOOKS_LIKE_SALE', message: `A monthly rent of ${n(price)} MAD looks like a sale price; check the transaction.` }];
  }
  return [];
}

function surfaceWarning(facts: ListingFacts): Warning | null {
  const type = facts.property_type;
  const [lo, hi] = type === null ? UNKNOWN_TYPE_SURFACE : SURFACE_BOUNDS[type];
  const living = facts.surface_m2;
  const total = facts.surface_total_m2;
  if (living !== null && (living < lo || living > hi)) {
    return {
      code: 'SURFACE_IMPLAUSIBLE',
      message: `A surface of ${n(living)} m² is implausible for ${aType(type)} (expected ${n(lo)}–${n(hi)} m²).`,
    };
  }
  if (living === null && total !== null && !PLOT_TYPES.has(type) && (total < lo || total > hi)) {
    return {
      code: 'SURFACE_IMPLAUSIBLE',
      message: `A total surface of ${n(total)} m² is implausible for ${aType(type)} (expected ${n(lo)}–${n(hi)} m²).`,
    };
  }
  if (living !== null && total !== null) {
    // Built floors can exceed a plot (R+1, R+2), not three times over; elsewhere living ≤ total.
    const limit = PLOT_TYPES.has(type) ? total * 3 : total * 1.05;
    if (living > limit) {
      return {
        code: 'SURFACE_IMPLAUSIBLE',
        message: `The surface (${n(living)} m²) is larger than the total surface (${n(total)} m²) allows.`,
      };
    }
  }
  return null;
}

function roomsWarning(facts: ListingFacts): Warning | null {
  const { bedrooms, rooms, bathrooms, property_type: type } = facts;
  const many = (count: number | null): boolean => count !== null && count > MAX_ROOMS && type !== 'building';
  if (many(bedrooms) || many(rooms) || many(bathrooms)) {
    return {
      code: 'ROOMS_IMPLAUSIBLE',
      message: `${n(Math.max(bedrooms ?? 0, rooms ?? 0, bathrooms ?? 0))} rooms is implausible for ${aType(type)}.`,
    };
  }
  if (bedrooms === null) return null;
  if (rooms !== null && bedrooms > rooms) {
    return { code: 'ROOMS_IMPLAUSIBLE', message: `${n(bedrooms)} bedrooms but only ${n(rooms)} rooms in total.` };
  }
  if (type === 'studio' && bedrooms >= 2) {
    return { code: 'ROOMS_IMPLAUSIBLE', message: `A studio with ${n(bedrooms)} bedrooms is a contradiction; check the property type.` };
  }
  const surface = facts.surface_m2;
  if (surface !== null && bedrooms >= 1 && surface < bedrooms * M2_PER_BEDROOM + M2_BESIDES_BEDROOMS) {
    return { code: 'ROOMS_IMPLAUSIBLE', message: `${n(bedrooms)} bedrooms do not fit in ${n(surface)} m².` };
  }
  return null;
}

function floorWarning(facts: ListingFacts): Warning | null {
  const floor = facts.floor;
  if (floor === null) return null;
  if (floor > MAX_FLOOR || floor < MIN_FLOOR) {
    return { code: 'FLOOR_IMPLAUSIBLE', message: `Floor ${n(floor)} is implausible (expected ${MIN_FLOOR} to ${MAX_FLOOR}).` };
  }
  if (LAND_TYPES.has(facts.property_type) && floor !== 0) {
    return {
      code: 'FLOOR_IMPLAUSIBLE',
      message: `${aType(facts.property_type).replace(/^a/, 'A')} on floor ${n(floor)} is a contradiction; check the property type.`,
    };
  }
  return null;
}

/** Every plausibility warning the facts raise, at most one per code, in a fixed order. */
export function plausibilityWarnings(facts: ListingFacts, perM2: number | null = pricePerM2(facts)): Warning[] {
  const warnings = [
    pricePerM2Warning(facts, perM2),
    ...priceWarnings(facts),
    surfaceWarning(facts),
    roomsWarning(facts),
    floorWarning(facts),
  ];
  return warnings.filter((w): w is Warning => w !== null);
}
