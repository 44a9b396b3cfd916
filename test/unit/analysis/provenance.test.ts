import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';
import { mergeFacts } from '../../../src/analysis/merge.js';
import { extractFacts } from '../../../src/analysis/text/extract.js';
import type { FieldProvenance } from '../../../src/core/types.js';
import { fixture } from '../../helpers/portal-fixtures.js';

function expectWellFormed(entry: FieldProvenance | undefined): FieldProvenance {
  expect(entry).toBeDefined();
  const value = entry as FieldProvenance;
  expect(value.excerpt.length).toBeGreaterThan(0);
  expect(value.excerpt.length).toBeLessThanOrEqual(120);
  expect(value.confidence).toBeGreaterThanOrEqual(0);
  expect(value.confidence).toBeLessThanOrEqual(1);
  return value;
}

describe('provenance of text facts', () => {
  it('quotes the words each field was read from, verbatim, with the description as source', () => {
    const text =
      'Appartement à vendre à Maârif\nBel appartement de 120 m² au 3ème étage, 3 chambres, 2 salles de bain + WC. Prix : 1 850 000 DH.';
    const facts = extractFacts(text);
    for (const field of [
      'transaction',
      'property_type',
      'price_mad',
      'surface_m2',
      'bedrooms',
      'bathrooms',
      'toilets',
      'floor',
      'city',
      'district',
    ] as const) {
      const entry = expectWellFormed(facts.provenance[field]);
      expect(entry.source).toBe('description');
      expect(text).toContain(entry.excerpt);
    }
    expect(facts.provenance.price_mad?.excerpt).toContain('1 850 000 DH');
    expect(facts.provenance.surface_m2?.excerpt).toContain('120 m²');
    expect(facts.provenance.floor?.excerpt).toContain('3ème étage');
    expect(facts.provenance.district?.excerpt).toContain('Maârif');
    // A title statement is surer than an inferred one.
    expect(facts.provenance.transaction?.confidence).toBeGreaterThan(0.8);
  });

  it('quotes Arabic and Darija text as written (presentation forms, no-break spaces)', () => {
    const text = 'شقة للبيع في الرباط\u00a0، 3 غرف و حمامين، الثمن 900\u00a0000 درهم';
    const facts = extractFacts(text);
    expect(text).toContain(expectWellFormed(facts.provenance.bedrooms).excerpt);
    expect(facts.provenance.bedrooms?.excerpt).toContain('3 غرف');
    expect(facts.provenance.price_mad?.excerpt).toContain('900\u00a0000 درهم');
  });

  it('keeps every excerpt within 120 characters in a long text, and never shows a phone number', () => {
    const filler = 'Résidence calme et sécurisée avec gardien, proche de toutes commodités, écoles et commerces. '.repeat(4);
    const facts = extractFacts(`Villa à vendre\n${filler}Contact 06 61 23 45 67, 4 chambres à Bouskoura, 5 000 000 DH. ${filler}`);
    for (const entry of Object.values(facts.provenance)) {
      expectWellFormed(entry);
      expect(entry.excerpt).not.toMatch(/61\s?23\s?45/);
    }
    expect(facts.provenance.bedrooms?.excerpt).toContain('4 chambres');
    const fullWidth = extractFacts('Appartement 3 chambres, appelez le ０６６１２３４５６７ ou a.b@mail.ma, Agdal Rabat');
    for (const entry of Object.values(fullWidth.provenance)) {
      expect(entry.excerpt).not.toMatch(/[６6]１?1?２?2?３?3?４?4?５/);
      expect(entry.excerpt).not.toContain('０６６');
      expect(entry.excerpt).not.toContain('@mail');
    }
    expect(fullWidth.provenance.bedrooms?.excerpt).toContain('3 chambres');
  });

  it('marks inferred values as less sure than stated ones', () => {
    const facts = extractFacts('Appartement 3 chambres dont une suite parentale, 2 salles de bain');
    const inferred = extractFacts('Appartement 3 chambres dont une suite parentale, cuisine');
    expect(facts.provenance.bathrooms?.confidence).toBeGreaterThan(inferred.provenance.bathrooms?.confidence ?? 1);
  });
});

describe('provenance across a page and a description', () => {
  it('names the page data as the source of its fields and the description for what it adds', async () => {
    const property = await analyzeListing({
      html: fixture('avito-next-data.html'),
      description: 'Appartement 4 chambres à Maârif, 2 salles de bain + WC, appelez le 06 61 23 45 67',
      language: 'en',
    });
    expect(property.provenance.price_mad).toMatchObject({ source: 'structured_data', excerpt: 'price_mad: 1350000' });
    expect(property.provenance.toilets).toMatchObject({ source: 'description' });
    for (const entry of Object.values(property.provenance)) expectWellFormed(entry);
    const contradiction = property.warnings.find((w) => w.code === 'CONTRADICTION' && w.field === 'bedrooms');
    expect(contradiction?.values).toEqual([
      { source: 'structured_data', value: '3', excerpt: 'bedrooms: 3' },
      { source: 'description', value: '4', excerpt: expect.stringContaining('4 chambres') },
    ]);
    expect(contradiction?.message).toMatch(/fields say 3 but the description says 4 \(".*4 chambres.*"\)/);
    expect(JSON.stringify(property)).not.toMatch(/61\s?23\s?45/);
  });

  it("carries the page text as source when the page's own description fills a gap, and both excerpts on a contradiction", () => {
    const page = extractFacts('Appartement 3 chambres à Agdal', { source: 'page_text' });
    const text = extractFacts('Appartement de 2 chambres, 5ème étage, Agdal Rabat');
    const merged = mergeFacts(page, text);
    expect(merged.provenance.bedrooms?.source).toBe('page_text');
    expect(merged.provenance.floor?.source).toBe('description');
    const warning = merged.warnings.find((w) => w.code === 'CONTRADICTION');
    expect(warning?.values?.map((v) => [v.source, v.value, v.excerpt])).toEqual([
      ['page_text', '3', expect.stringContaining('3 chambres')],
      ['description', '2', expect.stringContaining('2 chambres')],
    ]);
  });
});
