import { restoreCsvCell } from '../core/csv-cells.js';
import { badRequest } from '../core/errors.js';
import { splitConfirmedFacts } from '../core/confirmed-facts.js';
import type { Branding, RenderRequest } from '../core/requests.js';

/*
 * One batch CSV row → a render request (docs/cli.md, "Batch CSV"). Pure and free of Node modules,
 * so the CLI's `render --csv` (render-batch.ts) and the Studio's batch page (web/src/views/batch.ts, web/src/csv.ts) turn
 * the same row into the same request, and read the file with the same csv-parse options.
 */

/** `Agency Name`, `agency-name` → `agency_name`. */
export function normalizeHeader(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** `;` (French Excel), tab or `,`: whichever separates the header line's fields most often. */
export function detectDelimiter(text: string): string {
  const header = text.split(/\r?\n/, 1)[0] ?? '';
  const unquoted = header.replace(/"[^"]*"/g, '');
  const counts = [';', '\t', ','].map((d) => ({ d, n: unquoted.split(d).length - 1 }));
  const best = counts.reduce((a, b) => (b.n > a.n ? b : a), { d: ',', n: 0 });
  return best.d;
}

/**
 * csv-parse's options for a batch file, the same in the CLI (csv-parse's Node build) and in the
 * Studio (its browser build), so both read one file the same way (docs/cli.md, "Batch CSV").
 */
export function batchCsvOptions(delimiter: string): {
  delimiter: string;
  columns: (header: string[]) => string[];
  skip_empty_lines: true;
  trim: true;
  relax_column_count: true;
  bom: true;
  record_delimiter: string[];
  cast: (value: string) => string;
} {
  return {
    delimiter,
    columns: (header) => header.map(normalizeHeader),
    skip_empty_lines: true,
    trim: true,
    relax_column_count: true,
    bom: true,
    // A file pasted together from several sources mixes line endings: each one ends a row.
    record_delimiter: ['\r\n', '\n', '\r'],
    // Our own `.failed.csv` fed back in reads as the values it was written from (docs/security.md, "CSV files").
    cast: restoreCsvCell,
  };
}

export const BRANDING_COLUMNS = ['agency_name', 'agent_name', 'phone', 'email', 'logo_url', 'primary_color'] as const;

/**
 * The CLI's own option names, accepted as the columns of a render batch (docs/cli.md "Batch CSV"):
 * a `logo` column is `logo_url`, `duration` is `duration_s`. Here, not in render-batch.ts, so the
 * Studio's batch page reads a file's columns exactly as `immoreel render --csv` does.
 */
export const RENDER_COLUMN_ALIASES: Readonly<Record<string, string>> = {
  duration: 'duration_s',
  audience: 'target_audience',
  agency: 'agency_name',
  agent: 'agent_name',
  logo: 'logo_url',
  color: 'primary_color',
  colour: 'primary_color',
};

/** A row's values with each alias's value also under its canonical name, unless the row already fills that one. */
export function withCanonicalColumns(
  values: Readonly<Record<string, string>>,
  aliases: Readonly<Record<string, string>>,
): Record<string, string> {
  const canonical: Record<string, string> = { ...values };
  for (const [alias, name] of Object.entries(aliases)) {
    if (canonical[alias] !== undefined && (canonical[name] === undefined || canonical[name] === '')) canonical[name] = canonical[alias];
  }
  return canonical;
}

function parseBoolean(value: string, field: string): boolean {
  if (/^(1|true|yes|y|oui)$/i.test(value)) return true;
  if (/^(0|false|no|n|non)$/i.test(value)) return false;
  throw badRequest(`${field} ${JSON.stringify(value)} is not a yes/no value: use true or false.`, {
    details: [{ field, message: 'must be true or false' }],
  });
}

/**
 * A pack's formats as a person types them (docs/cli.md "Video packs"): `landscape,portrait` or
 * `landscape|portrait`, spaces and empty entries ignored; the request's rules check the values.
 */
export function splitFormats(value: string): RenderRequest['formats'] {
  return value
    .split(/[|,]/)
    .map((f) => f.trim())
    .filter((f) => f !== '') as RenderRequest['formats'];
}

export interface RowRequestOptions {
  /** Settings that apply to every row unless the row sets them (the command line's); the listing inputs never come from here. */
  defaults?: RenderRequest;
  /** Maps a photo or logo cell to the reference to send (the CLI resolves paths against the CSV's folder). */
  localPath?: (ref: string) => string;
}

/**
 * The render request of one row: the row's columns over the defaults. The listing inputs (url,
 * description, photos) come only from the row; empty cells count as absent. A duration or
 * `unbranded` value that is not a number or a yes/no is refused here, naming the column.
 */
export function batchRowRequest(values: Readonly<Record<string, string>>, rowId: string, options: RowRequestOptions = {}): RenderRequest {
  const defaults = options.defaults ?? {};
  const localPath = options.localPath ?? ((ref: string): string => ref);
  const pick = (key: string): string | undefined => {
    const value = values[key]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const { url: _u, description: _d, html: _h, listing: _l, photos: _p, ...shared } = defaults;
  const request: RenderRequest = { ...shared };
  const url = pick('url');
  const description = values.description;
  if (url !== undefined) request.url = url;
  // An empty description cell is passed on when there is no url, so validation names the field.
  if (description !== undefined && (description !== '' || url === undefined)) request.description = description;
  const photos = pick('photos');
  if (photos !== undefined)
    request.photos = photos
      .split('|')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map(localPath);
  for (const key of ['template', 'language', 'target_audience', 'music'] as const) {
    const value = pick(key);
    if (value !== undefined) (request as Record<string, unknown>)[key] = value;
  }
  const confirmed = pick('confirmed_facts');
  if (confirmed !== undefined) request.confirmed_facts = splitConfirmedFacts(confirmed);
  const format = pick('format');
  const formats = pick('formats');
  // A row's own choice replaces the command line's, whichever of the two each uses.
  if (format !== undefined || formats !== undefined) {
    delete request.format;
    delete request.formats;
  }
  if (format !== undefined) request.format = format as RenderRequest['format'];
  if (formats !== undefined) request.formats = splitFormats(formats);
  const duration = pick('duration_s');
  if (duration !== undefined) {
    const n = Number(duration);
    if (!Number.isFinite(n))
      throw badRequest(`duration_s ${JSON.stringify(duration)} is not a number of seconds (10–90).`, {
        details: [{ field: 'duration_s', message: 'must be a number' }],
      });
    request.duration_s = n;
  }
  const branding: Branding = { ...(defaults.branding ?? {}) };
  for (const key of BRANDING_COLUMNS) {
    const value = pick(key);
    if (value !== undefined) branding[key] = key === 'logo_url' ? localPath(value) : value;
  }
  const unbranded = pick('unbranded');
  if (unbranded !== undefined) branding.unbranded = parseBoolean(unbranded, 'unbranded');
  if (Object.keys(branding).length > 0) request.branding = branding;
  request.metadata = { ...(defaults.metadata ?? {}), batch_row_id: rowId };
  return request;
}
