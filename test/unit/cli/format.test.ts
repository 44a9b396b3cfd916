import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';
import { formatProperty } from '../../../src/cli/format.js';
import type { Language } from '../../../src/core/types.js';

/*
 * The readable summary of `analyze` (without --json) in the language the user asked for: no
 * English label, fact word, market word or --explain line left in French or Arabic, and no
 * internal source key or document reference in any language.
 */

const plain = new Chalk({ level: 0 });
const demo = await readFile(join(import.meta.dirname, '../../../assets/demo/listing.txt'), 'utf8');
// A rent of a small unit: the "/month" words and the studio uplift of the market source.
const studio = 'Studio meublé à louer, 35 m², au rez-de-chaussée, Maârif, Casablanca. Loyer : 4 500 DH/mois.';

/** English words the summary used to print whatever --language said. */
const ENGLISH = [
  /\bin line\b/,
  /\bbelow\b/,
  /\babove\b/,
  /vs median/,
  /\bmedian\b/,
  /\bconfidence\b/,
  /\bthen\b/,
  /\bbedrooms?\b/,
  /\bbathrooms?\b/,
  /\bfloor\b/,
  /ground floor/,
  /\brooms?\b/,
  /\bapartment\b/,
  /\/month/,
  /\bstated\b/,
  /Where each fact/,
  /page data/,
  /page text/,
  /\bhigh\b/,
  /\bmedium\b/,
  /\blow\b/,
  /\basks\b/,
  /district medians/,
  /uplift/,
  /price_mad|surface_m2|property_type/,
  /\bfor (sale|rent)\b/,
  /\bbudget\b(?! \d)/,
];

async function summary(description: string, language: Language): Promise<string> {
  const property = await analyzeListing({ description, language });
  return formatProperty(property, plain, { language, explain: true });
}

describe('the readable analyze summary', () => {
  for (const language of ['fr', 'ar'] as const) {
    it(`has no English words left in --language ${language}`, async () => {
      for (const description of [demo, studio]) {
        const text = await summary(description, language);
        // The listing's own title is the seller's words: only the lines the summary writes are checked.
        const written = text
          .split('\n')
          .slice(1)
          .filter((line) => !line.startsWith('  •') && !/^\s+“/.test(line))
          .join('\n');
        for (const word of ENGLISH) expect(written, `${language}: ${String(word)}`).not.toMatch(word);
      }
    });
  }

  it('speaks the language asked for: market position, facts, source and --explain', async () => {
    const fr = await summary(demo, 'fr');
    expect(fr).toMatch(/Marché\s+dans la norme \(-8\.7 % par rapport à la médiane\)/);
    expect(fr).toContain('appartement · 120 m² · 3 chambres · 2 salles de bain · 3e étage');
    expect(fr).toContain('médiane 16 892 MAD/m² à Maârif, Casablanca');
    expect(fr).toContain('confiance élevée');
    expect(fr).toContain('sur Avito + Yakeey, nov.–déc. 2024');
    expect(fr).toContain('D’où vient chaque information');
    expect(fr).toMatch(/prix \(MAD\)\s+1850000\s+description, confiance 0\.\d\d/);
    const ar = await summary(demo, 'ar');
    expect(ar).toMatch(/السوق\s+في مستوى السوق/);
    expect(ar).toContain('3 غرف نوم');
    expect(ar).toContain('مصدر كل معلومة');
    expect(ar).toContain('1 850 000 درهم');
    const rent = await summary(studio, 'fr');
    expect(rent).toContain('/mois');
    expect(rent).toContain('rez-de-chaussée');
  });

  it('never shows a source key or a document reference', async () => {
    for (const language of ['en', 'fr', 'ar'] as const) {
      for (const description of [demo, studio]) {
        const text = await summary(description, language);
        expect(text).not.toMatch(/\[[A-Z0-9-]{3,}\]|docs\/|research\/|§/);
        // The month is in words ("nov.–déc. 2024"), never the raw "2024-12".
        expect(text).not.toMatch(/\b20\d\d-\d\d\b/);
      }
    }
  });
});
