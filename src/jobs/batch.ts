import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import pLimit from 'p-limit';
import { AppError, badRequest, toAppError } from '../core/errors.js';

/** One data row of a batch CSV, keyed by its `id` column (or its line number when absent). */
export interface BatchRow {
  /** 1-based line of the row in the file, for error messages. */
  line: number;
  id: string;
  values: Record<string, string>;
}

export interface BatchFile {
  columns: string[];
  rows: BatchRow[];
}

/** Reads a whole CSV (RFC 4180, header row, optional BOM; `-` is stdin) before anything runs. */
export async function readBatchCsv(file: string): Promise<BatchFile> {
  const input = file === '-' ? process.stdin : createReadStream(file);
  const parser = input.pipe(
    parse({ bom: true, columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true, info: true }),
  );
  const rows: BatchRow[] = [];
  let columns: string[] = [];
  const seen = new Set<string>();
  try {
    for await (const entry of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (columns.length === 0) columns = Object.keys(entry.record);
      const line = entry.info.lines;
      const rawId = entry.record.id?.trim();
      const id = rawId ? rawId : `line-${line}`;
      if (seen.has(id)) {
        throw badRequest(`${file}:${line}: duplicate id ${JSON.stringify(id)}; every row needs its own id.`, {
          details: [{ field: `line ${line}`, message: 'duplicate id' }],
        });
      }
      seen.add(id);
      rows.push({ line, id, values: entry.record });
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw badRequest(`CSV file not found: ${file}`);
    throw badRequest(`${file} is not a valid CSV file: ${(error as Error).message}`);
  }
  if (rows.length === 0) throw badRequest(`${file} has no data rows (a header row, then one row per listing).`);
  return { columns, rows };
}

export type BatchOutcome<T> =
  | { id: string; ok: true; value: T; row: BatchRow }
  | { id: string; ok: false; error: AppError; row: BatchRow };

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

/** Writes the failed rows in the input's own columns plus the error, ready to fix and re-run. */
export async function writeFailedCsv(file: string, columns: string[], failed: { row: BatchRow; error: AppError }[]): Promise<void> {
  const header = [...columns.filter((c) => c !== 'error_code' && c !== 'error_message'), 'error_code', 'error_message'];
  const records = [...failed]
    .sort((a, b) => a.row.line - b.row.line)
    .map(({ row, error }) => header.map((c) => (c === 'error_code' ? error.code : c === 'error_message' ? error.message : row.values[c] ?? '')));
  await writeFile(file, stringify([header, ...records]));
}

/** `listings.csv` → `listings.failed.csv` (docs/cli.md). */
export function failedFileFor(csvFile: string): string {
  if (csvFile === '-') return 'stdin.failed.csv';
  return csvFile.replace(/(\.csv)?$/i, '.failed.csv');
}

export function csvLine(values: (string | number | boolean | null | undefined)[]): string {
  // csv-stringify writes booleans as 1/'' by default; result files say true/false.
  return stringify([values.map((v) => (v === null || v === undefined ? '' : v))], { cast: { boolean: (v) => String(v) } });
}
