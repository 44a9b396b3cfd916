import { describe, expect, it } from 'vitest';
import { budgetAround, buildTargetBuyer } from '../../../src/analysis/audience.js';
import { compareWithMarket, impliedGrossYield } from '../../../src/analysis/market/compare.js';
import { AUDIENCES, type AudienceRequest, type Language, type ListingFacts } from '../../../src/core/types.js';
import { demoFacts, listing } from '../../helpers/property-fixtures.js';

function buyer(facts: ListingFacts, language: Language = 'fr', audience: AudienceRequest = 'auto') {
  const { price_per_m2_mad: perM2, market } = compareWithMarket(facts);
  return buildTargetBuyer({ facts, perM2, market, grossYield: impliedGrossYield(facts, perM2), language }, audience);
}

const segment = (facts: ListingFacts, key: string, language: Language = 'fr') => buyer(facts, language).segments.find((s) => s.key === key);

describe('target buyer', () => {
  it('scores all 8 audiences, best first, with scores in 0..1 to 2 decimals', () => {
    const { segments } = buyer(demoFacts());
    expect(segments.map((s) => s.key).sort()).toEqual([...AUDIENCES].sort());
    for (const s of segments) {
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
      expect(Math.round(s.score * 100) / 100).toBe(s.score);
    }
    expect(segments.map((s) => s.score)).toEqual([...segments.map((s) => s.score)].sort((a, b) => b - a));
  });

  it('sees a family in the demo flat, for the reasons the listing gives', () => {
    const result = buyer(demoFacts());
    expect(result.primary).toBe('family');
    const family = result.segments[0];
    expect(family?.label).toBe('Famille');
    expect(family?.reasons).toEqual(expect.arrayContaining(['3 chambres', 'proche des écoles', '120 m²']));
    expect(buyer(demoFacts(), 'en').segments[0]?.reasons).toEqual(expect.arrayContaining(['3 bedrooms', 'near schools']));
    expect(buyer(demoFacts(), 'ar').segments[0]?.reasons).toEqual(expect.arrayContaining(['3 غرف نوم', 'قرب المدارس']));
  });

  it('sees an investor in a furnished studio for sale near the tram, and a student in the same studio for rent', () => {
    const studio = listing({
      property_type: 'studio',
      surface_m2: 35,
      city: 'Casablanca',
      district: 'Gauthier',
      feature_keys: ['furnished', 'near_tram'],
    });
    const sale = buyer({ ...studio, transaction: 'sale', price_mad: 650_000 });
    expect(sale.primary).toBe('investor');
    expect(sale.segments[0]?.reasons).toEqual(expect.arrayContaining(['studio', 'meublé', 'prix au m² 27,6 % sous la médiane du secteur']));
    const rent = buyer({ ...studio, transaction: 'rent', price_mad: 4_500 });
    expect(rent.primary).toBe('student');
    expect(segment({ ...studio, transaction: 'rent', price_mad: 4_500 }, 'family')?.score).toBeLessThan(0.1);
  });

  it('sees a luxury buyer in a 9 M DH Palmeraie villa with a pool', () => {
    const villa = listing({
      transaction: 'sale',
      property_type: 'villa',
      price_mad: 9_000_000,
      surface_m2: 600,
      city: 'Marrakech',
      district: 'Palmeraie',
      feature_keys: ['pool', 'garden'],
    });
    const result = buyer(villa);
    expect(result.primary).toBe('luxury');
    expect(result.segments[0]?.reasons).toEqual(expect.arrayContaining(['piscine', 'adresse prestigieuse (Palmeraie)']));
  });

  it('sees a young couple in a small new flat eligible for the housing aid', () => {
    const flat = listing({
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 450_000,
      surface_m2: 65,
      bedrooms: 2,
      city: 'Kénitra',
      feature_keys: ['new_build'],
    });
    const result = buyer(flat);
    expect(result.primary).toBe('young_couple');
    expect(result.segments[0]?.reasons[0]).toContain('70 000 DH');
    expect(segment({ ...flat, price_mad: 280_000 }, 'young_couple')?.reasons[0]).toContain('100 000 DH');
  });

  it('sees an MRE in a titled, gated flat with a garage in Tanger', () => {
    const flat = listing({
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 900_000,
      surface_m2: 90,
      bedrooms: 2,
      city: 'Tanger',
      feature_keys: ['title_deed', 'garage', 'gated_community'],
    });
    const result = buyer(flat, 'en');
    expect(result.primary).toBe('mre');
    expect(result.segments[0]?.reasons).toEqual(expect.arrayContaining(['popular with MREs (Tanger)', 'title deed']));
  });

  it('sees an expatriate in a furnished rental in Racine, and a retiree in a ground-floor flat in Agadir', () => {
    const racine = listing({
      transaction: 'rent',
      property_type: 'apartment',
      price_mad: 15_000,
      surface_m2: 120,
      bedrooms: 2,
      city: 'Casablanca',
      district: 'Racine',
      feature_keys: ['furnished', 'parking', 'air_conditioning'],
    });
    expect(buyer(racine).primary).toBe('expat');
    const agadir = listing({
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 1_400_000,
      surface_m2: 95,
      bedrooms: 2,
      floor: 0,
      city: 'Agadir',
      district: 'Founty',
      feature_keys: ['terrace', 'security'],
    });
    const result = buyer(agadir);
    expect(result.primary).toBe('retiree');
    expect(result.segments[0]?.reasons).toEqual(expect.arrayContaining(['ville prisée des retraités (Agadir)', 'au rez-de-chaussée']));
  });

  it('takes the requested audience as primary without changing the scores', () => {
    const auto = buyer(demoFacts());
    const investor = buyer(demoFacts(), 'fr', 'investor');
    expect(investor.primary).toBe('investor');
    expect(investor.segments).toEqual(auto.segments);
    expect(investor.demographics.household).not.toBe(auto.demographics.household);
  });

  it('describes the demographics of the primary audience in the language, with a budget around the price', () => {
    const fr = buyer(demoFacts()).demographics;
    expect(fr).toMatchObject({ household: 'Couple avec enfants', age_range: '30-50', budget_mad: [1_550_000, 2_150_000] });
    expect(fr.financing).toMatch(/crédit/i);
    expect(buyer(demoFacts(), 'ar').demographics.household).toMatch(/[\u0600-\u06ff]/);
    expect(buyer(demoFacts({ transaction: 'rent', price_mad: 9_000 }), 'en').demographics.financing).toMatch(/deposit/);
    expect(buyer(demoFacts({ price_mad: null })).demographics.budget_mad).toBeNull();
  });

  it('rounds budgets to sensible steps', () => {
    expect(budgetAround(9_000, 'rent')).toEqual([7_500, 10_500]);
    expect(budgetAround(450_000, 'sale')).toEqual([380_000, 520_000]);
    expect(budgetAround(null, 'sale')).toBeNull();
  });

  it('ranks deterministically when the listing says almost nothing', () => {
    const thin = listing({ city: 'Casablanca' });
    expect(buyer(thin)).toEqual(buyer(thin));
    expect(buyer(thin).segments.every((s) => s.score <= 0.2)).toBe(true);
  });
});
