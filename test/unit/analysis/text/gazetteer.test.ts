import { describe, expect, it } from 'vitest';
import {
  arabicNamesOf,
  cityNames,
  citiesOfDistrict,
  districtsOf,
  findCity,
  findDistrict,
  metroArea,
  normalizeCity,
  parentDistrict,
} from '../../../../src/analysis/text/gazetteer.js';

describe('findCity / normalizeCity', () => {
  it.each([
    ['Casablanca', 'Casablanca'],
    ['casa', 'Casablanca'],
    ['CASABLANCA', 'Casablanca'],
    ['الدار البيضاء', 'Casablanca'],
    ['Casablanta', 'Casablanca'],
    ['Marrakesh', 'Marrakech'],
    ['مراكش', 'Marrakech'],
    ['Tangier', 'Tanger'],
    ['Fez', 'Fès'],
    ['Temara', 'Témara'],
    ['Kenitra', 'Kénitra'],
    ['Tifelt', 'Tiflet'],
    ['dar-bouazza', 'Dar Bouazza'],
    ['Immobilier Agadir', 'Agadir'],
    ['Salé', 'Salé'],
    ['Assilah', 'Asilah'],
  ])('finds %s', (name, city) => {
    expect(findCity(name)).toBe(city);
  });

  it('returns null for unknown names and keeps them tidied in normalizeCity', () => {
    expect(findCity('Atlantis')).toBeNull();
    expect(normalizeCity('  Some   Village ')).toBe('Some Village');
    expect(normalizeCity('marrakech')).toBe('Marrakech');
    expect(normalizeCity('   ')).toBeNull();
  });

  it('lists cities and their districts', () => {
    expect(cityNames()).toContain('Oujda');
    expect(districtsOf('casa')).toContain('Maârif');
    expect(districtsOf('Nowhere')).toEqual([]);
  });
});

describe('findDistrict', () => {
  it('normalises district spellings within a city', () => {
    expect(findDistrict('Casablanca', 'Maarif')).toBe('Maârif');
    expect(findDistrict('Casablanca', 'Mâarif Extension')).toBe('Maârif Extension');
    expect(findDistrict('Marrakech', 'Gueliz')).toBe('Guéliz');
    expect(findDistrict('Casablanca', 'CIL (Hay Salam)')).toBe('CIL');
    expect(findDistrict('Casablanca', 'Ferme Bretonne (Hay Arraha)')).toBe('Ferme Bretonne');
    expect(findDistrict('Rabat', 'Riyad')).toBe('Hay Riad');
    expect(findDistrict('Tanger', 'Centre')).toBe('Centre Ville');
    expect(findDistrict('Tanger', 'De La Plage')).toBe('De La Plage');
  });

  it('picks the district of the right city for names found in several cities', () => {
    expect(findDistrict('Rabat', 'Agdal')).toBe('Agdal');
    expect(citiesOfDistrict('Agdal')).toEqual(expect.arrayContaining(['Rabat', 'Marrakech', 'Fès']));
    expect(findDistrict(null, 'Gueliz')).toBe('Guéliz');
    expect(findDistrict('Casablanca', 'Nowhere Street')).toBeNull();
  });

  it('knows which districts are parts of wider ones, and the communes of Grand Casablanca', () => {
    expect(parentDistrict('Casablanca', 'Les Princesses')).toBe('Maârif');
    expect(parentDistrict('Casablanca', 'bourgogne est')).toBe('Bourgogne');
    expect(parentDistrict('Casablanca', 'Maârif')).toBeNull();
    expect(metroArea('Bouskoura')).toBe('Grand Casablanca');
    expect(metroArea('Casablanca')).toBe('Grand Casablanca');
    expect(metroArea('Témara')).toBe('Grand Rabat');
    expect(metroArea('Mehdia')).toBe('Grand Kénitra');
    expect(metroArea('Marrakech')).toBeNull();
  });

  it('has an Arabic spelling for every city and commune, found in free text (docs/sources.md "Arabic place names")', () => {
    const without = cityNames().filter((city) => arabicNamesOf(city).length === 0);
    expect(without).toEqual([]);
    for (const city of cityNames()) {
      const [arabic] = arabicNamesOf(city);
      expect(findCity(arabic as string), `${city}: ${arabic}`).toBe(city);
    }
  });
});
