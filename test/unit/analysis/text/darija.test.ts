import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

describe('Darija and Arabic-script words', () => {
  it('reads the Darija sentence of a private seller', () => {
    const facts = extractFacts('Bghit nbi3 dar f Hay Riad Rabat, 250m2, 4 bit, 2 hammam, taman 3,5 melyoun dh');
    expect(facts).toMatchObject({
      property_type: 'house',
      transaction: 'sale',
      surface_m2: 250,
      bedrooms: 4,
      bathrooms: 2,
      price_mad: 3_500_000,
      city: 'Rabat',
      district: 'Hay Riad',
    });
  });

  it('reads the same listing in Arabic script (350 مليون = 350 million centimes)', () => {
    const facts = extractFacts('نبيع دار في حي الرياض الرباط، 250 متر، 4 بيوت، 2 حمام ومرحاض، الثمن 350 مليون');
    expect(facts).toMatchObject({
      property_type: 'house',
      transaction: 'sale',
      bedrooms: 4,
      bathrooms: 2,
      toilets: 1,
      price_mad: 3_500_000,
      city: 'Rabat',
    });
  });

  it('reads tabaq (floor), tamane and mlyoun, and keeps the place Dar Bouazza from being a house', () => {
    const facts = extractFacts('Chqa f Dar Bouazza, tabaq 3, 2 bit, tamane 95 mlyoun');
    expect(facts).toMatchObject({ property_type: 'apartment', city: 'Dar Bouazza', floor: 3, bedrooms: 2, price_mad: 950_000 });
  });

  it('reads a mixed French–Darija rental', () => {
    const facts = extractFacts('Dar l kra f Tit Mellil, 3 byout, salon, 2500 dh');
    expect(facts).toMatchObject({ property_type: 'house', transaction: 'rent', bedrooms: 3, price_mad: 2500, city: 'Tit Mellil' });
  });
});
