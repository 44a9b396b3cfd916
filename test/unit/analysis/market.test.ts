import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareWithMarket, impliedGrossYield, SMALL_UNIT_UPLIFT } from '../../../src/analysis/market/compare.js';
import { describeSourceAndMonth, findReference, MARKET_REFERENCES } from '../../../src/analysis/market/reference.js';
import { demoFacts, listing } from '../../helpers/property-fixtures.js';

const SOURCES_DOC = readFileSync(new URL('../../../docs/sources.md', import.meta.url), 'utf8');

describe('market reference table', () => {
  it('carries a source key of docs/sources.md and a date on every row', () => {
    expect(MARKET_REFERENCES.length).toBeGreaterThan(150);
    for (const row of MARKET_REFERENCES) {
      const name = `${row.transaction} ${row.kind} ${row.city}/${row.district}`;
      expect(row.source, name).toMatch(/\[[A-Z0-9-]+\]/);
      // Users see the source itself; its key leads a maintainer to the full reference.
      expect(row.source, name).not.toContain('docs/');
      for (const [, key] of row.source.matchAll(/\[([A-Z0-9-]+)\]/g)) expect(SOURCES_DOC, name).toContain(`[${key}]`);
      expect(row.as_of, name).toMatch(/^20\d\d-(0[1-9]|1[0-2])$/);
      expect(row.median, name).toBeGreaterThan(0);
      if (row.q1 !== null) expect(row.q1, name).toBeLessThanOrEqual(row.median);
      if (row.q3 !== null) expect(row.q3, name).toBeGreaterThanOrEqual(row.median);
    }
  });

  it('holds the figures of docs/analysis.md as written', () => {
    const casa = findReference('Casablanca', null, 'apartment', 'sale')?.row;
    expect(casa).toMatchObject({ median: 12235, q1: 10000, q3: 15496, sample_size: 1154, as_of: '2024-12' });
    expect(findReference('Casablanca', 'Maârif', 'apartment', 'sale')?.row).toMatchObject({
      median: 16892,
      q1: 13964,
      q3: 20559,
      sample_size: 63,
    });
    expect(findReference('Oujda', null, 'apartment', 'sale')?.row.median).toBe(4700);
    expect(findReference('Casablanca', 'Racine', 'apartment', 'rent')?.row).toMatchObject({
      median: 94,
      sample_size: 61,
      as_of: '2025-07',
    });
    expect(findReference('Casablanca', 'Anfa Supérieur', 'villa', 'sale')?.row.median).toBe(30000);
  });

  it('matches place names whatever their accents, case and spelling', () => {
    for (const [city, district] of [
      ['Casablanca', 'Maarif'],
      ['CASABLANCA', 'MAÂRIF'],
      ['casa', 'maârif'],
      ['Casablanca', 'Quartier Maarif'],
    ]) {
      expect(findReference(city as string, district as string, 'apartment', 'sale')?.row.median, `${city}/${district}`).toBe(16892);
    }
    expect(findReference('Marrakesh', 'Gueliz', 'apartment', 'sale')?.row.median).toBe(14000);
    expect(findReference('Marrakech', 'Guéliz', 'apartment', 'sale')?.row.median).toBe(14000);
    expect(findReference('Tangier', 'Malabata', 'apartment', 'sale')?.row.median).toBe(12000);
    expect(findReference('Rabat', 'Hay Ryad', 'apartment', 'sale')?.row.median).toBe(21570);
    expect(findReference('Casablanca', 'Triangle d’Or', 'apartment', 'sale')?.row.median).toBe(17124);
  });

  it('reads district names as portals write them', () => {
    const sale = (district: string, city = 'Casablanca') => findReference(city, district, 'apartment', 'sale')?.row;
    expect(sale('Ferme Bretonne (Hay Arraha)')?.district).toBe('Ferme Bretonne');
    expect(sale('Quartier des Hôpitaux')?.district).toBe('Hôpitaux');
    expect(sale("L'Océan", 'Rabat')?.district).toBe('Océan');
    expect(sale('Hassan - Centre Ville', 'Rabat')?.district).toBe('Hassan');
    expect(sale('Riyad', 'Rabat')?.district).toBe('Hay Riad');
    // A sub-area takes its district's figure, unless it has its own row.
    expect(sale('Oasis Sud')?.district).toBe('Oasis');
    expect(sale('Haut Agdal', 'Rabat')?.district).toBe('Agdal');
    expect(sale('Maârif Extension')?.median).toBe(14384);
    expect(findReference('Casablanca', 'Bourgogne Ouest', 'apartment', 'rent')?.row.median).toBe(100);
    expect(findReference('Casablanca', 'Bourgogne Ouest', 'apartment', 'sale')?.row.median).toBe(13636);
  });

  it('falls back to the city row when the district is unknown, and to nothing when the city is', () => {
    expect(findReference('Casablanca', 'Quartier Inconnu', 'apartment', 'sale')).toMatchObject({ level: 'city', row: { median: 12235 } });
    expect(findReference('Ifrane', null, 'apartment', 'sale')).toBeNull();
    expect(findReference(null, null, 'apartment', 'sale')).toBeNull();
  });

  it('finds satellite towns and their districts named under the big city', () => {
    expect(findReference('Casablanca', 'Dar Bouazza', 'apartment', 'sale')?.row).toMatchObject({ city: 'Dar Bouazza', median: 11988 });
    expect(findReference('Casablanca', 'Tamaris', 'apartment', 'sale')?.row).toMatchObject({ city: 'Dar Bouazza', median: 12693 });
    expect(findReference('Casablanca', 'Ville Verte', 'villa', 'sale')?.row.median).toBe(12000);
  });

  it('places a district given without its city only when the name is unique', () => {
    expect(findReference(null, 'Gauthier', 'apartment', 'sale')?.row.median).toBe(16022);
    expect(findReference(null, 'Centre', 'apartment', 'sale')).toBeNull();
  });
});

