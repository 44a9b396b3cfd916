import { request } from '../api.js';
import { $, make, namedDownload, setOptionValue, showError } from '../dom.js';
import { formatAmount, formatDate, t } from '../i18n.js';
import { ACTIVE, state } from '../state.js';
import type { JobRecord } from '../types.js';
import { cancelJob, fileStem, followJob, jobAddress } from './job.js';
import { clearAnalysis, renderFormatsHint, type StudioMetadata } from './new-video.js';
import { setUploadedPhotos } from './photos.js';
import { onAuthLost } from './signin.js';

/** The tenant's jobs, newest first, filtered by state; open, re-run or cancel each (docs/studio.md, "What the page does"). */

let loads = 0;

export async function loadHistory(reset: boolean): Promise<void> {
  // Only the last request counts: an older answer (another filter) arriving late never replaces a newer one.
  const load = ++loads;
  showError('history-error', null);
  const filter = $<HTMLSelectElement>('history-filter').value;
  const query = new URLSearchParams({ limit: '20' });
  if (filter !== '') query.set('state', filter);
  if (!reset && state.historyCursor !== null) query.set('cursor', state.historyCursor);
  try {
    const { data } = await request<{ jobs: JobRecord[]; next_cursor: string | null }>('GET', `/api/v1/jobs?${query}`);
    if (load !== loads) return;
    state.history = reset ? data.jobs : [...state.history, ...data.jobs];
    state.historyCursor = data.next_cursor;
    renderHistory();
  } catch (error) {
    if (load !== loads) return;
    showError('history-error', error);
    onAuthLost(error);
  }
}

function actionButton(text: string, onClick: () => void | Promise<void>): HTMLButtonElement {
  const button = make('button', { type: 'button' }, text);
  button.addEventListener('click', () => void onClick());
  return button;
}

export function renderHistory(): void {
  $('history-rows').replaceChildren(
    ...state.history.map((job) => {
      const row = make('tr', { 'data-job': job.job_id });
      // data-label: the column's name, shown above each value when the table becomes cards on a phone.
      row.append(make('td', { 'data-label': t('history.created') }, formatDate(job.created_at)));
      const listing = make('td', { 'data-label': t('history.listing'), dir: 'auto', class: 'listing' });
      // The video's poster (its title card) tells the jobs apart at a glance.
      if (job.state === 'succeeded' && job.links.video !== null)
        listing.append(
          make('img', {
            src: `/api/v1/jobs/${encodeURIComponent(job.job_id)}/poster`,
            alt: '',
            width: '64',
            height: '36',
            loading: 'lazy',
            class: 'thumb',
          }),
        );
      listing.append(job.listing?.title ?? job.job_id);
      row.append(listing);
      const status = `${t(`state.${job.state}`)}${ACTIVE.has(job.state) ? ` (${formatAmount(Math.round(job.progress * 100), '%')})` : ''}`;
      row.append(make('td', { class: `state ${job.state}`, 'data-label': t('history.status') }, status));
      const actions = make('td', { class: 'actions' });
      // A link to the job's address: it opens in place, or in a new tab like any link.
      const open = make('a', { href: jobAddress(job.job_id), class: 'button' }, t('history.open'));
      open.addEventListener('click', (event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        followJob(job);
      });
      actions.append(open);
      if (job.state === 'succeeded' && job.links.video !== null)
        actions.append(
          namedDownload(
            make(
              'a',
              {
                href: job.links.video,
                download: `${fileStem(job)}.mp4`,
                class: 'button',
                'aria-label': `${t('batch.download_row')} — ${job.listing?.title ?? job.job_id}`,
              },
              t('batch.download_row'),
            ),
          ),
        );
      actions.append(actionButton(t('history.rerun'), () => rerun(job)));
      if (ACTIVE.has(job.state)) {
        actions.append(
          actionButton(t('job.cancel'), async () => {
            try {
              const updated = await cancelJob(job.job_id);
              if (updated !== null) state.history = state.history.map((j) => (j.job_id === updated.job_id ? updated : j));
              renderHistory();
            } catch (error) {
              showError('history-error', error);
            }
          }),
        );
      }
      row.append(actions);
      return row;
    }),
  );
  $('history-empty').hidden = state.history.length > 0;
  $('history-more').hidden = state.historyCursor === null;
}

/** Re-run: the job's settings back in the form, to change and render again. */
function rerun(job: JobRecord): void {
  const saved = ((job.metadata ?? {}) as { studio?: Partial<StudioMetadata> }).studio ?? {};
  $<HTMLTextAreaElement>('listing').value = saved.input ?? job.listing?.title ?? '';
  const set = (id: string, value: string | undefined): void => {
    if (value !== undefined) setOptionValue(id, value);
  };
  set('opt-template', saved.template ?? job.template);
  // A pack comes back with all its formats ticked (docs/studio.md "Packs").
  set('opt-format', saved.formats?.join(',') ?? saved.format ?? (job.formats ?? [job.format]).join(','));
  renderFormatsHint();
  set('opt-language', saved.language ?? job.language);
  set('opt-audience', saved.target_audience);
  set('opt-music', saved.music);
  set('opt-duration', saved.duration_s === undefined ? '' : String(saved.duration_s));
  location.hash = '#new';
  // The listing is analysed again, so the video tells what the agent sees now.
  clearAnalysis();
  setUploadedPhotos(saved.photos ?? []);
  if ($<HTMLTextAreaElement>('listing').value.trim() !== '') $<HTMLFormElement>('analyze-form').requestSubmit();
  $('rerun-status').textContent = t('history.rerun_loaded', { id: job.job_id });
}

export function wireHistory(): void {
  $('history-filter').addEventListener('change', () => void loadHistory(true));
  $('history-refresh').addEventListener('click', () => void loadHistory(true));
  $('history-more').addEventListener('click', () => void loadHistory(false));
}
