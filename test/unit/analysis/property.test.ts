import { describe, expect, it } from 'vitest';
import { buildProperty } from '../../../src/analysis/property.js';
import type { ListingSource } from '../../../src/core/types.js';
import { demoFacts, listing, PROPERTY_FIELDS, TEXT_SOURCE } from '../../helpers/property-fixtures.js';

describe('buildProperty', () => {
  it('builds the analysis property of docs/analysis.md from the demo facts', () => {
    const p = buildProperty(demoFacts(), TEXT_SOURCE, { language: 'fr', audience: 'auto' });
    expect(Object.keys(p)).toEqual(PROPERTY_FIELDS);
    expect(p).toMatchObject({
      title: 'Appartement 3 chambres — Maarif, Casablanca',
      city: 'Casablanca',
      district: 'Maarif',
      price_mad: 1_850_000,
      currency: 'MAD',
      transaction: 'sale',
      property_type: 'apartment',
      surface_m2: 120,
      rooms: 5,
      bedrooms: 3,
      bathrooms: 2,
      floor: 3,
      price_per_m2_mad: 15417,
      price_original: null,
      market: { area: 'Maârif, Casablanca', median_price_per_m2_mad: 16892, position: 'in_line', delta_pct: -8.7, confidence: 'high' },
      target_buyer: { primary: 'family' },
      source: TEXT_SOURCE,
      language: 'fr',
      warnings: [],
    });
    expect(p.features.slice(0, 3)).toEqual(['Terrasse', 'Ascenseur', 'Parking']);
    expect(p.feature_keys.slice(0, 3)).toEqual(['terrace', 'elevator', 'parking']);
    expect(p.marketing_angles.length).toBeGreaterThanOrEqual(3);
    expect(p.target_buyer.segments).toHaveLength(8);
    expect(p.target_buyer.demographics.budget_mad).toEqual([1_550_000, 2_150_000]);
  });

  it('writes labels, title, segments and angles in the requested language', () => {
    const ar = buildProperty(demoFacts(), TEXT_SOURCE, { language: 'ar', audience: 'auto' });
    expect(ar.title).toBe('شقة 3 غرف نوم — المعاريف، الدار البيضاء');
    expect(ar.features.slice(0, 3)).toEqual(['تراس', 'مصعد', 'موقف سيارات']);
    expect(ar.target_buyer.segments[0]?.label).toBe('عائلة');
    expect(ar.language).toBe('ar');
    // Facts stay as the listing states them, whatever the language.
    expect(ar.city).toBe('Casablanca');
    const en = buildProperty(demoFacts(), TEXT_SOURCE, { language: 'en', audience: 'investor' });
    expect(en.features.slice(0, 3)).toEqual(['Terrace', 'Elevator', 'Parking']);
    expect(en.target_buyer.primary).toBe('investor');
    expect(en.target_buyer.segments.find((s) => s.key === 'investor')?.label).toBe('Investor');
  });

  it("keeps the listing's own title, photos, source and original price", () => {
    const source: ListingSource = { kind: 'url', portal: 'mubawab', listing_id: '8418668', url: 'https://www.mubawab.ma/fr/a/8418668/x' };
    const facts = demoFacts({
      title: 'Magnifique appartement Maarif',
      photos: ['https://example.test/1.jpg'],
      price_original: { amount: 170_000, currency: 'EUR' },
    });
    const p = buildProperty(facts, source, { language: 'en', audience: 'auto' });
    expect(p.title).toBe('Magnifique appartement Maarif');
    expect(p.photos).toEqual(['https://example.test/1.jpg']);
    expect(p.source).toEqual(source);
    expect(p.price_original).toEqual({ amount: 170_000, currency: 'EUR' });
    expect(JSON.stringify(p)).not.toContain('description');
  });

  it('adds plausibility warnings to the listing warnings, each code and message once', () => {
    const duplicate = {
      code: 'SURFACE_IMPLAUSIBLE',
      field: 'surface' as const,
      message: 'A surface of 1 m² is implausible for an apartment (expected 15–1 000 m²).',
    };
    const facts = listing({
      property_type: 'apartment',
      surface_m2: 1,
      warnings: [{ code: 'KEY_MONEY_SCHEME', message: 'sarout' }, duplicate, { code: 'KEY_MONEY_SCHEME', message: 'sarout' }],
    });
    const p = buildProperty(facts, TEXT_SOURCE, { language: 'en', audience: 'auto' });
    expect(p.warnings).toEqual([{ code: 'KEY_MONEY_SCHEME', message: 'sarout' }, duplicate]);
  });

  it('keeps key-money schemes out of the market comparison', () => {
    const p = buildProperty(demoFacts({ price_mad: 250_000, warnings: [{ code: 'KEY_MONEY_SCHEME', message: 'sarout' }] }), TEXT_SOURCE, {
      language: 'fr',
      audience: 'auto',
    });
    expect(p.market).toBeNull();
    expect(p.price_per_m2_mad).toBe(2083);
    expect(p.warnings.map((w) => w.code)).toEqual(['KEY_MONEY_SCHEME']);
  });

  it('leaves unknown facts null and still produces a usable analysis', () => {
    const p = buildProperty(listing({ city: 'Fès' }), TEXT_SOURCE, { language: 'fr', audience: 'auto' });
    expect(p).toMatchObject({ title: 'Bien immobilier — Fès', price_mad: null, price_per_m2_mad: null, market: null, features: [] });
    expect(p.target_buyer.demographics.budget_mad).toBeNull();
    expect(p.marketing_angles.length).toBeGreaterThanOrEqual(3);
  });

  it('is pure: the same facts give the same JSON, and the facts are not changed', () => {
    const facts = demoFacts();
    const before = JSON.stringify(facts);
    const a = JSON.stringify(buildProperty(facts, TEXT_SOURCE, { language: 'fr', audience: 'auto' }));
    const b = JSON.stringify(buildProperty(facts, TEXT_SOURCE, { language: 'fr', audience: 'auto' }));
    expect(a).toBe(b);
    expect(JSON.stringify(facts)).toBe(before);
  });
});