describe('compareWithMarket', () => {
  it('compares the demo listing with the Maârif median (docs/analysis.md)', () => {
    const result = compareWithMarket(demoFacts());
    expect(result.price_per_m2_mad).toBe(15417);
    expect(result.market).toEqual({
      area: 'Maârif, Casablanca',
      area_level: 'district',
      median_price_per_m2_mad: 16892,
      q1_price_per_m2_mad: 13964,
      q3_price_per_m2_mad: 20559,
      sample_size: 63,
      as_of: '2024-12',
      source: expect.stringContaining('[DS-EARTHY]'),
      source_label: 'Avito + Yakeey apartment sale asks, Nov–Dec 2024, district medians',
      position: 'in_line',
      delta_pct: -8.7,
      confidence: 'high',
    });
  });

  it('names the source for readers in the analysis language, without the internal tag (docs/api.md)', () => {
    const labels = (['fr', 'en', 'ar'] as const).map((language) => compareWithMarket(demoFacts(), language).market?.source_label ?? '');
    expect(labels[0]).toBe('prix demandés d’appartements à vendre sur Avito + Yakeey, nov.–déc. 2024, médianes par quartier');
    expect(labels[1]).toContain('Nov–Dec 2024');
    expect(labels[2]).toContain('نونبر–دجنبر 2024');
    for (const label of labels) expect(label).not.toMatch(/\[[A-Z-]+\]/);
  });

  it('names the month in words beside a source whose description does not date it', () => {
    const source = '[DS-NEW] Survey of agency asks (research/market.md §9)';
    expect(describeSourceAndMonth(source, '2023-05', 'fr')).toBe('Survey of agency asks, mai 2023');
    expect(describeSourceAndMonth(source, '2023-08', 'ar')).toBe('Survey of agency asks، غشت 2023');
    expect(describeSourceAndMonth(source, '2023-12', 'en')).toBe('Survey of agency asks, December 2023');
    const [row] = MARKET_REFERENCES;
    // A described source already names its period: the month is not repeated.
    expect(describeSourceAndMonth(row?.source ?? '', row?.as_of ?? '', 'fr')).not.toMatch(/\d{4}.*, [a-zé]+ \d{4}$/);
  });

  it('says below under Q1 and above over Q3', () => {
    const below = compareWithMarket(demoFacts({ price_mad: 13_900 * 120 }));
    expect(below.market).toMatchObject({ position: 'below', delta_pct: -17.7 });
    const above = compareWithMarket(demoFacts({ price_mad: 20_600 * 120 }));
    expect(above.market).toMatchObject({ position: 'above', delta_pct: 22 });
    const edge = compareWithMarket(demoFacts({ price_mad: 13_964 * 120 }));
    expect(edge.market?.position).toBe('in_line');
  });

  it('uses ±15 % around the median without quartiles, ±25 % under 10 listings', () => {
    // Témara – Wifak: 11,303, n = 22, no quartiles.
    const wifak = (perM2: number) =>
      compareWithMarket(
        listing({
          transaction: 'sale',
          property_type: 'apartment',
          city: 'Témara',
          district: 'Wifak',
          surface_m2: 100,
          price_mad: perM2 * 100,
        }),
      );
    expect(wifak(12_900).market?.position).toBe('in_line');
    expect(wifak(13_100).market?.position).toBe('above');
    expect(wifak(9_500).market?.position).toBe('below');
    expect(wifak(9_700).market?.position).toBe('in_line');
    // Tanger – Malabata: 12,000, n = 8.
    const malabata = (perM2: number) =>
      compareWithMarket(
        listing({
          transaction: 'sale',
          property_type: 'apartment',
          city: 'Tanger',
          district: 'Malabata',
          surface_m2: 100,
          price_mad: perM2 * 100,
        }),
      );
    expect(malabata(14_900).market).toMatchObject({ position: 'in_line', confidence: 'low', q1_price_per_m2_mad: null });
    expect(malabata(15_100).market?.position).toBe('above');
  });

  it('lowers confidence for city-wide, old or unsized rows', () => {
    const city = compareWithMarket(demoFacts({ district: 'Nulle Part' }));
    expect(city.market).toMatchObject({ area: 'Casablanca', median_price_per_m2_mad: 12235, confidence: 'medium' });
    const cil = compareWithMarket(demoFacts({ district: 'CIL' }));
    expect(cil.market).toMatchObject({ median_price_per_m2_mad: 15667, as_of: '2022-01', confidence: 'low' });
    const maarifRent = compareWithMarket(demoFacts({ transaction: 'rent', price_mad: 9_000, surface_m2: 80 }));
    expect(maarifRent.market?.confidence).toBe('medium');
  });

  it('compares a rent per m² per month with rent references', () => {
    const result = compareWithMarket(demoFacts({ transaction: 'rent', price_mad: 9_000, surface_m2: 80 }));
    expect(result.price_per_m2_mad).toBe(113);
    expect(result.market).toMatchObject({ median_price_per_m2_mad: 113, position: 'in_line', delta_pct: 0 });
    expect(result.market?.source).toContain('[DS-MUBRENT]');
    const rabat = compareWithMarket(
      listing({ transaction: 'rent', property_type: 'apartment', city: 'Rabat', surface_m2: 100, price_mad: 20_000 }),
    );
    expect(rabat.market).toMatchObject({ area: 'Rabat', median_price_per_m2_mad: 113, position: 'above' });
  });

  it('never compares a villa with apartments', () => {
    const anfa = compareWithMarket(
      listing({
        transaction: 'sale',
        property_type: 'villa',
        city: 'Casablanca',
        district: 'Anfa Supérieur',
        surface_m2: 600,
        price_mad: 18_000_000,
      }),
    );
    expect(anfa.market).toMatchObject({ median_price_per_m2_mad: 30000, position: 'in_line', delta_pct: 0 });
    expect(anfa.market?.source).toContain('[LE360-VILLAS-2024]');
    const marrakechVilla = compareWithMarket(
      listing({ transaction: 'sale', property_type: 'villa', city: 'Marrakech', surface_m2: 400, price_mad: 6_000_000 }),
    );
    expect(marrakechVilla.price_per_m2_mad).toBe(15000);
    expect(marrakechVilla.market).toBeNull();
  });

  it('does not divide a villa price by its plot', () => {
    const villa = compareWithMarket(
      listing({ transaction: 'sale', property_type: 'villa', city: 'Casablanca', surface_total_m2: 1_500, price_mad: 9_000_000 }),
    );
    expect(villa.price_per_m2_mad).toBeNull();
    expect(villa.market?.position).toBeNull();
  });

  it('keeps key-money schemes out of the comparison', () => {
    const sarout = compareWithMarket(demoFacts({ price_mad: 300_000, warnings: [{ code: 'KEY_MONEY_SCHEME', message: 'sarout' }] }));
    expect(sarout.price_per_m2_mad).toBe(2500);
    expect(sarout.market).toBeNull();
  });

  it('gives the reference without a position when the price or surface is missing', () => {
    const result = compareWithMarket(demoFacts({ surface_m2: null }));
    expect(result.price_per_m2_mad).toBeNull();
    expect(result.market).toMatchObject({ median_price_per_m2_mad: 16892, position: null, delta_pct: null });
  });

  it('needs a known type and transaction', () => {
    expect(compareWithMarket(demoFacts({ transaction: null })).market).toBeNull();
    expect(compareWithMarket(demoFacts({ property_type: null })).market).toBeNull();
    expect(compareWithMarket(demoFacts({ property_type: 'office' })).market).toBeNull();
    expect(compareWithMarket(demoFacts({ property_type: 'duplex' })).market?.median_price_per_m2_mad).toBe(16892);
  });

  it('raises the reference for studios and 1-bedroom flats (docs/analysis.md)', () => {
    const studio = compareWithMarket(demoFacts({ property_type: 'studio', bedrooms: null, surface_m2: 30, price_mad: 750_000 }));
    expect(studio.market).toMatchObject({
      median_price_per_m2_mad: Math.round(16892 * SMALL_UNIT_UPLIFT),
      q1_price_per_m2_mad: Math.round(13964 * SMALL_UNIT_UPLIFT),
      position: 'in_line',
      confidence: 'medium',
    });
    expect(studio.market?.source).toContain('uplift');
    expect(compareWithMarket(demoFacts({ bedrooms: 1, surface_m2: 50 })).uplifted).toBe(true);
    expect(compareWithMarket(demoFacts({ transaction: 'rent', bedrooms: 1, price_mad: 6_000, surface_m2: 50 })).uplifted).toBe(false);
  });

  it('estimates a gross yield from the area median rent', () => {
    const yieldPct = impliedGrossYield(demoFacts(), 15417);
    expect(yieldPct).toMatchObject({ pct: 8.8, place: 'Maârif' });
    expect(impliedGrossYield(demoFacts({ city: 'Fès', district: null }), 5000)).toBeNull();
    expect(impliedGrossYield(demoFacts({ transaction: 'rent' }), 113)).toBeNull();
  });
});
