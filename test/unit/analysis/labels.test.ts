import { describe, expect, it } from 'vitest';
import {
  AUDIENCE_LABELS,
  bathroomsLabel,
  bedroomsLabel,
  composeTitle,
  FEATURE_LABELS,
  featureLabels,
  formatMad,
  formatNumber,
  formatPercent,
  PROPERTY_TYPE_LABELS,
  TRANSACTION_LABELS,
} from '../../../src/analysis/labels.js';
import { AUDIENCES, FEATURE_KEYS, LANGUAGES, PROPERTY_TYPES, TRANSACTIONS } from '../../../src/core/types.js';
import { listing } from '../../helpers/property-fixtures.js';

const ARABIC = /[\u0600-\u06ff]/;
const LATIN = /[A-Za-z]/;

describe('labels', () => {
  const tables = {
    feature: [FEATURE_KEYS, FEATURE_LABELS],
    property_type: [PROPERTY_TYPES, PROPERTY_TYPE_LABELS],
    transaction: [TRANSACTIONS, TRANSACTION_LABELS],
    audience: [AUDIENCES, AUDIENCE_LABELS],
  } as const;

  for (const [name, [keys, table]] of Object.entries(tables)) {
    it(`labels every ${name} in fr, en and ar (Arabic in Arabic script)`, () => {
      for (const key of keys) {
        const labels = (table as Record<string, Record<string, string>>)[key];
        expect(labels, key).toBeDefined();
        for (const language of LANGUAGES) expect(labels?.[language]?.trim(), `${key}/${language}`).toBeTruthy();
        expect(labels?.ar, key).toMatch(ARABIC);
        // Acronyms such as "MRE" may stay Latin inside an Arabic label; words may not.
        expect(labels?.ar.replace(/MRE/g, ''), key).not.toMatch(LATIN);
        expect(labels?.fr, key).not.toMatch(ARABIC);
        expect(labels?.en, key).not.toMatch(ARABIC);
      }
    });
  }

  it('gives distinct feature labels within each language, so no label can stand for two facts', () => {
    for (const language of LANGUAGES) {
      const labels = FEATURE_KEYS.map((k) => FEATURE_LABELS[k][language].toLowerCase());
      expect(new Set(labels).size).toBe(labels.length);
    }
  });

  it('turns feature keys into labels in the output language, in order and once each', () => {
    expect(featureLabels(['terrace', 'elevator', 'parking', 'terrace'], 'fr')).toEqual(['Terrasse', 'Ascenseur', 'Parking']);
    expect(featureLabels(['pool', 'sea_view'], 'en')).toEqual(['Swimming pool', 'Sea view']);
    expect(featureLabels(['pool', 'title_deed'], 'ar')).toEqual(['مسبح', 'رسم عقاري']);
  });

  it('composes a title from type, bedrooms and place when the listing has none', () => {
    const facts = listing({ property_type: 'apartment', bedrooms: 3, district: 'Maarif', city: 'Casablanca', transaction: 'sale' });
    expect(composeTitle(facts, 'fr')).toBe('Appartement 3 chambres — Maarif, Casablanca');
    expect(composeTitle(facts, 'en')).toBe('Apartment 3 bedrooms — Maarif, Casablanca');
    expect(composeTitle(facts, 'ar')).toBe('شقة 3 غرف نوم — المعاريف، الدار البيضاء');
  });

  it('uses the surface and the transaction when bedrooms are unknown, and a neutral noun when the type is', () => {
    expect(composeTitle(listing({ property_type: 'villa', surface_m2: 300, transaction: 'sale', city: 'Marrakech' }), 'fr')).toBe(
      'Villa 300 m² à vendre — Marrakech',
    );
    expect(composeTitle(listing({ transaction: 'rent', city: 'Tanger' }), 'en')).toBe('Property for rent — Tanger');
    expect(composeTitle(listing({ transaction: 'rent', city: 'Tanger' }), 'ar')).toBe('عقار للكراء — طنجة');
  });

  it("keeps the listing's own title, without a seller's phone number", () => {
    expect(composeTitle(listing({ title: '  Bel appartement  Gauthier ' }), 'en')).toBe('Bel appartement Gauthier');
    expect(composeTitle(listing({ title: 'Villa à vendre Agadir 06 61 23 45 67' }), 'fr')).toBe('Villa à vendre Agadir');
    expect(composeTitle(listing({ title: 'Studio meublé +212 661-234567 Rabat' }), 'fr')).toBe('Studio meublé Rabat');
  });

  it('formats numbers, money and percentages the local way', () => {
    expect(formatNumber(1_850_000, 'fr')).toBe('1 850 000');
    expect(formatNumber(1_850_000, 'en')).toBe('1,850,000');
    expect(formatMad(1_850_000, 'ar')).toBe('1 850 000 درهم');
    expect(formatPercent(8.7, 'fr')).toBe('8,7 %');
    expect(formatPercent(8, 'en')).toBe('8%');
  });

  it('counts bedrooms and bathrooms with Arabic dual and plural forms', () => {
    expect(bedroomsLabel(1, 'fr')).toBe('1 chambre');
    expect(bedroomsLabel(2, 'ar')).toBe('غرفتا نوم');
    expect(bedroomsLabel(4, 'ar')).toBe('4 غرف نوم');
    expect(bedroomsLabel(12, 'ar')).toBe('12 غرفة نوم');
    expect(bathroomsLabel(2, 'ar')).toBe('حمامان');
    expect(bathroomsLabel(3, 'en')).toBe('3 bathrooms');
  });
});
