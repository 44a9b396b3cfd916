import { ApiError, request, sleep } from '../api.js';
import { $, explain, showError } from '../dom.js';
import { formatDuration, t } from '../i18n.js';
import { ACTIVE, hooks, state } from '../state.js';
import type { JobRecord } from '../types.js';
import { onAuthLost } from './signin.js';

/** The job panel: progress polled at the server's Retry-After pace, then the video (docs/studio.md, "What the page does"). */

let following = 0;
let progressStart: { at: number; progress: number } | null = null;

export function renderJob(job: JobRecord): void {
  $('job-panel').hidden = false;
  // Titled by the listing, as the agent knows it; the id stays below for support and the API.
  $('job-title').textContent = job.listing?.title ?? t('job.untitled');
  $('job-id').textContent = t('job.id', { id: job.job_id });
  const stage = job.stage !== null && job.state === 'running' ? ` — ${t('job.stage', { stage: t(`stage.${job.stage}`) })}` : '';
  const percent = Math.round(job.progress * 100);
  $('job-state').textContent = `${t('job.state', { state: t(`state.${job.state}`) })}${stage} — ${percent} %`;
  const bar = $<HTMLProgressElement>('job-progress');
  bar.value = percent;
  bar.setAttribute('aria-valuetext', `${percent} %`);
  $('job-cancel').hidden = !ACTIVE.has(job.state);
  const eta = $('job-eta');
  eta.textContent = '';
  if (job.state === 'running') {
    if (progressStart === null || job.progress < progressStart.progress) progressStart = { at: Date.now(), progress: job.progress };
    const gained = job.progress - progressStart.progress;
    const elapsed = (Date.now() - progressStart.at) / 1000;
    eta.textContent =
      gained > 0.02 && elapsed > 0 ? t('job.eta', { time: formatDuration((elapsed / gained) * (1 - job.progress)) }) : t('job.eta_unknown');
  }
  $('job-error').textContent = job.state === 'failed' ? t('err.RENDER_FAILED', { message: job.error?.message ?? '' }) : '';
  const result = $('job-result');
  if (job.state === 'succeeded' && job.links.video !== null) {
    const video = $<HTMLVideoElement>('job-video');
    // The title card's frame until it plays (docs/api.md "The poster"); set before the source, so it shows at once.
    const poster = `/api/v1/jobs/${encodeURIComponent(job.job_id)}/poster`;
    if (video.getAttribute('poster') !== poster) video.poster = poster;
    if (video.getAttribute('src') !== job.links.video) video.src = job.links.video;
    video.setAttribute('aria-label', t('job.video'));
    const link = $<HTMLAnchorElement>('job-download');
    link.href = job.links.video;
    link.download = `${job.job_id}.mp4`;
    $<HTMLInputElement>('job-link').value = new URL(job.links.video, location.href).href;
    result.hidden = false;
  } else {
    result.hidden = true;
  }
}

/** The job followed is in the address (`?job=`), so a reload or a shared link comes back to it (docs/studio.md, "Page state"). */
function setJobAddress(jobId: string): void {
  const url = new URL(location.href);
  url.searchParams.set('job', jobId);
  url.hash = '#new';
  if (url.href !== location.href) window.history.pushState(null, '', url);
}

/** The address of a job's panel, for links (History's "Open"). */
export function jobAddress(jobId: string): string {
  const url = new URL(location.href);
  url.searchParams.set('job', jobId);
  url.hash = '#new';
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Follows the job the address names, unless it is the one shown already. */
export async function openAddressedJob(): Promise<void> {
  const jobId = new URLSearchParams(location.search).get('job');
  if (jobId === null || jobId === '' || state.shownJob?.job_id === jobId) return;
  try {
    const { data } = await request<{ job: JobRecord }>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}`);
    followJob(data.job);
  } catch (error) {
    $('job-panel').hidden = false;
    $('job-title').textContent = t('job.missing');
    $('job-id').textContent = t('job.id', { id: jobId });
    for (const id of ['job-state', 'job-eta']) $(id).textContent = '';
    $('job-cancel').hidden = true;
    $('job-result').hidden = true;
    $('job-error').textContent = explain(error);
    onAuthLost(error);
  }
}

/** Polls the job, waiting what the server's Retry-After says between reads. */
export function followJob(job: JobRecord): void {
  const run = ++following;
  state.shownJob = job;
  progressStart = null;
  $('copy-status').textContent = '';
  $<HTMLVideoElement>('job-video').removeAttribute('src');
  $<HTMLVideoElement>('job-video').removeAttribute('poster');
  renderJob(job);
  setJobAddress(job.job_id);
  if (state.view !== 'new') hooks.route();
  $('job-panel').scrollIntoView({ block: 'nearest' });
  void (async () => {
    let waitS = 1;
    while (run === following && state.shownJob !== null && ACTIVE.has(state.shownJob.state)) {
      await sleep(waitS * 1000);
      if (run !== following) return;
      try {
        const { data, retryAfterS } = await request<{ job: JobRecord }>('GET', `/api/v1/jobs/${encodeURIComponent(job.job_id)}`);
        if (run !== following) return;
        state.shownJob = data.job;
        $('job-error').textContent = '';
        renderJob(data.job);
        waitS = retryAfterS ?? 2;
      } catch (error) {
        $('job-error').textContent = explain(error);
        onAuthLost(error);
        waitS = error instanceof ApiError && error.retryAfterS !== null ? error.retryAfterS : 5;
      }
    }
  })();
}

export async function cancelJob(jobId: string): Promise<JobRecord | null> {
  try {
    const { data } = await request<{ job: JobRecord }>('POST', `/api/v1/jobs/${encodeURIComponent(jobId)}/cancel`);
    return data.job;
  } catch (error) {
    onAuthLost(error);
    throw error;
  }
}

async function copyLink(): Promise<void> {
  const link = $<HTMLInputElement>('job-link').value;
  try {
    await navigator.clipboard.writeText(link);
    $('copy-status').textContent = t('job.copied');
  } catch {
    $('copy-status').textContent = t('job.copy_failed');
    $<HTMLInputElement>('job-link').select();
  }
}

export function wireJob(): void {
  $('job-cancel').addEventListener('click', async () => {
    if (state.shownJob === null) return;
    try {
      const job = await cancelJob(state.shownJob.job_id);
      if (job !== null) renderJob((state.shownJob = job));
    } catch (error) {
      showError('job-error', error);
    }
  });
  $('job-copy').addEventListener('click', () => void copyLink());
}
