import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';
import { TITLE_MAX_LENGTH } from '../../../../src/analysis/text/title.js';

describe('extractFacts on whole listings', () => {
  it('reads a French sale listing', () => {
    const facts = extractFacts(
      'Appartement 3 chambres avec terrasse — Maarif\n' +
        'Bel appartement de 120 m² au 3ème étage, 3 chambres, 2 salles de bain, ascenseur, parking. Prix : 1 850 000 DH.',
    );
    expect(facts).toMatchObject({
      title: 'Appartement 3 chambres avec terrasse — Maarif',
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 1_850_000,
      surface_m2: 120,
      bedrooms: 3,
      bathrooms: 2,
      floor: 3,
      city: 'Casablanca',
      district: 'Maârif',
      feature_keys: ['terrace', 'elevator', 'parking'],
      warnings: [],
    });
  });

  it('reads an Arabic listing with the centimes trap', () => {
    const facts = extractFacts('شقة للبيع بالجديدة 120 مليون سنتيم\nمساحتها 82 متر مربع، 2 بيوت، صالون، مطبخ، حمام، الطابق الثالث، مصعد');
    expect(facts).toMatchObject({
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 1_200_000,
      surface_m2: 82,
      bedrooms: 2,
      bathrooms: 1,
      floor: 3,
      city: 'El Jadida',
      feature_keys: ['elevator'],
    });
  });

  it('reads a Darija rental written in Latin letters', () => {
    const facts = extractFacts('chqa lkra f tanja\n3 byout w salon, kouzina mjehza, 2500dh f chhar, sta7');
    expect(facts).toMatchObject({
      transaction: 'rent',
      property_type: 'apartment',
      price_mad: 2_500,
      bedrooms: 3,
      city: 'Tanger',
      feature_keys: ['terrace', 'equipped_kitchen'],
    });
  });

  it('reads an English listing', () => {
    const facts = extractFacts('Flat for sale in Casablanca Maarif\n3 bedrooms, 2 baths, 120 sqm, 2nd floor, lift, price 1,650,000 MAD');
    expect(facts).toMatchObject({
      transaction: 'sale',
      property_type: 'apartment',
      price_mad: 1_650_000,
      surface_m2: 120,
      bedrooms: 3,
      bathrooms: 2,
      floor: 2,
      city: 'Casablanca',
      district: 'Maârif',
      feature_keys: ['elevator'],
    });
  });

  it('leaves every unstated fact null', () => {
    const facts = extractFacts('Bel appartement lumineux');
    expect(facts).toMatchObject({
      transaction: null,
      price_mad: null,
      surface_m2: null,
      surface_total_m2: null,
      rooms: null,
      bedrooms: null,
      bathrooms: null,
      floor: null,
      city: null,
      district: null,
      feature_keys: [],
    });
    expect(facts.property_type).toBe('apartment');
  });

  it('flags key-money and pledge schemes', () => {
    const sarout = extractFacts('saroute appartement Centre ville casa 280 000 dh');
    expect(sarout.warnings.map((w) => w.code)).toEqual(['KEY_MONEY_SCHEME']);
    expect(sarout.warnings[0]?.message).toMatch(/sarout/);
    expect(extractFacts('شقة للرهن في طنجة').warnings.map((w) => w.code)).toEqual(['KEY_MONEY_SCHEME']);
    expect(extractFacts('Appartement bel tanazul, 2 bit').warnings[0]?.message).toMatch(/tanazul/);
    expect(extractFacts('Local à louer, pas de porte 300 000 DH').warnings[0]?.message).toMatch(/key money/);
    expect(extractFacts('Appartement à louer à Salé').warnings).toEqual([]);
  });

  it('flags a text that contradicts itself, and not a programme with several units', () => {
    const codes = (text: string): string[] => extractFacts(text).warnings.map((w) => w.code);
    expect(codes('Appartement 3 chambres à Marrakech\n2 chambres, salon, cuisine. 700.000 DH')).toEqual(['CONTRADICTION']);
    expect(codes('Appartement à vendre 1 200 000 DH\nPrix: 1 350 000 DH')).toEqual(['CONTRADICTION']);
    expect(codes('Appartement de 120 m²\nsuperficie : 90 m²')).toEqual(['CONTRADICTION']);
    expect(codes('Appartement 3 chambres\n3 chambres dont une suite parentale, prix 900 000 DH')).toEqual([]);
    expect(codes('Des appartements de 2 et 3 chambres\nsuperficies de 68 à 122 m², à partir de 690 000 DH')).toEqual([]);
    expect(codes('Villa à louer\nVide 35000dh Meublé 39000dh')).toEqual([]);
  });

  it('takes the first line as the title, cut to a sane length, without phone numbers', () => {
    expect(extractFacts('\n  Villa à vendre à Anfa  \nBelle villa').title).toBe('Villa à vendre à Anfa');
    const long = extractFacts(`${'Très belle villa avec piscine et jardin '.repeat(6)}`).title ?? '';
    expect(long.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    expect(extractFacts('Appartement à vendre 0661234567\nPrix 900 000 DH').title).not.toMatch(/0661234567/);
    expect(extractFacts('   ').title).toBeNull();
  });

  it('is deterministic and keeps the text for the angles', () => {
    const text = 'Villa à vendre à Bouskoura, 4 chambres, piscine, 3,5 MDH';
    expect(extractFacts(text)).toEqual(extractFacts(text));
    expect(extractFacts(text).description).toBe(text);
  });
});
