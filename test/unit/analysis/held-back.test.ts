import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';
import { splitConfirmedFacts } from '../../../src/core/confirmed-facts.js';
import { batchRowRequest } from '../../../src/jobs/batch-row.js';
import { listingSummary, toJobRecord, type JobRow } from '../../../src/records/job-rows.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { buildStoryboard } from '../../../src/render/storyboard.js';
import { loadTemplate } from '../../../src/render/templates.js';
import { demoProperty, photos } from '../../helpers/plan-fixtures.js';

/** docs/analysis.md "Held back": a doubtful price or surface grounds no claim until confirmed. */

const TYPO = 'Appartement à vendre 110 m² à Maârif, Casablanca, 3 chambres, 18 500 DH';

describe('a doubtful price is held back', () => {
  it('holds back an 18 500 DH sale of 110 m² in Maârif: no market position, yield, aid angle or price per m²', async () => {
    const property = await analyzeListing({ description: TYPO });
    expect(property.price_mad).toBe(18_500);
    expect(property.held_back).toEqual([{ field: 'price', code: 'PRICE_IMPLAUSIBLE', message: expect.stringMatching(/^Prix retenu : /) }]);
    expect(property.held_back?.[0]?.message).toMatch(/--confirm price/);
    expect(property.market?.position).toBeNull();
    expect(property.market?.delta_pct).toBeNull();
    expect(property.market?.position_withheld).toMatch(/douteux/);
    expect(property.price_per_m2_mad).toBeNull();
    const angles = property.marketing_angles.join('\n');
    expect(angles).not.toMatch(/rendement|aide|18 500|médiane/);
    // The warnings name the field, in the request's language.
    expect(property.warnings.filter((w) => w.field === 'price').map((w) => w.code)).toEqual([
      'PRICE_PER_M2_IMPLAUSIBLE',
      'SALE_PRICE_LOOKS_LIKE_RENT',
    ]);
    expect(property.warnings[0]?.message).toMatch(/^18 500 DH pour 110 m² font 168 DH\/m²/);
  });

  it('builds the claims on a confirmed price, as before', async () => {
    const property = await analyzeListing({ description: TYPO, confirmed_facts: ['price'] });
    expect(property.held_back).toEqual([]);
    expect(property.market?.position).toBe('below');
    expect(property.market?.position_withheld).toBeUndefined();
    expect(property.price_per_m2_mad).toBe(168);
    expect(property.marketing_angles.join('\n')).toMatch(/médiane de Maârif/);
  });

  it('writes the held-back message in English and Arabic too', async () => {
    const en = await analyzeListing({ description: TYPO, language: 'en' });
    expect(en.held_back?.[0]?.message).toMatch(/^Price held back: 18 500 MAD for 110 m² gives 168 MAD\/m²/);
    const ar = await analyzeListing({ description: TYPO, language: 'ar' });
    expect(ar.held_back?.[0]?.message).toMatch(/^الثمن موقوف: /);
    expect(ar.warnings.find((w) => w.code === 'SALE_PRICE_LOOKS_LIKE_RENT')?.message).toMatch(/^ثمن بيع 18 500 درهم/);
  });

  it('holds back a rent priced like a sale, and an implausible surface', async () => {
    const rent = await analyzeListing({
      description: 'Appartement à louer à Agdal, Rabat, 90 m², loyer 2 500 000 DH par mois',
      language: 'en',
    });
    expect(rent.held_back?.map((f) => f.field)).toContain('price');
    expect(rent.warnings.find((w) => w.code === 'RENT_LOOKS_LIKE_SALE')?.field).toBe('price');
    // A studio of 400 m²: the surface is doubted, and the price per m² with it, not the price.
    const huge = await analyzeListing({ description: 'Studio à vendre à Maârif, Casablanca, 400 m², 1 200 000 DH', language: 'en' });
    expect(huge.held_back?.map((f) => f.field)).toEqual(['surface']);
    expect(huge.market?.position ?? null).toBeNull();
    const confirmed = await analyzeListing({
      description: 'Studio à vendre à Maârif, Casablanca, 400 m², 1 200 000 DH',
      confirmed_facts: ['surface'],
    });
    expect(confirmed.held_back).toEqual([]);
  });

  it('holds nothing back in a plausible listing', async () => {
    const property = await analyzeListing({ description: 'Appartement à vendre 110 m² à Maârif, Casablanca, 3 chambres, 1 850 000 DH' });
    expect(property.held_back).toEqual([]);
    expect(property.market?.position).not.toBeNull();
  });
});

