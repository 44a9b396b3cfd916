import type { AudienceRequest, Language, ListingFacts, ListingSource, Property } from '../core/types.js';

export interface EnrichOptions {
  language: Language;
  audience: AudienceRequest;
}

/**
 * Turns facts into the analysis `property` (DESIGN §2.2): labels, price per m², market
 * comparison, buyer profile, angles and plausibility warnings. Pure and deterministic.
 * PLACEHOLDER: replaced by the real enrichment (issue 2).
 */
export function buildProperty(facts: ListingFacts, source: ListingSource, options: EnrichOptions): Property {
  return {
    title: facts.title ?? '',
    city: facts.city,
    district: facts.district,
    price_mad: facts.price_mad,
    currency: 'MAD',
    features: [...facts.feature_keys],
    marketing_angles: [],
    transaction: facts.transaction,
    property_type: facts.property_type,
    surface_m2: facts.surface_m2,
    surface_total_m2: facts.surface_total_m2,
    rooms: facts.rooms,
    bedrooms: facts.bedrooms,
    bathrooms: facts.bathrooms,
    floor: facts.floor,
    feature_keys: [...facts.feature_keys],
    price_per_m2_mad: null,
    price_original: facts.price_original,
    market: null,
    target_buyer: {
      primary: options.audience === 'auto' ? 'family' : options.audience,
      segments: [],
      demographics: { household: '', age_range: '', budget_mad: null, financing: '' },
    },
    photos: [...facts.photos],
    source,
    language: options.language,
    warnings: [...facts.warnings],
  };
}
