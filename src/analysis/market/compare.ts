import type { Language, ListingFacts, MarketComparison, MarketPosition, PropertyType } from '../../core/types.js';
import { metroArea } from '../text/gazetteer.js';
import { describeSource, findReference, type MarketReference, type ReferenceKind, type ReferenceMatch } from './reference.js';

/**
 * Price per m² and its place in the local market (docs/analysis.md). Rules, from docs/analysis.md:
 * below Q1 → `below`, above Q3 → `above`, else `in_line`. Without quartiles, a band of ±15 %
 * around the median (±25 % when the row has fewer than 10 listings, as docs/analysis.md advises).
 */

/** Warning code of sarout / rahn / tanazul listings: not freehold prices, kept out of comparison (docs/analysis.md). */
export const KEY_MONEY_SCHEME = 'KEY_MONEY_SCHEME';

/**
 * Studios and 1-bedroom flats sell at +50–70 % per m² over their district (docs/analysis.md), so
 * they are compared with the apartment row raised by the midpoint, +60 %.
 */
export const SMALL_UNIT_UPLIFT = 1.6;

const KIND_OF_TYPE: Readonly<Partial<Record<PropertyType, ReferenceKind>>> = {
  apartment: 'apartment',
  studio: 'apartment',
  duplex: 'apartment',
  penthouse: 'apartment',
  villa: 'villa',
  riad: 'riad',
};

/** Types whose `surface_total_m2` is a plot: dividing a price by it would understate the m² price (docs/analysis.md). */
const PLOT_TYPES: ReadonlySet<PropertyType> = new Set(['villa', 'house', 'riad', 'farm']);

export function referenceKind(type: PropertyType | null): ReferenceKind | null {
  return type === null ? null : (KIND_OF_TYPE[type] ?? null);
}

/**
 * The surface a price per m² is computed on: the stated (living) surface; the total surface
 * only when it cannot be a plot of land.
 */
export function pricingSurface(facts: ListingFacts): number | null {
  if (facts.surface_m2 !== null && facts.surface_m2 > 0) return facts.surface_m2;
  if (facts.surface_total_m2 !== null && facts.surface_total_m2 > 0) {
    if (facts.property_type === null || !PLOT_TYPES.has(facts.property_type)) return facts.surface_total_m2;
  }
  return null;
}

/** Price (a rent: the monthly rent) per m², rounded to the dirham. */
export function pricePerM2(facts: ListingFacts): number | null {
  const surface = pricingSurface(facts);
  if (facts.price_mad === null || facts.price_mad <= 0 || surface === null) return null;
  return Math.round(facts.price_mad / surface);
}

export function isKeyMoneyScheme(facts: ListingFacts): boolean {
  return facts.warnings.some((w) => w.code === KEY_MONEY_SCHEME);
}

function isSmallUnit(facts: ListingFacts): boolean {
  return (
    facts.property_type === 'studio' ||
    (facts.bedrooms !== null && facts.bedrooms <= 1 && referenceKind(facts.property_type) === 'apartment')
  );
}

type Confidence = MarketComparison['confidence'];
const LEVELS: readonly Confidence[] = ['low', 'medium', 'high'];

/**
 * high: a district row of ≥ 10 recent listings. Each weakness costs one step: a city-wide row,
 * an unknown sample size, figures older than 2024, a small-unit uplift. Fewer than 10 listings
 * or an indicative figure: low (docs/analysis.md).
 */
export function confidenceOf(match: ReferenceMatch, uplifted: boolean): Confidence {
  const { row } = match;
  if (row.indicative || (row.sample_size !== null && row.sample_size < 10)) return 'low';
  // A metro area's figures stand in for a commune: one step less sure than the commune's own.
  let level = match.level === 'district' ? 2 : match.level === 'city' ? 1 : 0;
  if (row.sample_size === null) level -= 1;
  if (row.as_of < '2024') level -= 1;
  if (uplifted) level -= 1;
  return LEVELS[Math.max(0, level)] as Confidence;
}

/** The Q1–Q3 band a price is judged against; ±15 % (±25 % under 10 listings) when quartiles are missing. */
export function positionBand(median: number, q1: number | null, q3: number | null, sampleSize: number | null): [number, number] {
  if (q1 !== null && q3 !== null) return [q1, q3];
  const half = sampleSize !== null && sampleSize < 10 ? 0.25 : 0.15;
  return [median * (1 - half), median * (1 + half)];
}

