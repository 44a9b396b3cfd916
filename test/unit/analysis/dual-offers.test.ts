import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';
import { DUAL_OFFER, extractFacts } from '../../../src/analysis/text/extract.js';

const codes = (text: string): string[] => extractFacts(text).warnings.map((w) => w.code);

describe('dual offers', () => {
  it('reports both deals, the one named first as the main offer', () => {
    const facts = extractFacts('À vendre ou à louer : bureau 80 m² à Gauthier, vente 1 200 000 DH, location 9 000 DH/mois');
    expect(facts.offers).toEqual([
      { transaction: 'sale', price_mad: 1_200_000, period: null },
      { transaction: 'rent', price_mad: 9_000, period: 'month' },
    ]);
    expect(facts.transaction).toBe('sale');
    expect(facts.price_mad).toBe(1_200_000);
    expect(facts.warnings.find((w) => w.code === DUAL_OFFER)?.message).toMatch(
      /for sale at 1 200 000 MAD and for rent at 9 000 MAD a month/,
    );
  });

  it('takes the rent as the main offer when the listing opens with it, even without its price', () => {
    const facts = extractFacts('Villa à louer pour usage professionnel, ou à vendre à 9 500 000 Dhs');
    expect(facts.offers).toEqual([
      { transaction: 'rent', price_mad: null, period: 'month' },
      { transaction: 'sale', price_mad: 9_500_000, period: null },
    ]);
    expect(facts.transaction).toBe('rent');
    expect(facts.price_mad).toBeNull();
  });

  it('reads Arabic and Darija "or"', () => {
    const arabic = extractFacts('شقة للبيع أو للكراء في أكدال الرباط، الثمن 1500000 درهم، الكراء 8000 درهم شهريا');
    expect(arabic.offers.map((o) => [o.transaction, o.price_mad])).toEqual([
      ['sale', 1_500_000],
      ['rent', 8_000],
    ]);
    expect(codes('Villa lbi3 wla lkra f Bouskoura, taman 4 000 000 dh')).toContain(DUAL_OFFER);
  });

  it('does not take a sale that quotes its current rent for a dual offer', () => {
    const facts = extractFacts('Appartement à vendre à Maârif, actuellement loué 6 000 DH/mois, prix 1 500 000 DH');
    expect(facts.offers).toEqual([{ transaction: 'sale', price_mad: 1_500_000, period: null }]);
    expect(facts.warnings.map((w) => w.code)).not.toContain(DUAL_OFFER);
  });

  it('compares the main offer with the market and carries both offers in the analysis', async () => {
    const property = await analyzeListing({
      description: 'Appartement à vendre ou à louer, 100 m² à Maârif Casablanca, vente 1 500 000 DH, location 9 000 DH/mois',
    });
    expect(property.transaction).toBe('sale');
    expect(property.offers).toHaveLength(2);
    expect(property.offers[0]).toEqual({ transaction: 'sale', price_mad: 1_500_000, period: null });
    expect(property.price_per_m2_mad).toBe(15_000);
    expect(property.market?.median_price_per_m2_mad).toBeGreaterThan(5_000);
    expect(property.warnings.map((w) => w.code)).toContain(DUAL_OFFER);
    // The angles pitch the sale and mention the rent once.
    expect(property.marketing_angles.filter((a) => /louer/.test(a))).toEqual([
      expect.stringMatching(/^Également à louer : 9[\s\u202f\u00a0]000 DH par mois\.$/),
    ]);
    const english = await analyzeListing({
      language: 'en',
      description: 'Villa à louer pour usage professionnel, ou à vendre à 9 500 000 Dhs, Souissi Rabat, 600 m²',
    });
    expect(english.marketing_angles).toContainEqual(expect.stringMatching(/^Also for sale: 9[,\s]500[,\s]000/));
  });
});
