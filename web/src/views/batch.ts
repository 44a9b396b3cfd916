import { ApiError, request, sleep } from '../api.js';
import { csvRecords, csvText, toCsv } from '../csv.js';
import { $, explain, make, showError, wireDropzone } from '../dom.js';
import { formatAmount, t } from '../i18n.js';
import { ACTIVE, state, type BatchRowState } from '../state.js';
import type { JobRecord } from '../types.js';
import { AppError } from '../../../src/core/errors.js';
import type { RenderRequest } from '../../../src/core/requests.js';
import { batchRowRequest } from '../../../src/jobs/batch-row.js';
import { onAuthLost } from './signin.js';

/** A CSV of listings, one render per row, followed to the end (docs/studio.md, "What the page does"). */

let batchRun = 0;

/** One row → the render request, the same function as `immoreel render --csv` (docs/cli.md, "Batch CSV"). */
function rowRequest(row: BatchRowState): RenderRequest {
  try {
    return batchRowRequest(row.values, row.id);
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

async function startBatch(file: File): Promise<void> {
  showError('batch-error', null);
  const run = ++batchRun;
  let text: string;
  let parsed: ReturnType<typeof csvRecords>;
  try {
    text = csvText(new Uint8Array(await file.arrayBuffer()));
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
  const batch: { columns: string[]; rows: BatchRowState[] } = {
    columns: parsed.columns,
    rows: parsed.records.map((values, index) => ({
      id: values.id?.trim() ? values.id.trim() : `line-${index + 2}`,
      values,
      jobId: null,
      state: 'submitting',
      progress: 0,
      error: null,
    })),
  };
  state.batch = batch;
  renderBatch();
  for (const row of batch.rows) {
    if (run !== batchRun) return;
    try {
      const { data } = await request<{ job: JobRecord }>('POST', '/api/v1/render-video', rowRequest(row), {
        'Idempotency-Key': `studio-batch-${fileId}-${row.id}`.slice(0, 255),
      });
      row.jobId = data.job.job_id;
      row.state = data.job.state;
    } catch (error) {
      row.state = 'failed';
      row.error = { code: error instanceof ApiError ? error.code : 'NETWORK', message: explain(error) };
      onAuthLost(error);
    }
    renderBatch();
  }
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
        if (error instanceof ApiError && error.retryAfterS !== null) waitS = Math.max(waitS, error.retryAfterS);
      }
    }
    renderBatch();
  }
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
      return tr;
    }),
  );
  const done = batch.rows.filter((r) => !ACTIVE.has(r.state) && r.state !== 'submitting').length;
  const failed = batch.rows.filter((r) => r.state === 'failed' || r.state === 'canceled').length;
  $('batch-summary').textContent = t('batch.summary', { done, total: batch.rows.length, failed });
  $('batch-failed').hidden = failed === 0;
}

/** The failed rows as the CLI writes them: the input columns, then error_code and error_message. */
function downloadFailedRows(): void {
  const batch = state.batch;
  if (batch === null) return;
  const failed = batch.rows.filter((r) => r.state === 'failed' || r.state === 'canceled');
  const columns = [...batch.columns.filter((c) => c !== 'error_code' && c !== 'error_message'), 'error_code', 'error_message'];
  const csv = toCsv(
    columns,
    failed.map((r) => ({ ...r.values, error_code: r.error?.code ?? '', error_message: r.error?.message ?? '' })),
  );
  const link = make('a', { download: 'batch.failed.csv' });
  link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function wireBatch(): void {
  $('batch-input').addEventListener('change', () => {
    const file = $<HTMLInputElement>('batch-input').files?.[0];
    if (file !== undefined) void startBatch(file);
    $<HTMLInputElement>('batch-input').value = '';
  });
  wireDropzone($('batch-drop'), (files) => {
    if (files[0] !== undefined) void startBatch(files[0]);
  });
  $('batch-failed').addEventListener('click', downloadFailedRows);
}
