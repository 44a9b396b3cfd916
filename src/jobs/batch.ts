import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import pLimit from 'p-limit';
import { csvRecordLine, type CsvValue } from '../core/csv-cells.js';
import { AppError, badRequest, toAppError } from '../core/errors.js';
import { decodeText } from '../core/text.js';
import { batchCsvOptions, detectDelimiter, withCanonicalColumns } from './batch-row.js';

/** One data row of a batch CSV, keyed by its `id` column (or, when absent, an id derived from the row: `derivedRowId`). */
export interface BatchRow {
  /** 1-based line of the row in the file, for error messages. */
  line: number;
  id: string;
  values: Record<string, string>;
}

export interface BatchFile {
  columns: string[];
  rows: BatchRow[];
  /** Header names the batch does not know (the caller reports them). */
  unknownColumns: string[];
}

/**
 * The columns a batch knows: canonical names, and the other names accepted for them (the CLI's
 * own option names, so `duration` works as well as `duration_s`). docs/cli.md lists them.
 */
export interface BatchColumns {
  known: readonly string[];
  aliases?: Readonly<Record<string, string>>;
}

/** Columns every batch accepts: the row id, and the error columns of a `.failed.csv` fed back in. */
const ALWAYS_KNOWN = ['id', 'error_code', 'error_message'];

/** Cells that say nothing about the listing: left out of a row's derived id. */
const NOT_THE_ROW = new Set(['id', 'error_code', 'error_message']);

/**
 * The id of a row without one (docs/cli.md "Batch CSV"): it names the row's video, so it must be
 * the same in every run for the same listing and differ between listings — never the row's line,
 * which tonight's CSV gives to another listing than yesterday's. A listing URL gives its portal and
 * its number (`mubawab-8418668`; a URL without a number, the portal and a hash of the URL); a row
 * without a URL, `row-` and a short hash of its non-empty cells.
 */
export function derivedRowId(values: Readonly<Record<string, string>>): string {
  const url = values.url?.trim();
  if (url) {
    const parsed = URL.canParse(url) ? new URL(url) : null;
    if (parsed !== null) {
      const site =
        parsed.hostname
          .replace(/^www\./, '')
          .split('.')[0]
          ?.replace(/[^a-z0-9]+/gi, '-')
          .toLowerCase() || 'listing';
      // A portal's listing number is the longest run of digits in its path (or query).
      const numbers = `${parsed.pathname}${parsed.search}`.match(/\d{4,}/g) ?? [];
      const number = numbers.sort((a, b) => b.length - a.length)[0];
      return `${site}-${number ?? shortHash(url)}`.slice(0, 100);
    }
  }
  const cells = Object.entries(values)
    .filter(([column, value]) => !NOT_THE_ROW.has(column) && value.trim() !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([column, value]) => [column, value.trim()]);
  return `row-${shortHash(JSON.stringify(cells))}`;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10);
}

/** Levenshtein distance, for "did you mean" on misspelt column names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

async function readAll(file: string): Promise<Buffer> {
  if (file !== '-') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads a whole CSV (header row; `-` is stdin) before anything runs. Separators `,` `;` or tab and
 * encodings UTF-8 (with or without BOM), UTF-16 and Windows-1252 are recognised (Excel's saves).
 * Headers are case-insensitive; aliases are mapped to their canonical names; a column the batch
 * does not know is refused when it looks like a misspelling of one it knows, else reported in
 * `unknownColumns` for the caller to warn about.
 */
