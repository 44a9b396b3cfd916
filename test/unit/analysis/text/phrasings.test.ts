import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../../src/analysis/analyze.js';
import { extractFacts } from '../../../../src/analysis/text/extract.js';
import { NO_FACT_TEXTS, PHRASINGS as FIRST_BATCH, type Expected } from '../../../fixtures/text/phrasings.js';
import { UNSEEN_PHRASINGS } from '../../../fixtures/text/phrasings-unseen.js';

const PHRASINGS = [...FIRST_BATCH, ...UNSEEN_PHRASINGS];

/** The fixture corpus (docs/analysis-text.md "Fixture corpus"): each phrasing gives the facts it states. */

const FIELDS: ReadonlyArray<[keyof Expected, keyof ReturnType<typeof extractFacts>]> = [
  ['t', 'property_type'],
  ['tr', 'transaction'],
  ['p', 'price_mad'],
  ['s', 'surface_m2'],
  ['st', 'surface_total_m2'],
  ['b', 'bedrooms'],
  ['c', 'city'],
  ['d', 'district'],
];

function read(text: string, expected: Expected): Record<string, unknown> {
  const facts = extractFacts(text);
  const got: Record<string, unknown> = {};
  for (const [key, field] of FIELDS) if (key in expected) got[key] = facts[field];
  if (expected.w !== undefined)
    got.w = facts.warnings.some((warning) => warning.code === expected.w) ? expected.w : facts.warnings.map((w) => w.code);
  return got;
}

describe('fixture corpus of hand-written phrasings', () => {
  it('holds at least 300 phrasings across the six families, and a second batch of 150 in unseen styles', () => {
    expect(FIRST_BATCH.length).toBeGreaterThanOrEqual(300);
    expect(UNSEEN_PHRASINGS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(FIRST_BATCH.map(([family]) => family)).size).toBe(6);
  });

  it.each(PHRASINGS.map(([family, text, expected]) => [family, text, expected] as const))('%s: %s', (_family, text, expected) => {
    expect(read(text, expected)).toEqual(expected);
  });

  it('analyses every short text that states a fact, with a FEW_FACTS warning, instead of refusing it', async () => {
    for (const [family, text] of PHRASINGS) {
      if (family !== 'short' || text === 'Piscine, jardin') continue;
      const property = await analyzeListing({ description: text });
      expect(
        property.warnings.map((warning) => warning.code),
        text,
      ).toContain('FEW_FACTS');
    }
  });

  it('refuses a text with no property fact, saying so', async () => {
    for (const text of NO_FACT_TEXTS) {
      await expect(analyzeListing({ description: text }), text).rejects.toThrow(/states no property fact/);
    }
  });
});
