import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { neutraliseCsvCell, restoreCsvCell } from '../../../src/core/csv-cells.js';
import { csvLine, readBatchCsv, writeFailedCsv, type BatchRow } from '../../../src/jobs/batch.js';
import { csvRecords, toCsv } from '../../../web/src/csv.js';

/*
 * CSV cells a spreadsheet cannot run (docs/security.md, "CSV files"): every writer neutralises
 * formula-like cells, and reading our own file back gives the exact values written. fast-check
 * prints the seed and the shrunk counterexample on failure; `FC_SEED=<n>` replays it, and under CI
 * the seed is fixed (as in the extraction's invariance suite).
 */

const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : process.env.CI !== undefined ? 20_261_125 : undefined;
const RUNS = { numRuns: 200, ...(SEED === undefined ? {} : { seed: SEED }) };

/** Payloads the tester used, as a user's spreadsheet would receive them. */
const PAYLOADS = [
  `=cmd|' /C calc'!A0`,
  '=HYPERLINK("http://evil.example/","Cliquez")',
  '+SUM(1,2)',
  '@SUM(1)',
  '-2+3+cmd|x!A0',
  '\t=1+1',
  '\r=1',
];

/** The characters that matter to the rule, often, and anything else sometimes. */
const cell = fc.oneof(
  fc
    .array(fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', ';', ' ', '5', '.', 'a', 'é', 'ب'), { maxLength: 8 })
    .map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...PAYLOADS, '-5', '-12.5', "'-5", "''=x"),
);

const dir = mkdtempSync(join(tmpdir(), 'immoreel-csv-cells-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The cells as a spreadsheet sees them: the raw file, no restoring. */
function rawCells(text: string): string[][] {
  return parse(text, { relax_column_count: true }) as string[][];
}

function expectNoFormula(cells: string[]): void {
  for (const value of cells) if (!/^-\d+(\.\d+)?$/.test(value)) expect(value).not.toMatch(/^[=+\-@\t\r]/);
}

describe('the CSV cell rule', () => {
  it('prefixes a quote to formula-like cells and keeps plain text and negative numbers as they are', () => {
    expect(PAYLOADS.map(neutraliseCsvCell)).toEqual(PAYLOADS.map((p) => `'${p}`));
    expect(['Villa', '-5', '-12.5', '5', "l'Agdal", ''].map(neutraliseCsvCell)).toEqual(['Villa', '-5', '-12.5', '5', "l'Agdal", '']);
    expect(neutraliseCsvCell('-5e3')).toBe("'-5e3");
  });

  it('restores exactly what it neutralised, whatever the string (property-based)', () => {
    fc.assert(
      fc.property(cell, (value) => {
        expect(restoreCsvCell(neutraliseCsvCell(value))).toBe(value);
        expect(neutraliseCsvCell(value)).not.toMatch(/^(?!-\d+(\.\d+)?$)[=+\-@\t\r]/);
      }),
      RUNS,
    );
  });
});

describe('every CSV writer neutralises formulas and reads back what it wrote', () => {
  it('a .failed.csv: cells neutralised on disk, readBatchCsv gives back every value (property-based)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 5 }), async (values) => {
        const file = join(dir, `round-${(n += 1)}.failed.csv`);
        const rows: BatchRow[] = values.map(([description, notes], i) => ({
          line: i + 2,
          id: `r${i}`,
          values: { id: `r${i}`, description, notes },
        }));
        const failed = rows.map((row, i) => ({ row, error: new AppError('BAD_REQUEST', values[i]![2]) }));
        await writeFailedCsv(file, ['id', 'description', 'notes'], failed);
        const batch = await readBatchCsv(file);
        expect(batch.rows.map((r) => r.values)).toEqual(
          values.map(([description, notes, message], i) => ({
            id: `r${i}`,
            description,
            notes,
            error_code: 'BAD_REQUEST',
            error_message: message,
          })),
        );
      }),
      RUNS,
    );
  });

  it("a .failed.csv with the tester's payloads as ids and texts", async () => {
    const file = join(dir, 'payloads.failed.csv');
    const rows: BatchRow[] = PAYLOADS.map((payload, i) => ({
      line: i + 2,
      id: payload,
      values: { id: payload, description: PAYLOADS[(i + 1) % PAYLOADS.length]! },
    }));
    await writeFailedCsv(
      file,
      ['id', 'description'],
      rows.map((row) => ({ row, error: new AppError('BAD_REQUEST', '=HYPERLINK("http://evil.example/")') })),
    );
    const cells = rawCells(readFileSync(file, 'utf8'));
    expect(cells.slice(1).map((r) => r[0])).toEqual(PAYLOADS.map((p) => `'${p}`));
    for (const row of cells) expectNoFormula(row);
    expect((await readBatchCsv(file)).rows.map((r) => r.id)).toEqual(PAYLOADS.map((p) => p.trim()));
  });

  it("analyze's results CSV (csvLine): payload cells neutralised, numbers and booleans kept", () => {
    const text = csvLine(['id', 'ok', 'title', 'market_delta_pct']) + PAYLOADS.map((p) => csvLine([p, true, p, -12])).join('');
    const cells = rawCells(text);
    for (const row of cells) expectNoFormula(row);
    expect(cells[1]).toEqual([`'${PAYLOADS[0]}`, 'true', `'${PAYLOADS[0]}`, '-12']);
  });

  it("the Studio's failed-rows download (toCsv): neutralised on disk, read back by the page unchanged (property-based)", () => {
    const columns = ['id', 'description', 'error_code', 'error_message'];
    const payloadRows = PAYLOADS.map((p, i) => ({ id: `p${i}`, description: p, error_code: 'BAD_REQUEST', error_message: p }));
    for (const row of rawCells(toCsv(columns, payloadRows))) expectNoFormula(row);
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 5 }), (values) => {
        const rows = values.map(([description, message], i) => ({ id: `r${i}`, description, error_code: 'X', error_message: message }));
        expect(csvRecords(toCsv(columns, rows)).records).toEqual(rows);
      }),
      RUNS,
    );
  });
});
