import { describe, expect, it } from 'vitest';
import { plausibilityWarnings } from '../../../src/analysis/plausibility.js';
import { buildProperty } from '../../../src/analysis/property.js';
import type { ListingFacts } from '../../../src/core/types.js';
import { demoFacts, listing, TEXT_SOURCE } from '../../helpers/property-fixtures.js';

const codes = (facts: ListingFacts): string[] => plausibilityWarnings(facts).map((w) => w.code);

describe('plausibility warnings', () => {
  it('raises nothing on a sane listing', () => {
    expect(plausibilityWarnings(demoFacts())).toEqual([]);
    expect(plausibilityWarnings(demoFacts({ transaction: 'rent', price_mad: 12_000 }))).toEqual([]);
    expect(
      plausibilityWarnings(
        listing({ transaction: 'sale', property_type: 'land', surface_m2: 5_000, price_mad: 1_000_000, city: 'Marrakech' }),
      ),
    ).toEqual([]);
  });

  it('flags a 1 m² or a 20 000 m² flat, quoting the surface as stated', () => {
    const tiny = plausibilityWarnings(listing({ property_type: 'apartment', surface_m2: 1 }));
    expect(tiny).toEqual([{ code: 'SURFACE_IMPLAUSIBLE', field: 'surface', message: expect.stringContaining('1 m²') }]);
    const huge = plausibilityWarnings(listing({ property_type: 'apartment', surface_m2: 20_000 }));
    expect(huge[0]?.code).toBe('SURFACE_IMPLAUSIBLE');
    expect(huge[0]?.message).toContain('20 000 m²');
    expect(codes(listing({ property_type: 'apartment', surface_m2: 120, surface_total_m2: 60 }))).toEqual(['SURFACE_IMPLAUSIBLE']);
    // A two-storey villa may have more floor area than plot.
    expect(codes(listing({ property_type: 'villa', surface_m2: 300, surface_total_m2: 200 }))).toEqual([]);
    expect(codes(listing({ property_type: 'villa', surface_m2: 8_000, surface_total_m2: 1_500 }))).toContain('SURFACE_IMPLAUSIBLE');
  });

  it('flags a price per m² outside the research bounds for the transaction', () => {
    const cheap = plausibilityWarnings(demoFacts({ price_mad: 150_000 }));
    expect(cheap.map((w) => w.code)).toEqual(['PRICE_PER_M2_IMPLAUSIBLE']);
    expect(cheap[0]?.message).toContain('150 000 MAD for 120 m² gives 1 250 MAD/m²');
    expect(codes(demoFacts({ price_mad: 12_000_000 }))).toEqual(['PRICE_PER_M2_IMPLAUSIBLE']);
    expect(codes(demoFacts({ transaction: 'rent', price_mad: 100_000 }))).toEqual(['PRICE_PER_M2_IMPLAUSIBLE']);
    expect(codes(demoFacts({ transaction: 'rent', price_mad: 1_000 }))).toEqual(['PRICE_PER_M2_IMPLAUSIBLE']);
  });

  it('flags a price per m² far from the city median (docs/analysis.md)', () => {
    // 25,000 DH/m² is plausible in Casablanca's CFC, not 5× the Oujda median (4,700).
    const oujda = plausibilityWarnings(
      listing({ transaction: 'sale', property_type: 'apartment', city: 'Oujda', surface_m2: 100, price_mad: 2_500_000 }),
    );
    expect(oujda).toEqual([
      { code: 'PRICE_PER_M2_IMPLAUSIBLE', field: 'price', message: expect.stringContaining('Oujda median of 4 700') },
    ]);
    expect(codes(demoFacts({ district: 'CFC', price_mad: 3_000_000 }))).toEqual([]);
  });

  it('flags a sale priced like a rent, and a rent priced like a sale', () => {
    expect(codes(demoFacts({ price_mad: 12_000, surface_m2: null }))).toEqual(['SALE_PRICE_LOOKS_LIKE_RENT']);
    expect(codes(demoFacts({ price_mad: 12_000 }))).toEqual(['PRICE_PER_M2_IMPLAUSIBLE', 'SALE_PRICE_LOOKS_LIKE_RENT']);
    expect(codes(listing({ transaction: 'sale', property_type: 'land', price_mad: 25_000 }))).toEqual([]);
    expect(codes(demoFacts({ transaction: 'rent', price_mad: 1_500_000, surface_m2: null }))).toEqual(['RENT_LOOKS_LIKE_SALE']);
    expect(codes(listing({ transaction: 'rent', property_type: 'office', price_mad: 300_000 }))).toEqual([]);
  });

  it('flags a sale price too small to be one (the centimes trap)', () => {
    const warnings = plausibilityWarnings(demoFacts({ price_mad: 75, surface_m2: null }));
    expect(warnings).toEqual([{ code: 'PRICE_IMPLAUSIBLE', field: 'price', message: expect.stringContaining('750 000 MAD') }]);
    expect(codes(demoFacts({ transaction: 'rent', price_mad: 300, surface_m2: null }))).toEqual(['PRICE_IMPLAUSIBLE']);
  });

  it('flags more bedrooms than the surface or the room count allows', () => {
    expect(codes(listing({ property_type: 'apartment', bedrooms: 5, surface_m2: 40 }))).toEqual(['ROOMS_IMPLAUSIBLE']);
    expect(codes(listing({ property_type: 'apartment', bedrooms: 2, surface_m2: 40 }))).toEqual([]);
    expect(codes(listing({ bedrooms: 4, rooms: 3 }))).toEqual(['ROOMS_IMPLAUSIBLE']);
    expect(codes(listing({ property_type: 'studio', bedrooms: 2 }))).toEqual(['ROOMS_IMPLAUSIBLE']);
    expect(codes(listing({ property_type: 'villa', bedrooms: 45 }))).toEqual(['ROOMS_IMPLAUSIBLE']);
  });

  it('flags impossible floors', () => {
    expect(codes(demoFacts({ floor: 75 }))).toEqual(['FLOOR_IMPLAUSIBLE']);
    expect(codes(demoFacts({ floor: -5 }))).toEqual(['FLOOR_IMPLAUSIBLE']);
    expect(codes(demoFacts({ floor: 0 }))).toEqual([]);
    expect(codes(demoFacts({ floor: -1 }))).toEqual([]);
    expect(codes(listing({ property_type: 'land', floor: 2 }))).toEqual(['FLOOR_IMPLAUSIBLE']);
  });

  it('keeps implausible values as stated in the analysis', () => {
    const property = buildProperty(
      listing({ property_type: 'apartment', surface_m2: 1, bedrooms: 1, city: 'Khemisset', transaction: 'sale' }),
      TEXT_SOURCE,
      {
        language: 'fr',
        audience: 'auto',
      },
    );
    expect(property.surface_m2).toBe(1);
    expect(property.bedrooms).toBe(1);
    expect(property.warnings.map((w) => w.code)).toEqual(['SURFACE_IMPLAUSIBLE', 'ROOMS_IMPLAUSIBLE']);
  });
});
