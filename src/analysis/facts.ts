import type { ListingFacts } from '../core/types.js';

/** A ListingFacts with nothing known: every source starts from this and fills what it states. */
export function emptyFacts(): ListingFacts {
  return {
    title: null,
    transaction: null,
    property_type: null,
    price_mad: null,
    price_original: null,
    surface_m2: null,
    surface_total_m2: null,
    rooms: null,
    bedrooms: null,
    bathrooms: null,
    toilets: null,
    floor: null,
    city: null,
    district: null,
    offers: [],
    feature_keys: [],
    photos: [],
    description: null,
    warnings: [],
    provenance: {},
  };
}
