import type { Property } from '../../src/core/types.js';

/** An analysed listing like the demo's (what `analyze --json` prints), with overrides. */
export function demoProperty(overrides: Partial<Property> = {}): Property {
  return {
    title: 'Appartement 3 chambres avec terrasse à vendre — Maârif, Casablanca',
    city: 'Casablanca',
    district: 'Maârif',
    price_mad: 1_850_000,
    currency: 'MAD',
    features: ['Terrasse', 'Ascenseur', 'Parking', 'Concierge', 'Sécurité', 'Cuisine équipée'],
    marketing_angles: [
      'Trois chambres dont une suite parentale, et une terrasse ensoleillée de 15 m².',
      'À deux pas du tramway et des écoles.',
    ],
    transaction: 'sale',
    property_type: 'apartment',
    surface_m2: 120,
    surface_total_m2: null,
    rooms: 5,
    bedrooms: 3,
    bathrooms: 2,
    toilets: null,
    floor: 3,
    metro_area: 'Grand Casablanca',
    offers: [{ transaction: 'sale', price_mad: 1_850_000, period: null }],
    feature_keys: ['terrace', 'elevator', 'parking', 'concierge', 'security', 'equipped_kitchen'],
    price_per_m2_mad: 15_417,
    price_original: null,
    market: null,
    target_buyer: { primary: 'family', segments: [], demographics: { household: '', age_range: '', budget_mad: null, financing: '' } },
    photos: [],
    source: { kind: 'text', portal: null, listing_id: null, url: null },
    language: 'fr',
    warnings: [],
    provenance: {},
    ...overrides,
  };
}

export const LANDSCAPE_PHOTO = { width: 2000, height: 1333 };
export const PORTRAIT_PHOTO = { width: 1333, height: 2000 };

export function photos(count: number, size = LANDSCAPE_PHOTO): { width: number; height: number }[] {
  return Array.from({ length: count }, () => ({ ...size }));
}
