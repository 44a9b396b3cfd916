/*
 * CSV cells a spreadsheet cannot run (docs/security.md, "CSV files"). Every CSV the product writes
 * (analyze's `--out results.csv`, every `*.failed.csv`, the Studio's failed-rows download) goes
 * through csvRecordLine, and every batch CSV it reads goes through restoreCsvCell, so a title a
 * portal page's author chose cannot become a formula in the user's spreadsheet, and a file we wrote
 * reads back to exactly the values we wrote. Pure and free of Node modules: the Studio's bundle
 * imports it too (web/src/csv.ts).
 */

/** A cell a spreadsheet would read as a formula: = + - @, tab or carriage return first (OWASP's list). */
const TRIGGER = /^'*[=+\-@\t\r]/;
/** What neutraliseCsvCell wrote: one more quote than the value had, before a trigger character. */
const NEUTRALISED = /^'+[=+\-@\t\r]/;
/** A plain negative number (`-5`, `-12.5`): a spreadsheet reads it as the number, never as a formula. */
const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?$/;

/**
 * `=HYPERLINK(…)` → `'=HYPERLINK(…)`: a leading `'` makes spreadsheets show the cell as text. Values
 * that already start with quotes before a trigger get one more, so restoreCsvCell is its exact inverse.
 */
export function neutraliseCsvCell(value: string): string {
  if (NEGATIVE_NUMBER.test(value)) return value;
  return TRIGGER.test(value) ? `'${value}` : value;
}

/** The inverse of neutraliseCsvCell, for reading a CSV back (a `.failed.csv` fed in again). */
export function restoreCsvCell(value: string): string {
  return NEUTRALISED.test(value) ? value.slice(1) : value;
}

export type CsvValue = string | number | boolean | null | undefined;

function cellText(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  return neutraliseCsvCell(typeof value === 'string' ? value : String(value));
}

/**
 * Quoted when the cell holds a separator the reader may detect, a quote or a line break, or starts
 * or ends with whitespace (the reader trims unquoted cells).
 */
function quoteCell(text: string): string {
  return /[",;\t\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record, comma-separated (or `delimiter`: `;` for French Excel), cells neutralised and quoted as needed, ending with `eol`. */
export function csvRecordLine(values: readonly CsvValue[], eol = '\n', delimiter: ',' | ';' = ','): string {
  return values.map((value) => quoteCell(cellText(value))).join(delimiter) + eol;
}