describe('a held-back price on the video and in the records', () => {
  const storyboard = (held: boolean) =>
    buildStoryboard({
      template: loadTemplate('classic'),
      listing: demoProperty(held ? { held_back: [{ field: 'price', code: 'PRICE_IMPLAUSIBLE', message: 'doubtful' }] } : {}),
      photos: photos(8),
      format: 'landscape',
      durationS: 30,
      language: 'fr',
      branding: {},
      hasLogo: false,
    });

  it('draws no price card for a held-back price, and one otherwise', () => {
    expect(storyboard(true).shots.some((s) => s.scene === 'price')).toBe(false);
    expect(storyboard(true).dropped).toContainEqual({ scene: 'price', reason: 'price held back: not confirmed' });
    expect(storyboard(false).shots.some((s) => s.scene === 'price')).toBe(true);
  });

  it('keeps a listing’s held-back facts in a render request, unless the request confirms them', () => {
    const listing = { ...demoProperty(), held_back: [{ field: 'price' as const, code: 'PRICE_IMPLAUSIBLE', message: 'doubtful' }] };
    expect(validateRenderRequest({ listing, photos: ['https://example.com/a.jpg'] }, 'server').listing?.held_back).toHaveLength(1);
    const confirmed = validateRenderRequest({ listing, photos: ['https://example.com/a.jpg'], confirmed_facts: ['price'] }, 'server');
    expect(confirmed.listing?.held_back).toEqual([]);
    const analysed = validateRenderRequest(
      { description: TYPO, photos: ['https://example.com/a.jpg'], confirmed_facts: ['price'] },
      'server',
    );
    expect(analysed.input.confirmed_facts).toEqual(['price']);
  });

  it('refuses an unknown fact to confirm, naming the field', () => {
    expect(() => validateRenderRequest({ description: TYPO, confirmed_facts: ['colour'] }, 'server')).toThrow(/confirmed_facts/);
  });

  it('reads confirmed_facts from a batch cell, | or , separated', () => {
    expect(splitConfirmedFacts(' Price | surface,price ')).toEqual(['price', 'surface']);
    expect(batchRowRequest({ description: TYPO, confirmed_facts: 'price' }, 'r1').confirmed_facts).toEqual(['price']);
    expect(batchRowRequest({ description: TYPO }, 'r1').confirmed_facts).toBeUndefined();
  });

  it('keeps held_back with the job’s listing and gives it back at the top of the record', () => {
    const held = [{ field: 'price' as const, code: 'PRICE_IMPLAUSIBLE', message: 'doubtful' }];
    const summary = listingSummary({ ...demoProperty(), held_back: held });
    expect(summary.held_back).toEqual(held);
    expect(listingSummary(demoProperty()).held_back).toBeUndefined();
    const row: JobRow = {
      job_id: 'job_01m8h1yyj40pmdw1d22cnzmhyv',
      tenant: 'local',
      state: 'queued',
      stage: null,
      progress: 0,
      attempts: 0,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      started_at: null,
      finished_at: null,
      template: 'classic',
      format: 'landscape',
      language: 'fr',
      input_hash: 'x',
      allow_local_files: 0,
      link_base: '/api/v1',
      listing_json: JSON.stringify(summary),
      result_json: null,
      error_code: null,
      error_message: null,
      warnings_json: '[]',
      metadata_json: null,
      owner: null,
      owner_host: null,
      owner_pid: null,
      lease_expires_at: null,
      expired_at: null,
      formats_json: null,
      outputs_json: null,
      units: 0,
      charge_key_id: null,
      charge_period: null,
      refunded_at: null,
    };
    const record = toJobRecord(row, '/tmp');
    expect(record.held_back).toEqual(held);
    expect(record.listing).toEqual({ title: summary.title, city: 'Casablanca', district: 'Maârif', price_mad: 1_850_000 });
    expect(toJobRecord({ ...row, listing_json: null }, '/tmp').held_back).toEqual([]);
  });
});
