/**
 * Runs the portal adapters on the real saved pages of ../shared/data/portals through the same
 * path as `immoreel analyze --url URL --html-file PAGE` (analyzeListing with `url` + `html`), and
 * compares the full analysis with portals-expected.json field by field.
 *
 *   npm run eval:portals [-- DATA_DIR]     (default ../shared/data, or IMMOREEL_EVAL_DATA)
 *
 * Exit status 1 when a field does not match, so it can gate a change.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeListing } from '../src/analysis/analyze.js';
import { isAppError } from '../src/core/errors.js';
import type { Property } from '../src/core/types.js';

type Expected = Record<string, unknown> & { url: string; note?: string };

const dataDir = process.argv[2] ?? process.env.IMMOREEL_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
const expectedFile = join(dataDir, 'portals-expected.json');
if (!existsSync(expectedFile)) {
  console.error(`No ${expectedFile}: pass the data directory (npm run eval:portals -- DIR).`);
  process.exit(2);
}
const expectations = JSON.parse(readFileSync(expectedFile, 'utf8')) as Record<string, Expected>;

/** Keys of the expectation file that are not output fields to compare. */
const NOT_FIELDS = new Set(['url', 'note']);

function arabicShare(text: string): number {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length === 0 ? 0 : (letters.match(/[\u0600-\u06ff]/g) ?? []).length / letters.length;
}

/** The value of the analysis that an expectation key is about. */
function actualValue(property: Property, field: string): unknown {
  switch (field) {
    case 'portal':
      return property.source.portal;
    case 'listing_id':
      return property.source.listing_id;
    case 'currency':
      // The currency the listing states: the original's when it was converted.
      return property.price_original?.currency ?? property.currency;
    case 'photos':
      return property.photos.length;
    case 'feature_keys':
      return [...property.feature_keys].sort();
    case 'language_of_listing':
      return arabicShare(property.title) > 0.5 ? 'ar' : 'fr/en';
    case 'expect_warning':
      // A plausibility warning: a contradiction between fields and text is not one.
      return property.warnings.some((w) => w.code !== 'CONTRADICTION');
    default:
      return (property as unknown as Record<string, unknown>)[field];
  }
}

function show(value: unknown): string {
  if (value === undefined) return '—';
  const text = Array.isArray(value) ? value.join(',') : JSON.stringify(value);
  return text.length > 72 ? `${text.slice(0, 69)}…` : text;
}

interface Row {
  file: string;
  field: string;
  expected: string;
  actual: string;
  ok: boolean;
}

const rows: Row[] = [];
const notes: string[] = [];
for (const [file, expected] of Object.entries(expectations)) {
  const html = readFileSync(join(dataDir, 'portals', file), 'utf8');
  let property: Property | null = null;
  let failure: string | null = null;
  try {
    property = await analyzeListing({ url: expected.url, html });
  } catch (error) {
    failure = isAppError(error) ? `${error.code}${error.reason ? `/${error.reason}` : ''}` : String(error);
    if (!isAppError(error)) console.error(error);
  }
  if (expected.note) notes.push(`${file}: ${expected.note}`);
  if (expected.not_a_listing === true) {
    rows.push({
      file,
      field: 'refused',
      expected: 'BAD_REQUEST/unsupported_url',
      actual: failure ?? 'analyzed',
      ok: failure === 'BAD_REQUEST/unsupported_url',
    });
    continue;
  }
  if (property === null) {
    rows.push({ file, field: 'analysis', expected: 'ok', actual: failure ?? '?', ok: false });
    continue;
  }
  for (const [field, want] of Object.entries(expected)) {
    if (NOT_FIELDS.has(field)) continue;
    const got = actualValue(property, field);
    const wanted =
      field === 'feature_keys' ? [...(want as string[])].sort() : field === 'language_of_listing' ? (want === 'ar' ? 'ar' : 'fr/en') : want;
    rows.push({ file, field, expected: show(wanted), actual: show(got), ok: JSON.stringify(got) === JSON.stringify(wanted) });
  }
  const warnings = property.warnings.map((w) => w.code).join(', ');
  if (warnings !== '') notes.push(`${file}: warnings ${warnings}`);
}

const widths = {
  file: Math.max(4, ...rows.map((r) => r.file.length)),
  field: Math.max(5, ...rows.map((r) => r.field.length)),
  expected: Math.max(8, ...rows.map((r) => r.expected.length)),
  actual: Math.max(6, ...rows.map((r) => r.actual.length)),
};
const line = (cells: [string, string, string, string, string]): string =>
  [
    cells[0].padEnd(widths.file),
    cells[1].padEnd(widths.field),
    cells[2].padEnd(widths.expected),
    cells[3].padEnd(widths.actual),
    cells[4],
  ].join('  ');
console.log(line(['file', 'field', 'expected', 'actual', 'ok']));
console.log(line(['-'.repeat(widths.file), '-'.repeat(widths.field), '-'.repeat(widths.expected), '-'.repeat(widths.actual), '--']));
for (const row of rows) console.log(line([row.file, row.field, row.expected, row.actual, row.ok ? 'ok' : 'MISMATCH']));
const matched = rows.filter((r) => r.ok).length;
console.log(`\n${matched}/${rows.length} fields match on ${Object.keys(expectations).length} pages.`);
if (notes.length > 0) console.log(`\nNotes:\n  ${notes.join('\n  ')}`);
process.exitCode = matched === rows.length ? 0 : 1;
