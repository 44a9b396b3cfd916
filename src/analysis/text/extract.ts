import type { ListingFacts, PropertyType } from '../../core/types.js';
import { emptyFacts } from '../facts.js';
import { scrubPrivate } from '../portals/privacy.js';
import { extractFeatures } from './features.js';
import { extractFloor } from './floor.js';
import { extractLocation } from './location.js';
import { normalizeText } from './normalize.js';
import { findNumbers } from './numbers.js';
import { chargesAfter, choosePrice, findPriceMentions, statesNoPrice } from './price.js';
import { extractRoomCounts } from './rooms.js';
import { chooseSurfaces, findSurfaceMentions } from './surface.js';
import { extractTitle, titleEndIn } from './title.js';
import { extractTransaction } from './transaction.js';
import { extractPropertyType } from './type.js';
import { contradictionWarnings, keyMoneyWarnings } from './warnings.js';

/**
 * Default MAD per EUR for prices stated in euros. docs/analysis-text.md ("1 € ≈ 10–11 DH", [EURO]
 * Dec 2025); 10.8 sits inside that band. Callers pass their own rate through `eurToMad`.
 */
export const DEFAULT_EUR_TO_MAD = 10.8;

/** MAD per EUR in force: IMMOREEL_EUR_TO_MAD (so a user can apply the day's rate), else the default. */
export function eurToMadRate(): number {
  const configured = Number(process.env.IMMOREEL_EUR_TO_MAD);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_EUR_TO_MAD;
}

export interface ExtractOptions {
  /** MAD per EUR used to convert prices stated in euros (default: eurToMadRate()). */
  eurToMad?: number;
}

/** A price this high is a sale price: no rent reaches it (see the use below). */
const SALE_ONLY_PRICE_MAD = 200_000;

/** Types whose "floor" words describe levels of the house, not the home's floor in a building. */
const WHOLE_BUILDING_TYPES: ReadonlySet<PropertyType> = new Set(['villa', 'house', 'riad', 'land', 'farm', 'building']);

/**
 * Reads the facts a listing text states (FR/EN/AR/Darija, mixed). Pure and deterministic.
 * Every fact the text does not state stays null: nothing is guessed. See docs/analysis-text.md.
 */
export function extractFacts(text: string, options: ExtractOptions = {}): ListingFacts {
  const facts = emptyFacts();
  facts.description = text;
  // Seller phone numbers and e-mails never reach the output (the title is shown) nor become numbers.
  const title = extractTitle(text);
  facts.title = title === null ? null : scrubPrivate(title);
  const normalized = scrubPrivate(normalizeText(text));
  if (normalized === '') return facts;
  const titleEnd = titleEndIn(normalized);
  const numbers = findNumbers(normalized);

  facts.property_type = extractPropertyType(normalized, titleEnd);
  facts.transaction = extractTransaction(normalized, titleEnd);

  const eurToMad = options.eurToMad ?? eurToMadRate();
  const prices = findPriceMentions(normalized, numbers, titleEnd, { eurToMad });
  const price = statesNoPrice(normalized) && !prices.some((p) => p.labelled) ? null : choosePrice(prices, facts.transaction, normalized);
  if (price !== null) {
    const charges = facts.transaction === 'rent' || price.perMonth ? chargesAfter(normalized, price, numbers) : 0;
    facts.price_mad = Math.round(price.mad + charges);
    facts.price_original = price.currency === 'MAD' ? null : { amount: price.amount, currency: price.currency };
    // "12 000 DH/mois" says rent even when no rent word does; no home rents for 200 000 DH a
    // month (docs/analysis-text.md: the dearest villas let for 25–65 k DH), so such a price is a sale.
    if (facts.transaction === null && price.perMonth) facts.transaction = 'rent';
    if (facts.transaction === null && !price.perMonth && price.mad >= SALE_ONLY_PRICE_MAD) facts.transaction = 'sale';
  }

  const isLand = facts.property_type === 'land' || facts.property_type === 'farm';
  const surfaceMentions = findSurfaceMentions(normalized, numbers, titleEnd);
  const surfaces = chooseSurfaces(surfaceMentions, isLand, normalized);
  facts.surface_m2 = surfaces.surface_m2;
  facts.surface_total_m2 = surfaces.surface_total_m2;

  const counts = extractRoomCounts(normalized, titleEnd);
  facts.rooms = counts.rooms;
  facts.bedrooms = counts.bedrooms;
  facts.bathrooms = counts.bathrooms;
  facts.floor = facts.property_type !== null && WHOLE_BUILDING_TYPES.has(facts.property_type) ? null : extractFloor(normalized);

  const location = extractLocation(normalized, titleEnd);
  facts.city = location.city;
  facts.district = location.district;
  facts.feature_keys = extractFeatures(normalized);

  facts.warnings = [
    ...keyMoneyWarnings(normalized),
    ...contradictionWarnings({ text: normalized, prices, surfaces: surfaceMentions, bedroomValues: counts.bedroomValues }),
  ];
  return facts;
}
