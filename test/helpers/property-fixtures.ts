import { emptyFacts } from '../../src/analysis/facts.js';
import type { ListingFacts, ListingSource } from '../../src/core/types.js';

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

/** The `property` fields of docs/analysis.md, in order: the contract's eight, then the extensions. */
export const PROPERTY_FIELDS = [
  'title',
  'city',
  'district',
  'price_mad',
  'currency',
  'features',
  'marketing_angles',
  'transaction',
  'property_type',
  'surface_m2',
  'surface_total_m2',
  'rooms',
  'bedrooms',
  'bathrooms',
  'toilets',
  'floor',
  'metro_area',
  'offers',
  'feature_keys',
  'price_per_m2_mad',
  'price_original',
  'market',
  'target_buyer',
  'photos',
  'source',
  'language',
  'warnings',
  'held_back',
  'provenance',
];
