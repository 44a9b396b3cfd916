import { emptyFacts } from '../../../src/analysis/facts.js';
import type { ListingFacts, ListingSource } from '../../../src/core/types.js';

/** A listing with only the given facts known. */
export function listing(overrides: Partial<ListingFacts> = {}): ListingFacts {
  return { ...emptyFacts(), ...overrides };
}

/** The facts of assets/demo/listing.txt, as an extractor should read them. */
export function demoFacts(overrides: Partial<ListingFacts> = {}): ListingFacts {
  return listing({
    transaction: 'sale',
    property_type: 'apartment',
    price_mad: 1_850_000,
    surface_m2: 120,
    rooms: 5,
    bedrooms: 3,
    bathrooms: 2,
    floor: 3,
    city: 'Casablanca',
    district: 'Maarif',
    feature_keys: [
      'terrace',
      'elevator',
      'parking',
      'concierge',
      'double_glazing',
      'title_deed',
      'near_tram',
      'near_schools',
      'security',
      'equipped_kitchen',
      'moroccan_lounge',
    ],
    ...overrides,
  });
}

export const TEXT_SOURCE: ListingSource = { kind: 'text', portal: null, listing_id: null, url: null };
