/**
 * Pathological texts for the analysis entry points (docs/security.md): long runs of each
 * character class, nested brackets, repeated separators and near-misses of what the patterns
 * look for. Shared by the linear-time test and `npm run bench:adversarial`, so both measure the
 * same inputs. Every page and row here is written by us.
 */
import { parse } from 'csv-parse/sync';
import { analyzeListing } from '../src/analysis/analyze.js';
import { csvLine } from '../src/jobs/batch.js';

export interface Pathological {
  name: string;
  /** Exactly `length` characters. */
  make(length: number): string;
}

const repeat =
  (unit: string) =>
  (length: number): string =>
    unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

export const PATHOLOGICAL: Pathological[] = [
  { name: 'word characters, no @', make: repeat('a') },
  { name: 'digits', make: repeat('1') },
  { name: 'spaces', make: repeat(' ') },
  { name: 'newlines', make: repeat('\n') },
  { name: 'tabs and spaces', make: repeat('\t \u00a0') },
  { name: 'dots', make: repeat('.') },
  { name: 'commas', make: repeat(',') },
  { name: 'dashes', make: repeat('-') },
  { name: 'colons', make: repeat(':') },
  { name: 'slashes', make: repeat('/') },
  { name: 'at signs', make: repeat('@') },
  { name: 'plus signs', make: repeat('+') },
  { name: 'Arabic letters', make: repeat('م') },
  { name: 'Arabic-Indic digits', make: repeat('٣') },
  { name: 'address characters a.b+', make: repeat('a.b+') },
  { name: 'e-mail near-miss a@b', make: repeat('a@b') },
  { name: 'phone near-miss 06 12', make: repeat('06 12 ') },
  { name: 'country code 212', make: repeat('212') },
  { name: 'nested round brackets', make: (n) => '('.repeat(Math.floor(n / 2)) + ')'.repeat(n - Math.floor(n / 2)) },
  { name: 'open round brackets', make: repeat('(') },
  {
    name: 'nested mixed brackets',
    make: (n) => '[{('.repeat(Math.floor(n / 6)).padEnd(n - Math.floor(n / 6) * 3, ' ') + ')}]'.repeat(Math.floor(n / 6)),
  },
  { name: 'angle brackets', make: repeat('<') },
  { name: 'repeated separators " - "', make: repeat(' - ') },
  { name: 'repeated separators ", "', make: repeat(', ') },
  { name: 'repeated separators " | "', make: repeat(' | ') },
  { name: 'grouped numbers 1 234', make: repeat('1 234 ') },
  { name: 'decimal runs 1.2,', make: repeat('1.2,') },
  { name: 'surfaces m²', make: repeat('12 m² ') },
  { name: 'price words', make: repeat('prix dh ') },
  { name: 'place words à', make: repeat('à ') },
  { name: 'distance words', make: repeat('3 min de ') },
  { name: 'room labels', make: repeat('chambres : ') },
];

/** A listing page (our own, shaped like a Mubawab page) whose title and description are `text`. */
export function pageWith(text: string): string {
  const json = JSON.stringify(text);
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><title>${escaped}</title>
<link rel="canonical" href="https://www.mubawab.ma/fr/a/7654321/villa-a-vendre" />
<script type="application/ld+json">{"@context":"https://schema.org","@type":"RealEstateListing","name":${json},"description":${json},
"offers":{"@type":"Offer","price":4500000.0,"priceCurrency":"MAD"},
"itemOffered":{"@type":"Apartment","address":{"@type":"PostalAddress","addressLocality":"Marrakech"},"numberOfBedrooms":4,"floorSize":{"@type":"QuantitativeValue","value":320,"unitCode":"MTR"}}}</script>
</head><body><h1 class="searchTitle">${escaped}</h1><div class="blockProp"><p>${escaped}</p></div></body></html>`;
}

/** What a text costs to analyse through each entry point: a pasted description, a saved page, a CSV row. */
export const ENTRY_POINTS: { name: string; run(text: string): Promise<unknown> }[] = [
  { name: 'description', run: (text) => analyzeListing({ description: `Villa à Marrakech 300 m² ${text}` }).catch(() => null) },
  { name: 'page html', run: (text) => analyzeListing({ html: pageWith(text) }).catch(() => null) },
  {
    name: 'CSV row',
    run: (text) => {
      const [row] = parse(`description\n${csvLine([`Villa à Marrakech 300 m² ${text}`])}`, { columns: true }) as { description: string }[];
      return analyzeListing({ description: row!.description }).catch(() => null);
    },
  },
];

/** The fastest of `runs` timings of one call, in ms (the minimum is the least noisy estimate). */
export async function fastestMs(run: () => Promise<unknown>, runs: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