export function positionOf(value: number, band: readonly [number, number]): MarketPosition {
  if (value < band[0]) return 'below';
  if (value > band[1]) return 'above';
  return 'in_line';
}

/** Percentage difference from the median, one decimal. */
export function deltaPct(value: number, median: number): number {
  const delta = Math.round(((value - median) / median) * 1000) / 10;
  return delta === 0 ? 0 : delta;
}

export interface MarketResult {
  price_per_m2_mad: number | null;
  market: MarketComparison | null;
  /** The reference row used (before any uplift), for the buyer profile and the angles. */
  reference: MarketReference | null;
  /** True when the row was raised for a studio or 1-bedroom flat (SMALL_UNIT_UPLIFT). */
  uplifted: boolean;
}

/**
 * Price per m² and the market comparison of a listing; market null when nothing comparable exists.
 * `language` is the language of the readable source name (`source_label`, docs/api.md).
 */
export function compareWithMarket(facts: ListingFacts, language: Language = 'en'): MarketResult {
  const perM2 = pricePerM2(facts);
  const none: MarketResult = { price_per_m2_mad: perM2, market: null, reference: null, uplifted: false };
  const kind = referenceKind(facts.property_type);
  if (kind === null || facts.transaction === null || isKeyMoneyScheme(facts)) return none;
  const match = findReference(facts.city, facts.district, kind, facts.transaction);
  if (match === null) return none;
  const { row } = match;
  const uplifted = kind === 'apartment' && facts.transaction === 'sale' && isSmallUnit(facts);
  const factor = uplifted ? SMALL_UNIT_UPLIFT : 1;
  const scale = (v: number | null): number | null => (v === null ? null : Math.round(v * factor));
  const median = scale(row.median) as number;
  const q1 = scale(row.q1);
  const q3 = scale(row.q3);
  const source = uplifted ? `${row.source}; studio/1-bedroom uplift +60 % (docs/sources.md)` : row.source;
  const position = perM2 === null ? null : positionOf(perM2, positionBand(median, q1, q3, row.sample_size));
  return {
    price_per_m2_mad: perM2,
    reference: row,
    uplifted,
    market: {
      area:
        match.level === 'metro_area'
          ? `${metroArea(row.city) ?? row.city} (${row.city} figures)`
          : row.district === null
            ? row.city
            : `${row.district}, ${row.city}`,
      area_level: match.level,
      median_price_per_m2_mad: median,
      q1_price_per_m2_mad: q1,
      q3_price_per_m2_mad: q3,
      sample_size: row.sample_size,
      as_of: row.as_of,
      source,
      source_label: describeSource(source, language),
      position,
      delta_pct: perM2 === null ? null : deltaPct(perM2, median),
      confidence: confidenceOf(match, uplifted),
    },
  };
}

export interface ImpliedYield {
  pct: number;
  /** The area whose median rent was used, e.g. "Maârif, Casablanca". */
  area: string;
  /** Its most specific name, e.g. "Maârif". */
  place: string;
  source: string;
}

/**
 * Gross yield a sale would earn at the area's median asking rent: rent/m²/month × 12 ÷ price/m²
 * (docs/analysis.md; an upper bound, asks on both sides). Null without a rent reference.
 */
export function impliedGrossYield(facts: ListingFacts, perM2: number | null): ImpliedYield | null {
  if (facts.transaction !== 'sale' || perM2 === null || perM2 <= 0 || isKeyMoneyScheme(facts)) return null;
  if (referenceKind(facts.property_type) !== 'apartment') return null;
  const rent = findReference(facts.city, facts.district, 'apartment', 'rent');
  if (rent === null) return null;
  const { row } = rent;
  return {
    pct: Math.round(((row.median * 12) / perM2) * 1000) / 10,
    area: row.district === null ? row.city : `${row.district}, ${row.city}`,
    place: row.district ?? row.city,
    source: row.source,
  };
}

/**
 * The city-wide reference of the same kind and transaction, for the plausibility check of
 * docs/analysis.md (a price per m² outside 0.3×–4× the city median is suspect).
 */
export function cityMedian(facts: ListingFacts): number | null {
  const kind = referenceKind(facts.property_type);
  if (kind === null || facts.transaction === null || facts.city === null) return null;
  const match = findReference(facts.city, null, kind, facts.transaction);
  return match === null ? null : match.row.median;
}
