import { describe, expect, it } from 'vitest';
import { cityName, districtName, splitLocation } from '../../../../src/analysis/portals/portal-places.js';
import { scrubPrivate } from '../../../../src/analysis/privacy.js';
import {
  isPriceOnRequest,
  parseAmount,
  parseCurrency,
  parseFloor,
  parseSurface,
  propertyTypeFromWords,
  transactionFromWords,
} from '../../../../src/analysis/portals/values.js';

describe('amounts as portals print them (docs/portals.md)', () => {
  it.each([
    ['1\u202f950\u202f000 DH', 1_950_000], // Avito FR, narrow no-break space
    ['9\u00a0000 DH', 9_000], // Mubawab FR, no-break space
    ['350,000', 350_000], // Mubawab EN, commas
    ['1.950.000', 1_950_000],
    ['350000.0', 350_000], // Mubawab JSON-LD float
    ['1.950.000,00 MAD', 1_950_000],
    ['1,950,000.50', 1_950_000.5],
    ['١٢٠٠٠٠٠ درهم', 1_200_000], // Arabic-Indic digits
    [750000, 750_000],
    ['Prix à consulter', null],
  ])('%s → %s', (text, value) => {
    expect(parseAmount(text)).toBe(value);
  });

  it('reads surfaces split over lines and floors in words', () => {
    expect(parseSurface('82\n\t\t\t\t\t\tm²')).toBe(82);
    expect(parseSurface('112m²')).toBe(112);
    expect(parseFloor('Rez de chaussée')).toBe(0);
    expect(parseFloor('RDC')).toBe(0);
    expect(parseFloor('3ème étage')).toBe(3);
    expect(parseFloor('5th floor')).toBe(5);
    expect(parseFloor('Sous-sol')).toBe(-1);
    expect(parseFloor('Dernier étage')).toBeNull();
  });

  it('names currencies and hidden prices', () => {
    expect(parseCurrency('85,000 EUR')).toBe('EUR');
    expect(parseCurrency('€ 85 000')).toBe('EUR');
    expect(parseCurrency('7 500 Dhs')).toBe('MAD');
    expect(parseCurrency('MAD')).toBe('MAD');
    expect(isPriceOnRequest('Price on Request')).toBe(true);
    expect(isPriceOnRequest('Prix non spécifié')).toBe(true);
  });
});

describe('words for sale/rent and property types', () => {
  it.each([
    ['Appartement à vendre', 'sale'],
    ['superbe-appart-vide-à-louer-aux-princesses', 'rent'],
    ['House for sale Sefrou', 'sale'],
    ['Locations Immobilières', 'rent'],
    ['شقة للبيع', 'sale'],
    ['شقة للكراء', 'rent'],
    ['Appartement à vendre ou à louer', null],
    ['Appartement Maarif', null],
  ])('%s → %s', (text, transaction) => {
    expect(transactionFromWords(text)).toBe(transaction);
  });

  it.each([
    ['House', 'house'],
    ['Maison', 'house'],
    ['Villa', 'villa'],
    ['Appartement', 'apartment'],
    ['Studio meublé', 'studio'],
    ['Local commercial', 'commercial'],
    ['Terrain titré', 'land'],
    ['Plateau de bureaux', 'office'],
    ['شقة', 'apartment'],
  ])('%s → %s', (text, type) => {
    expect(propertyTypeFromWords(text)).toBe(type);
  });
});

describe('places', () => {
  it('splits "<district> à <city>", "<district> in <city>" and "<district>, <city>"', () => {
    expect(splitLocation('Hivernage à Marrakech')).toEqual({ city: 'Marrakech', district: 'Hivernage' });
    expect(splitLocation('Malabata in Tanger')).toEqual({ city: 'Tanger', district: 'Malabata' });
    expect(splitLocation('Hassan - Centre Ville, Rabat')).toEqual({ city: 'Rabat', district: 'Hassan - Centre Ville' });
    expect(splitLocation('Sefrou')).toEqual({ city: 'Sefrou', district: null });
  });

  it('keeps the portal spelling of proper names, restores slugs and shouting', () => {
    expect(cityName('Temara')).toBe('Temara');
    expect(cityName('dar-bouazza')).toBe('Dar Bouazza');
    expect(cityName('CASABLANCA')).toBe('Casablanca');
  });

  it('drops placeholders, the city itself and the bracketed arrondissement', () => {
    expect(districtName('Toute la ville', 'Khemisset')).toBeNull();
    expect(districtName('Autre secteur', 'Meknès')).toBeNull();
    expect(districtName('Casablanca', 'Casablanca')).toBeNull();
    expect(districtName('Bourgogne (Sidi Belyout)', 'Casablanca')).toBe('Bourgogne');
  });
});

describe('scrubPrivate', () => {
  it.each([
    'Appelez le 0661234567',
    'Appelez le 06 61 23 45 67',
    'Appelez le 06.61.23.45.67',
    'Appelez le +212 6 61 23 45 67',
    'Appelez le 00212-661-234567',
    'Appelez le +212 (0)6 61 23 45 67',
    'اتصل ٠٦٦١٢٣٤٥٦٧',
    'Fixe : 05 22 12 34 56',
  ])('hides the phone in %s', (text) => {
    expect(scrubPrivate(text)).not.toMatch(/\d{2}.?\d{2}.?\d{2}.?\d{2}|[٠-٩]{4}/);
    expect(scrubPrivate(text)).toContain('[…]');
  });

  it('keeps prices, surfaces and years', () => {
    const text = 'Prix 1 950 000 DH, 147 m², construit en 2019, 2 chambres';
    expect(scrubPrivate(text)).toBe(text);
  });

  it('hides e-mails and the given names, whatever their case', () => {
    expect(scrubPrivate('KEYSAFE IMMOBILIER vous propose, écrivez à info@keysafe.ma', ['Keysafe Immobilier'])).toBe(
      '[…] vous propose, écrivez à […]',
    );
  });
});
