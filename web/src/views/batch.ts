import { ApiError, request, sleep, uploadAsset } from '../api.js';
import { csvRecords, csvText, toCsv } from '../csv.js';
import { $, explain, make, namedDownload, saveAs, showError, wireDropzone } from '../dom.js';
import { formatAmount, language, t } from '../i18n.js';
import { ACTIVE, state, type BatchRowState, type PageState } from '../state.js';
import type { JobRecord } from '../types.js';
import { AppError } from '../../../src/core/errors.js';
import type { RenderRequest } from '../../../src/core/requests.js';
import { RENDER_COLUMN_ALIASES, batchRowRequest, withCanonicalColumns } from '../../../src/jobs/batch-row.js';
import { fitForUpload } from './photos.js';
import { onAuthLost } from './signin.js';

/**
 * A CSV of listings, one render per row, followed to the end (docs/studio.md "Batch"): dropped with
 * the photos its `photos` column names and the logos its `logo_url` (or `logo`) column names, which
 * are uploaded first; the rows and their jobs are kept in localStorage, so a reload comes back to them.
 */

const BATCH_STORE = 'immoreel.studio.batch';
/** Photos of earlier drops already uploaded (name, size, date → asset ref): the same files dropped again make the same requests. */
const UPLOADED_STORE = 'immoreel.studio.batch-photos';
/** Asset refs live 24 h on the server (docs/api.md "Assets"): one is reused for 23 h at most. */
const REF_REUSE_MS = 23 * 3600_000;

let batchRun = 0;

/** A cell's entry that names a file dropped with the CSV rather than a link or an asset. */
function isFileName(entry: string): boolean {
  return entry !== '' && !/^(https?:\/\/|asset:)/i.test(entry);
}

/**
 * The cells that may name files dropped with the CSV, and the row's error when one was not:
 * `photos` lists several (separated by `|`), `logo_url` (the `logo` column too) one.
 */
const FILE_CELLS = [
  { column: 'photos', several: true, missing: 'batch.photo_missing' },
  { column: 'logo_url', several: false, missing: 'batch.logo_missing' },
] as const;

function cellEntries(values: Record<string, string>, cell: (typeof FILE_CELLS)[number]): string[] {
  const text = values[cell.column] ?? '';
  return (cell.several ? text.split('|') : [text]).map((entry) => entry.trim()).filter((entry) => entry !== '');
}

/** One row → the render request, the same function as `immoreel render --csv` (docs/cli.md, "Batch CSV"). */
function rowRequest(values: Record<string, string>, id: string): RenderRequest {
  try {
    return batchRowRequest(values, id);
  } catch (error) {
    // A cell the request cannot hold (duration_s "ten"): the row fails with the same message as in the CLI.
    if (error instanceof AppError) throw new ApiError(error.code, error.message, error.reason ?? null, error.details);
    throw error;
  }
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...bytes.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function saveBatch(): void {
  try {
    localStorage.setItem(BATCH_STORE, JSON.stringify(state.batch));
  } catch {
    // Storage full or disabled: the batch is simply not kept across a reload.
  }
}

function uploadedRefs(): Record<string, { ref: string; at: number }> {
  try {
    const stored = JSON.parse(localStorage.getItem(UPLOADED_STORE) ?? '{}') as Record<string, { ref: string; at: number }>;
    return Object.fromEntries(Object.entries(stored).filter(([, entry]) => Date.now() - entry.at < REF_REUSE_MS));
  } catch {
    return {};
  }
}

/** Uploads each dropped file the CSV names (once, even when several rows name it): name (lower case) → asset ref. */
async function uploadNamedFiles(names: Set<string>, files: Map<string, File>, run: number): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  const known = uploadedRefs();
  const wanted = [...names].filter((name) => files.has(name));
  let done = 0;
  for (const name of wanted) {
    if (run !== batchRun) break;
    $('batch-summary').textContent = t('batch.uploading', { done, total: wanted.length });
    const file = files.get(name)!;
    const signature = `${file.name}|${file.size}|${file.lastModified}`;
    try {
      const ref = known[signature]?.ref ?? (await uploadAsset(await fitForUpload(file)));
      known[signature] = { ref, at: known[signature]?.at ?? Date.now() };
      refs.set(name, ref);
    } catch (error) {
      onAuthLost(error);
      // The rows naming it fail with the reason (below): it is not in `refs`.
      refs.delete(name);
      uploadErrors.set(name, explain(error));
    }
    done += 1;
  }
  try {
    localStorage.setItem(UPLOADED_STORE, JSON.stringify(known));
  } catch {
    // Not kept: a second drop uploads again.
  }
  return refs;
}

