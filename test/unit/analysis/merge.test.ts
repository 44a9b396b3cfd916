import { describe, expect, it } from 'vitest';
import { emptyFacts } from '../../../src/analysis/facts.js';
import { mergeFacts } from '../../../src/analysis/merge.js';
import type { ListingFacts } from '../../../src/core/types.js';

function facts(values: Partial<ListingFacts>): ListingFacts {
  return { ...emptyFacts(), ...values };
}

const contradictions = (merged: ListingFacts): string[] => merged.warnings.filter((w) => w.code === 'CONTRADICTION').map((w) => w.message);

describe('mergeFacts: page fields win, the text fills gaps', () => {
  it('keeps page numbers and fills what the page does not state', () => {
    const merged = mergeFacts(
      facts({ price_mad: 1_950_000, surface_m2: 147, bedrooms: 3, city: 'Casablanca' }),
      facts({ price_mad: 1_950_000, bathrooms: 2, rooms: 5, transaction: 'sale', district: 'Maârif' }),
    );
    expect(merged).toMatchObject({ price_mad: 1_950_000, surface_m2: 147, bedrooms: 3, bathrooms: 2, rooms: 5, transaction: 'sale' });
    expect(merged.warnings).toEqual([]);
  });

  it('adds the text features after the page ones, once each', () => {
    const merged = mergeFacts(facts({ feature_keys: ['elevator', 'parking'] }), facts({ feature_keys: ['parking', 'pool'] }));
    expect(merged.feature_keys).toEqual(['elevator', 'parking', 'pool']);
  });

  it('keeps the page photos and joins the two texts', () => {
    const merged = mergeFacts(facts({ photos: ['https://a/1.jpg'], description: 'page text' }), facts({ description: 'user text' }));
    expect(merged.photos).toEqual(['https://a/1.jpg']);
    expect(merged.description).toBe('page text\n\nuser text');
  });

  it('moves the price and its original currency together', () => {
    const fromText = mergeFacts(facts({}), facts({ price_mad: 918_000, price_original: { amount: 85_000, currency: 'EUR' } }));
    expect(fromText.price_original).toEqual({ amount: 85_000, currency: 'EUR' });
    const fromPage = mergeFacts(
      facts({ price_mad: 900_000 }),
      facts({ price_mad: 918_000, price_original: { amount: 85_000, currency: 'EUR' } }),
    );
    expect(fromPage.price_original).toBeNull();
  });

  it('takes a district from the text only in the page city', () => {
    expect(mergeFacts(facts({ city: 'Rabat' }), facts({ city: 'Fès', district: 'Agdal' })).district).toBeNull();
    expect(mergeFacts(facts({ city: 'Rabat' }), facts({ city: 'Rabat', district: 'Agdal' })).district).toBe('Agdal');
  });
});

describe('mergeFacts: contradictions become warnings', () => {
  it('flags the floor of avito-3 (ground floor in the fields, 5th floor in the text)', () => {
    const merged = mergeFacts(facts({ floor: 0 }), facts({ floor: 5 }));
    expect(merged.floor).toBe(0);
    expect(contradictions(merged)).toEqual([
      "Floor: the listing's fields say the ground floor (0) but its text says floor 5; the fields' value is kept.",
    ]);
  });

  it('flags a different price, quoting the original currency', () => {
    const merged = mergeFacts(
      facts({ price_mad: 918_000, price_original: { amount: 85_000, currency: 'EUR' } }),
      facts({ price_mad: 972_000, price_original: { amount: 90_000, currency: 'EUR' } }),
    );
    expect(merged.price_mad).toBe(918_000);
    expect(contradictions(merged)[0]).toMatch(/Price: .* say 85 000 EUR but its text says 90 000 EUR/);
  });

  it('does not flag a rounding difference in the price', () => {
    expect(contradictions(mergeFacts(facts({ price_mad: 1_950_000 }), facts({ price_mad: 1_955_000 })))).toEqual([]);
  });

  it('accepts a text surface that matches the total surface', () => {
    expect(contradictions(mergeFacts(facts({ surface_m2: 140, surface_total_m2: 281 }), facts({ surface_m2: 281 })))).toEqual([]);
    expect(contradictions(mergeFacts(facts({ surface_m2: 140, surface_total_m2: 281 }), facts({ surface_m2: 90 })))[0]).toMatch(/Surface/);
  });

  it('flags room counts, sale against rent, and another kind of property', () => {
    const merged = mergeFacts(
      facts({ bedrooms: 3, bathrooms: 1, transaction: 'sale', property_type: 'apartment' }),
      facts({ bedrooms: 2, bathrooms: 1, transaction: 'rent', property_type: 'villa' }),
    );
    expect(contradictions(merged).map((m) => m.split(':')[0])).toEqual(['Bedrooms', 'Transaction', 'Property type']);
  });

  it('does not flag a studio in a flat listing', () => {
    expect(contradictions(mergeFacts(facts({ property_type: 'apartment' }), facts({ property_type: 'studio' })))).toEqual([]);
  });

  it('keeps the warnings of both sides once each', () => {
    const scheme = { code: 'KEY_MONEY_SCHEME', message: 'sarout' };
    const merged = mergeFacts(facts({ warnings: [scheme] }), facts({ warnings: [scheme] }));
    expect(merged.warnings).toEqual([scheme]);
  });
});
