import { parse } from 'csv-parse/browser/esm/sync';
import { csvRecordLine } from '../../src/core/csv-cells.js';
import { decodeText } from '../../src/core/text.js';
import { batchCsvOptions, detectDelimiter } from '../../src/jobs/batch-row.js';

/*
 * CSV in the page, for the batch screen: read by csv-parse's browser build with the CLI's own
 * options, delimiter detection and encoding detection (docs/studio.md, "What the page does"), so a
 * file the CLI reads, the page reads the same way (French Excel's `;` and Windows-1252 included).
 */

/** The file's bytes as text, in whichever encoding the spreadsheet saved it. */
export function csvText(bytes: Uint8Array): string {
  return decodeText(bytes).text;
}

/** Header + rows → records keyed by column name (names normalised as the CLI does: `Agency Name` → `agency_name`). */
export function csvRecords(text: string): { columns: string[]; records: Record<string, string>[] } {
  const options = batchCsvOptions(detectDelimiter(text));
  let columns: string[] = [];
  const records = parse(text, {
    ...options,
    columns: (header: string[]) => (columns = options.columns(header)),
  }) as Record<string, string>[];
  return { columns, records };
}

/**
 * The CLI's own CSV writer, formula-like cells neutralised (docs/security.md, "CSV files"). With `;`
 * the file starts with a byte order mark: French Excel then opens it in columns and in UTF-8.
 */
export function toCsv(columns: string[], records: Record<string, string>[], delimiter: ',' | ';' = ','): string {
  const body = [columns, ...records.map((r) => columns.map((c) => r[c] ?? ''))]
    .map((cells) => csvRecordLine(cells, '\r\n', delimiter))
    .join('');
  return delimiter === ';' ? `\ufeff${body}` : body;
}
