import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyzeResponse, Property } from '../../src/core/types.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { PROPERTY_FIELDS } from '../helpers/property-fixtures.js';
import { readBatchCsv } from '../../src/jobs/batch.js';

/**
 * `immoreel analyze` as a user runs it: the built CLI (npm test builds first) on the bundled demo
 * listing (assets/demo/listing.txt: 120 m², 3 chambres, 2 salles de bain, 3ème étage, Maârif
 * Casablanca, 1 850 000 DH, terrasse, ascenseur, parking, concierge, double vitrage, titre
 * foncier, near the tram and schools), on stdin, and in CSV batches.
 */

const ARABIC = /[\u0600-\u06ff]/;

async function analyzeJson(args: string[], input?: string): Promise<{ property: Property; stdout: string }> {
  const result = await runCli(['analyze', '--json', ...args], { input });
  expect(result.code, result.stderr).toBe(0);
  const body = JSON.parse(result.stdout) as AnalyzeResponse;
  expect(body).toMatchObject({ ok: true, status: 'success' });
  return { property: body.property, stdout: result.stdout };
}

describe('immoreel analyze (single listing)', () => {
  let demo: Property;
  let demoStdout: string;

  beforeAll(async () => {
    ({ property: demo, stdout: demoStdout } = await analyzeJson(['--demo']));
  });

  it('prints the analysis of docs/analysis.md for the demo listing', () => {
    expect(Object.keys(demo)).toEqual(PROPERTY_FIELDS);
    expect(demo).toMatchObject({
      city: 'Casablanca',
      price_mad: 1_850_000,
      currency: 'MAD',
      transaction: 'sale',
      property_type: 'apartment',
      surface_m2: 120,
      bedrooms: 3,
      bathrooms: 2,
      floor: 3,
      price_per_m2_mad: 15417,
      language: 'fr',
      source: { kind: 'text', portal: null },
    });
    expect(demo.district).toMatch(/^ma[aâ]rif$/i);
    expect(demo.feature_keys).toEqual(
      expect.arrayContaining(['terrace', 'elevator', 'parking', 'concierge', 'double_glazing', 'title_deed', 'near_tram', 'near_schools']),
    );
    expect(demo.features).toEqual(expect.arrayContaining(['Terrasse', 'Ascenseur', 'Parking', 'Titre foncier']));
    expect(demo.market).toMatchObject({
      area: 'Maârif, Casablanca',
      median_price_per_m2_mad: 16892,
      position: 'in_line',
      delta_pct: -8.7,
      as_of: '2024-12',
      confidence: 'high',
    });
    expect(demo.market?.source).toContain('[DS-EARTHY]');
    expect(demo.marketing_angles.length).toBeGreaterThanOrEqual(3);
    expect(demo.marketing_angles.length).toBeLessThanOrEqual(6);
    expect(demo.marketing_angles.join(' ')).toContain('8,7 % sous la médiane de Maârif');
    expect(demo.marketing_angles.join(' ')).not.toMatch(/piscine|vue sur mer|plage/i);
    expect(demo.target_buyer.primary).toBe('family');
    expect(demo.target_buyer.segments).toHaveLength(8);
    expect(demo.target_buyer.segments[0]?.reasons).toContain('3 chambres');
    expect(demo.target_buyer.demographics.budget_mad).toEqual([1_550_000, 2_150_000]);
    expect(demo.warnings).toEqual([]);
  });

  it('gives the same JSON on every run', async () => {
    const again = await runCli(['analyze', '--json', '--demo']);
    expect(again.stdout).toBe(demoStdout);
  });

  it('prints a readable summary with the market position and the angles without --json', async () => {
    const result = await runCli(['analyze', '--demo']);
    expect(result.code, result.stderr).toBe(0);
    expect(() => JSON.parse(result.stdout)).toThrow();
    expect(result.stdout).toContain('1 850 000 MAD');
    // The labels follow --language (French by default), like the angles.
    expect(result.stdout).toMatch(/Prix \/ m²\s+15 417 MAD/);
    expect(result.stdout).toMatch(/Marché\s+dans la norme \(-8\.7 % par rapport à la médiane\)/);
    // No internal document references in what a user reads.
    expect(result.stdout).not.toMatch(/research\/|§/);
    expect(result.stdout).toContain('médiane 16 892 MAD/m² à Maârif, Casablanca');
    expect(result.stdout).toMatch(/Acheteur\s+Famille/);
    const english = await runCli(['analyze', '--demo', '--language', 'en']);
    expect(english.stdout).toMatch(/Price \/ m²\s+15 417 MAD/);
    expect(result.stdout).toContain('Angles marketing');
    for (const angle of demo.marketing_angles) expect(result.stdout).toContain(`• ${angle}`);
  });

  it('shows where each fact came from with --explain', async () => {
    const plain = await runCli(['analyze', '--demo', '--language', 'en']);
    expect(plain.stdout).not.toContain('Where each fact came from');
    const result = await runCli(['analyze', '--demo', '--explain', '--language', 'en']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Where each fact came from');
    expect(result.stdout).toMatch(/price_mad\s+1850000\s+description, confidence 0\.\d\d/);
    expect(result.stdout).toMatch(/“[^”]*1 850 000 DH[^”]*”/);
    expect(result.stdout).toMatch(/bedrooms\s+3\s+description/);
  });

  it('writes labels and angles in English with --language en', async () => {
    const { property } = await analyzeJson(['--demo', '--language', 'en']);
    expect(property.language).toBe('en');
    expect(property.features).toEqual(expect.arrayContaining(['Terrace', 'Elevator', 'Parking', 'Title deed']));
    expect(property.marketing_angles.join(' ')).toContain('8.7% below the Maârif median');
    for (const angle of property.marketing_angles) expect(angle).not.toMatch(ARABIC);
    expect(property.target_buyer.segments[0]?.label).toBe('Family');
    // Facts do not change with the language; only the readable source name is in the answer's language.
    const { source_label: frenchLabel, ...frenchMarket } = demo.market!;
    expect(property.market?.source_label).toBe('Avito + Yakeey apartment sale asks, Nov–Dec 2024, district medians');
    expect(property.market?.source_label).not.toBe(frenchLabel);
    expect({ ...property, language: 'fr' }).toMatchObject({
      price_mad: demo.price_mad,
      feature_keys: demo.feature_keys,
      market: frenchMarket,
    });
  });

  it('writes labels and angles in Arabic with --language ar', async () => {
    const { property } = await analyzeJson(['--demo', '--language', 'ar']);
    expect(property.language).toBe('ar');
    expect(property.features).toEqual(expect.arrayContaining(['تراس', 'مصعد', 'رسم عقاري']));
    for (const angle of property.marketing_angles) expect(angle).toMatch(ARABIC);
    expect(property.marketing_angles.join(' ')).toContain('المعاريف');
    expect(property.target_buyer.segments[0]?.label).toBe('عائلة');
    expect(property.target_buyer.demographics.household).toMatch(ARABIC);
  });

  it('aims at the audience given with --audience investor', async () => {
    const { property } = await analyzeJson(['--demo', '--audience', 'investor']);
    expect(property.target_buyer.primary).toBe('investor');
    expect(property.target_buyer.segments).toEqual(demo.target_buyer.segments);
    expect(property.marketing_angles).not.toEqual(demo.marketing_angles);
    expect(property.marketing_angles.join(' ')).toMatch(/investissement locatif/);
    expect(property.target_buyer.demographics.household).toMatch(/Investisseur/);
  });

  it('reads the description from standard input with -', async () => {
    const text = await readFile(join(REPO_ROOT, 'assets/demo/listing.txt'), 'utf8');
    const { property } = await analyzeJson(['-'], text);
    expect(property).toEqual(demo);
  });
});

describe('immoreel analyze --csv (batch)', () => {
  let dir: string;
  let csvFile: string;

  const rows = [
    {
      id: 'casa-gauthier',
      description: 'Appartement à vendre à Gauthier, Casablanca : 85 m², 2 chambres, ascenseur. Prix 1 450 000 DH',
      language: '',
      target_audience: '',
    },
    { id: 'no-text', description: '', language: 'fr', target_audience: '' },
    {
      id: 'marrakech-villa',
      description: 'Villa à louer à Marrakech, Palmeraie, 400 m², piscine et jardin, 25 000 DH par mois',
      language: 'fr',
      target_audience: 'luxury',
    },
    { id: 'german', description: 'Appartement 70 m² à vendre à Rabat Agdal, 1 200 000 DH', language: 'de', target_audience: '' },
    {
      id: 'rabat-studio',
      description: 'Furnished studio for rent in Agdal, Rabat, 35 sqm, near the tram, 6,000 MAD per month',
      language: 'en',
      target_audience: '',
    },
    {
      id: 'tanger-ar',
      description: 'شقة للبيع في طنجة، مساحة 90 متر مربع، 3 غرف نوم، الثمن 900000 درهم',
      language: 'ar',
      target_audience: 'investor',
    },
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'immoreel-batch-'));
    csvFile = join(dir, 'listings.csv');
    await writeFile(csvFile, stringify(rows, { header: true, columns: ['id', 'description', 'language', 'target_audience'] }));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('streams one NDJSON line per row keyed by id, writes the failed rows aside and exits 3', async () => {
    const result = await runCli(['analyze', '--csv', csvFile]);
    expect(result.code, result.stderr).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; ok: boolean; property?: Property; error?: { code: string; message: string } });
    expect(lines.map((l) => l.id).sort()).toEqual(rows.map((r) => r.id).sort());
    const byId = new Map(lines.map((l) => [l.id, l]));

    for (const bad of ['no-text', 'german']) {
      expect(byId.get(bad)).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      expect(byId.get(bad)?.property).toBeUndefined();
    }
    expect(byId.get('german')?.error?.message).toMatch(/language/);

    const gauthier = byId.get('casa-gauthier')?.property;
    expect(gauthier).toMatchObject({ price_mad: 1_450_000, surface_m2: 85, city: 'Casablanca', district: 'Gauthier', language: 'fr' });
    expect(gauthier?.market).toMatchObject({ area: 'Gauthier, Casablanca', median_price_per_m2_mad: 16022 });
    const villa = byId.get('marrakech-villa')?.property;
    expect(villa).toMatchObject({ transaction: 'rent', property_type: 'villa', price_mad: 25_000, target_buyer: { primary: 'luxury' } });
    expect(villa?.feature_keys).toEqual(expect.arrayContaining(['pool', 'garden']));
    const studio = byId.get('rabat-studio')?.property;
    expect(studio).toMatchObject({ transaction: 'rent', property_type: 'studio', language: 'en' });
    expect(studio?.features).toContain('Furnished');
    const tanger = byId.get('tanger-ar')?.property;
    expect(tanger).toMatchObject({ language: 'ar', price_mad: 900_000, target_buyer: { primary: 'investor' } });
    for (const angle of tanger?.marketing_angles ?? []) expect(angle).toMatch(ARABIC);

    expect(result.stderr).toMatch(/6 rows: 4 analyzed, 2 failed/);
    const failed = parse(await readFile(join(dir, 'listings.failed.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(failed.map((r) => r.id)).toEqual(['no-text', 'german']);
    expect(Object.keys(failed[0] as object)).toEqual(['id', 'description', 'language', 'target_audience', 'error_code', 'error_message']);
    for (const row of failed) {
      expect(row.error_code).toBe('BAD_REQUEST');
      expect(row.error_message).not.toBe('');
    }
    expect(failed[1]?.description).toBe(rows[3]?.description);
  });

  it('writes the results as CSV with --out results.csv', async () => {
    const out = join(dir, 'results.csv');
    const result = await runCli(['analyze', '--csv', csvFile, '--out', out]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`results in ${out}`);
    const records = parse(await readFile(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(rows.length);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get('casa-gauthier')).toMatchObject({
      city: 'Casablanca',
      price_mad: '1450000',
      surface_m2: '85',
      price_per_m2_mad: '17059',
      error_code: '',
    });
    expect(byId.get('casa-gauthier')?.ok).toBe('true');
    for (const bad of ['no-text', 'german']) {
      expect(byId.get(bad)).toMatchObject({ error_code: 'BAD_REQUEST', title: '' });
      expect(byId.get(bad)?.ok).toBe('false');
    }
    expect(byId.get('tanger-ar')?.primary_audience).toBe('investor');
  });

  it('writes ids and titles that look like formulas as text in results.csv and the failed rows (docs/security.md, "CSV files")', async () => {
    const hostile = join(dir, 'hostile.csv');
    const cmd = `=cmd|' /C calc'!A0`;
    const hyperlink = '=HYPERLINK("http://evil.example/","Cliquez")';
    await writeFile(
      hostile,
      stringify(
        [
          { id: cmd, description: '' },
          { id: '@SUM(1)', description: `${hyperlink} Appartement à vendre à Gauthier, Casablanca : 85 m², 2 chambres. Prix 1 450 000 DH` },
        ],
        { header: true },
      ),
    );
    const out = join(dir, 'hostile-results.csv');
    const result = await runCli(['analyze', '--csv', hostile, '--out', out]);
    expect(result.code, result.stderr).toBe(3);
    // As a spreadsheet reads them: no cell starts with = + - @ (a plain negative number aside).
    const results = parse(await readFile(out, 'utf8')) as string[][];
    const failed = parse(await readFile(join(dir, 'hostile.failed.csv'), 'utf8')) as string[][];
    for (const cell of [...results.flat(), ...failed.flat()]) if (!/^-\d+(\.\d+)?$/.test(cell)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(results.map((row) => row[0])).toEqual(['id', `'${cmd}`, "'@SUM(1)"]);
    expect(results[2]?.[2]).toMatch(/^'=HYPERLINK\(/);
    expect(failed[1]?.[0]).toBe(`'${cmd}`);
    // Fed back in, the failed rows are the rows the user wrote.
    expect((await readBatchCsv(join(dir, 'hostile.failed.csv'))).rows.map((row) => row.id)).toEqual([cmd]);
  });
});

describe('immoreel analyze: a doubtful price held back (docs/analysis.md "Held back")', () => {
  const TYPO = 'Appartement à vendre 110 m² à Maârif, Casablanca, 3 chambres, 18 500 DH';

  it('names the held-back price in --json, with no market position, until --confirm price', async () => {
    const { property } = await analyzeJson(['--description', TYPO]);
    expect(property.held_back).toEqual([{ field: 'price', code: 'PRICE_IMPLAUSIBLE', message: expect.stringMatching(/^Prix retenu/) }]);
    expect(property.market?.position).toBeNull();
    expect(property.marketing_angles.join(' ')).not.toMatch(/rendement|aide/);
    const confirmed = await analyzeJson(['--description', TYPO, '--confirm', 'price']);
    expect(confirmed.property.held_back).toEqual([]);
    expect(confirmed.property.market?.position).toBe('below');
  });

  it('counts the rows with a fact held back in a batch, and reads a confirmed_facts column', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'immoreel-held-'));
    try {
      const csvFile = join(dir, 'held.csv');
      const rows = [
        { id: 'typo', description: TYPO, confirmed_facts: '' },
        { id: 'confirmed', description: TYPO, confirmed_facts: 'price' },
      ];
      await writeFile(csvFile, stringify(rows, { header: true, columns: ['id', 'description', 'confirmed_facts'] }));
      const result = await runCli(['analyze', '--csv', csvFile, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const byId = new Map(
        result.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { id: string; property: Property })
          .map((l) => [l.id, l.property]),
      );
      expect(byId.get('typo')?.held_back?.map((f) => f.field)).toEqual(['price']);
      expect(byId.get('confirmed')?.held_back).toEqual([]);
      expect(result.stderr).toMatch(/2 rows: 2 analyzed, 0 failed; 1 with a fact held back/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
