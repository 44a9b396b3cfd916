import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';

describe('metro areas', () => {
  it('reports the commune as the city and its metro area', async () => {
    const property = await analyzeListing({ description: 'Villa à vendre à Bouskoura, 300 m², 4 chambres, 4 500 000 DH' });
    expect(property.city).toBe('Bouskoura');
    expect(property.metro_area).toBe('Grand Casablanca');
    const temara = await analyzeListing({ description: 'شقة للبيع في تمارة 80 متر 700000 درهم' });
    expect(temara).toMatchObject({ city: 'Témara', metro_area: 'Grand Rabat' });
    const mehdia = await analyzeListing({ description: 'Appartement à vendre à Mehdia, 90 m², 750 000 DH' });
    expect(mehdia).toMatchObject({ city: 'Mehdia', metro_area: 'Grand Kénitra' });
  });

  it('uses the commune own figures when it has some, and says so', async () => {
    const property = await analyzeListing({ description: 'Appartement à vendre à Témara, 80 m², 800 000 DH' });
    expect(property.market).toMatchObject({ area: 'Témara', area_level: 'city' });
  });

  it('falls back to the metro area for a commune without figures, and says so', async () => {
    const property = await analyzeListing({ description: 'Appartement à vendre à Tit Mellil, 80 m², 2 chambres, 600 000 DH' });
    expect(property.city).toBe('Tit Mellil');
    expect(property.market).toMatchObject({ area: 'Grand Casablanca (Casablanca figures)', area_level: 'metro_area' });
    const mehdia = await analyzeListing({ description: 'Appartement à vendre à Mehdia, 90 m², 750 000 DH' });
    expect(mehdia.market).toMatchObject({ area_level: 'metro_area', area: 'Grand Kénitra (Kénitra figures)' });
  });

  it('leaves a town outside any metro area without one', async () => {
    const property = await analyzeListing({ description: 'Appartement à vendre à Marrakech, 80 m², 900 000 DH' });
    expect(property.metro_area).toBeNull();
  });
});