export async function readBatchCsv(file: string, columnsSpec: BatchColumns = { known: [] }): Promise<BatchFile> {
  let buffer: Buffer;
  try {
    buffer = await readAll(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw badRequest(`CSV file not found: ${file}. Check the path.`, { details: [{ field: 'csv', message: 'no such file' }] });
    if (code === 'EISDIR')
      throw badRequest(`${file} is a folder: --csv takes a CSV file.`, { details: [{ field: 'csv', message: 'is a folder' }] });
    throw error;
  }
  const { text } = decodeText(buffer);
  const delimiter = detectDelimiter(text);
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, { ...batchCsvOptions(delimiter), info: true }) as { record: Record<string, string>; info: { lines: number } }[];
  } catch (error) {
    throw badRequest(
      `${file} is not a valid CSV file (${(error as Error).message.replace(/^Invalid /, 'invalid ')}). Save it from your spreadsheet as "CSV UTF-8".`,
      {
        details: [{ field: 'csv', message: 'not a valid CSV file' }],
      },
    );
  }
  const aliases = columnsSpec.aliases ?? {};
  const known = new Set([...ALWAYS_KNOWN, ...columnsSpec.known]);
  const header = records.length > 0 ? Object.keys(records[0]!.record) : [];
  const unknownColumns: string[] = [];
  if (columnsSpec.known.length > 0) {
    for (const column of header) {
      if (known.has(column) || aliases[column] !== undefined) continue;
      const candidates = [...known, ...Object.keys(aliases)];
      const close = candidates.find((candidate) => distance(column, candidate) <= Math.min(2, Math.floor(candidate.length / 3)));
      if (close !== undefined) {
        throw badRequest(
          `${file}: unknown column "${column}" — did you mean "${aliases[close] ?? close}"? Rename the column and run again.`,
          {
            details: [{ field: column, message: `unknown column; did you mean ${aliases[close] ?? close}?` }],
          },
        );
      }
      unknownColumns.push(column);
    }
  }
  const rows: BatchRow[] = [];
  const seen = new Set<string>();
  for (const entry of records) {
    const line = entry.info.lines;
    const values = withCanonicalColumns(entry.record, aliases);
    const rawId = values.id?.trim();
    let id = rawId ? rawId : derivedRowId(values);
    // Two rows with the same listing and no id of their own: the later one is told apart by its line.
    if (!rawId && seen.has(id)) id = `${id}-${line}`;
    if (seen.has(id)) {
      throw badRequest(`${file}:${line}: duplicate id ${JSON.stringify(id)}; every row needs its own id.`, {
        details: [{ field: `line ${line}`, message: 'duplicate id' }],
      });
    }
    seen.add(id);
    rows.push({ line, id, values });
  }
  if (rows.length === 0) throw badRequest(`${file} has no data rows (a header row, then one row per listing).`);
  return { columns: header, rows, unknownColumns };
}

export type BatchOutcome<T> = { id: string; ok: true; value: T; row: BatchRow } | { id: string; ok: false; error: AppError; row: BatchRow };

export interface BatchSummary {
  total: number;
  succeeded: number;
  failed: number;
  skipped: number;
}

export interface RunBatchOptions<T> {
  concurrency: number;
  /** Called as each row finishes, in completion order (NDJSON streaming). */
  onOutcome: (outcome: BatchOutcome<T>) => void | Promise<void>;
  shouldSkip?: (row: BatchRow) => boolean;
}

/** Runs every row with bounded concurrency; a failing row never stops the others. */
export async function runBatch<T>(
  rows: BatchRow[],
  work: (row: BatchRow) => Promise<T>,
  options: RunBatchOptions<T>,
): Promise<BatchSummary> {
  const limit = pLimit(Math.max(1, options.concurrency));
  const summary: BatchSummary = { total: rows.length, succeeded: 0, failed: 0, skipped: 0 };
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        if (options.shouldSkip?.(row)) {
          summary.skipped += 1;
          return;
        }
        let outcome: BatchOutcome<T>;
        try {
          outcome = { id: row.id, ok: true, value: await work(row), row };
          summary.succeeded += 1;
        } catch (error) {
          outcome = { id: row.id, ok: false, error: toAppError(error), row };
          summary.failed += 1;
        }
        await options.onOutcome(outcome);
      }),
    ),
  );
  return summary;
}

/**
 * Writes the failed rows in the input's own columns plus the error, ready to fix and re-run; cells
 * are neutralised and readBatchCsv restores them (docs/security.md, "CSV files").
 */
export async function writeFailedCsv(file: string, columns: string[], failed: { row: BatchRow; error: AppError }[]): Promise<void> {
  const header = [...columns.filter((c) => c !== 'error_code' && c !== 'error_message'), 'error_code', 'error_message'];
  const records = [...failed]
    .sort((a, b) => a.row.line - b.row.line)
    .map(({ row, error }) =>
      header.map((c) => (c === 'error_code' ? error.code : c === 'error_message' ? error.message : (row.values[c] ?? ''))),
    );
  await writeFile(file, [header, ...records].map((cells) => csvRecordLine(cells)).join(''));
}

/** `listings.csv` → `listings.failed.csv` (docs/cli.md); stdin has none unless asked for. */
export function failedFileFor(csvFile: string): string | null {
  if (csvFile === '-') return null;
  return csvFile.replace(/(\.csv)?$/i, '.failed.csv');
}

/** Writes the failed rows, or removes a stale list when every row succeeded (it would mislead). */
export async function updateFailedCsv(file: string | null, columns: string[], failed: { row: BatchRow; error: AppError }[]): Promise<void> {
  if (file === null) return;
  if (failed.length > 0) await writeFailedCsv(file, columns, failed);
  else await rm(file, { force: true });
}

/** One line of a CSV the CLI writes: formula-like cells neutralised (docs/security.md, "CSV files"). */
export function csvLine(values: CsvValue[]): string {
  return csvRecordLine(values);
}