const uploadErrors = new Map<string, string>();

/** The row's values with its file names replaced by the refs of the files uploaded; throws naming a photo or logo that was not dropped. */
function withUploadedFiles(values: Record<string, string>, refs: Map<string, string>): Record<string, string> {
  const resolved = { ...values };
  for (const cell of FILE_CELLS) {
    const entries = cellEntries(values, cell);
    if (!entries.some(isFileName)) continue;
    resolved[cell.column] = entries
      .map((entry) => {
        if (!isFileName(entry)) return entry;
        const ref = refs.get(entry.toLowerCase());
        if (ref === undefined) throw new ApiError('BAD_REQUEST', uploadErrors.get(entry.toLowerCase()) ?? t(cell.missing, { name: entry }));
        return ref;
      })
      .join('|');
  }
  return resolved;
}

async function startBatch(files: File[]): Promise<void> {
  showError('batch-error', null);
  const run = ++batchRun;
  const csvFile = files.find((file) => /\.(csv|txt)$/i.test(file.name) || file.type === 'text/csv');
  if (csvFile === undefined) {
    $('batch-error').textContent = t('batch.no_csv');
    return;
  }
  const droppedFiles = new Map(files.filter((file) => file !== csvFile).map((file) => [file.name.toLowerCase(), file]));
  let text: string;
  let parsed: ReturnType<typeof csvRecords>;
  try {
    text = csvText(new Uint8Array(await csvFile.arrayBuffer()));
    parsed = csvRecords(text);
  } catch (error) {
    $('batch-error').textContent = t('err.csv', { message: (error as Error).message });
    return;
  }
  if (parsed.records.length === 0) {
    $('batch-error').textContent = t('batch.empty');
    return;
  }
  const fileId = await digest(text);
  const batch: NonNullable<typeof state.batch> = {
    columns: parsed.columns,
    rows: parsed.records.map((record, index) => ({
      id: record.id?.trim() ? record.id.trim() : `line-${index + 2}`,
      // `logo` is `logo_url`, `duration` is `duration_s`…: the columns as the CLI reads them.
      values: withCanonicalColumns(record, RENDER_COLUMN_ALIASES),
      jobId: null,
      state: 'submitting',
      progress: 0,
      error: null,
    })),
  };
  state.batch = batch;
  renderBatch();
  const names = new Set(
    batch.rows.flatMap((row) =>
      FILE_CELLS.flatMap((cell) => cellEntries(row.values, cell))
        .filter(isFileName)
        .map((entry) => entry.toLowerCase()),
    ),
  );
  uploadErrors.clear();
  const refs = names.size === 0 ? new Map<string, string>() : await uploadNamedFiles(names, droppedFiles, run);
  for (const row of batch.rows) {
    if (run !== batchRun) return;
    try {
      const { data } = await request<{ job: JobRecord }>(
        'POST',
        '/api/v1/render-video',
        rowRequest(withUploadedFiles(row.values, refs), row.id),
        {
          'Idempotency-Key': `studio-batch-${fileId}-${row.id}`.slice(0, 255),
        },
      );
      row.jobId = data.job.job_id;
      row.state = data.job.state;
    } catch (error) {
      row.state = 'failed';
      row.error = { code: error instanceof ApiError ? error.code : 'NETWORK', message: explain(error) };
      onAuthLost(error);
    }
    renderBatch();
  }
  await followBatch(run, batch);
}

/** Polls the rows' jobs until every one has ended. */
async function followBatch(run: number, batch: NonNullable<typeof state.batch>): Promise<void> {
  let waitS = 2;
  while (run === batchRun && batch.rows.some((r) => ACTIVE.has(r.state))) {
    await sleep(waitS * 1000);
    waitS = 2;
    for (const row of batch.rows.filter((r) => r.jobId !== null && ACTIVE.has(r.state))) {
      if (run !== batchRun) return;
      try {
        const { data, retryAfterS } = await request<{ job: JobRecord }>('GET', `/api/v1/jobs/${encodeURIComponent(row.jobId!)}`);
        row.state = data.job.state;
        row.progress = data.job.progress;
        row.error =
          data.job.state === 'failed'
            ? (data.job.error ?? { code: 'RENDER_FAILED', message: '' })
            : data.job.state === 'canceled'
              ? { code: 'CANCELED', message: t('state.canceled') }
              : null;
        waitS = Math.max(waitS, retryAfterS ?? 2);
      } catch (error) {
        onAuthLost(error);
        if (error instanceof ApiError && error.retryAfterS !== null) waitS = Math.max(waitS, error.retryAfterS);
      }
    }
    renderBatch();
  }
}

/** The batch of before the reload: its rows shown, its running jobs followed again; rows never sent are failed rows. */
export function resumeBatch(): void {
  if (state.batch !== null) return;
  let stored: PageState['batch'];
  try {
    stored = JSON.parse(localStorage.getItem(BATCH_STORE) ?? 'null') as PageState['batch'];
  } catch {
    return;
  }
  if (stored === null || !Array.isArray(stored.rows)) return;
  for (const row of stored.rows) {
    if (row.state !== 'submitting') continue;
    row.state = 'failed';
    row.error = { code: 'NOT_SENT', message: t('batch.interrupted') };
  }
  state.batch = stored;
  renderBatch();
  void followBatch(++batchRun, stored);
}

function videoLink(row: BatchRowState): HTMLAnchorElement {
  return namedDownload(
    make(
      'a',
      {
        class: 'button',
        href: `/api/v1/jobs/${encodeURIComponent(row.jobId!)}/video`,
        download: `${row.id}.mp4`,
        'aria-label': `${t('batch.download_row')} — ${row.id}`,
      },
      t('batch.download_row'),
    ),
  );
}

export function renderBatch(): void {
  const batch = state.batch;
  if (batch === null) return;
  $('batch-table').hidden = false;
  $('batch-rows').replaceChildren(
    ...batch.rows.map((row) => {
      const tr = make('tr', { 'data-row': row.id });
      tr.append(make('th', { scope: 'row', 'data-label': t('batch.row'), dir: 'auto' }, row.id));
      const label = row.state === 'submitting' ? t('batch.submitting') : t(`state.${row.state}`);
      const progress = ACTIVE.has(row.state) ? `${label} (${formatAmount(Math.round(row.progress * 100), '%')})` : label;
      tr.append(make('td', { class: `state ${row.state}`, 'data-label': t('history.status') }, progress));
      const error = row.error?.message ?? '';
      tr.append(make('td', error === '' ? {} : { 'data-label': t('err.title'), dir: 'auto' }, error));
      const actions = make('td', { class: 'actions' });
      if (row.state === 'succeeded' && row.jobId !== null) actions.append(videoLink(row));
      tr.append(actions);
      return tr;
    }),
  );
  const done = batch.rows.filter((r) => !ACTIVE.has(r.state) && r.state !== 'submitting').length;
  const failed = batch.rows.filter((r) => r.state === 'failed' || r.state === 'canceled').length;
  $('batch-summary').textContent = t('batch.summary', { done, total: batch.rows.length, failed });
  $('batch-failed').hidden = failed === 0;
  $('batch-all').hidden = !batch.rows.some((r) => r.state === 'succeeded');
  saveBatch();
}

/**
 * The failed rows as the CLI reads them back: the input columns, then error_code and error_message;
 * separated by `;` with a byte order mark on a French or Arabic page, as their Excel opens it.
 */
function downloadFailedRows(): void {
  const batch = state.batch;
  if (batch === null) return;
  const failed = batch.rows.filter((r) => r.state === 'failed' || r.state === 'canceled');
  const columns = [...batch.columns.filter((c) => c !== 'error_code' && c !== 'error_message'), 'error_code', 'error_message'];
  const csv = toCsv(
    columns,
    failed.map((r) => ({ ...r.values, error_code: r.error?.code ?? '', error_message: r.error?.message ?? '' })),
    language() === 'en' ? ',' : ';',
  );
  const link = make('a', { download: 'batch.failed.csv' });
  link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** Every finished video of the batch, one download after the other. */
async function downloadAll(): Promise<void> {
  const batch = state.batch as PageState['batch'];
  for (const row of batch?.rows.filter((r) => r.state === 'succeeded' && r.jobId !== null) ?? []) {
    await saveAs(`/api/v1/jobs/${encodeURIComponent(row.jobId!)}/video`, `${row.id}.mp4`);
    await sleep(300);
  }
}

export function wireBatch(): void {
  $('batch-input').addEventListener('change', () => {
    const files = [...($<HTMLInputElement>('batch-input').files ?? [])];
    if (files.length > 0) void startBatch(files);
    $<HTMLInputElement>('batch-input').value = '';
  });
  wireDropzone($('batch-drop'), (files) => {
    if (files.length > 0) void startBatch(files);
  });
  $('batch-failed').addEventListener('click', downloadFailedRows);
  $('batch-all').addEventListener('click', () => void downloadAll());
}
