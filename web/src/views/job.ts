import { ApiError, request, sleep } from '../api.js';
import { $, explain, make, namedDownload, showError } from '../dom.js';
import { formatAmount, formatDate, formatDuration, formatNumber, t } from '../i18n.js';
import { ACTIVE, hooks, state } from '../state.js';
import type { JobOutput, JobRecord, ShareLink } from '../types.js';
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
  $('job-state').textContent = `${t('job.state', { state: t(`state.${job.state}`) })}${stage} — ${formatAmount(percent, '%')}`;
  const bar = $<HTMLProgressElement>('job-progress');
  bar.value = percent;
  bar.setAttribute('aria-valuetext', `${percent} %`);
  $('job-cancel').hidden = !ACTIVE.has(job.state);
  const eta = $('job-eta');
  eta.textContent = '';
  if (job.state === 'running') {
    if (progressStart === null) progressStart = storedProgressStart(job.job_id);
    if (progressStart === null || job.progress < progressStart.progress) {
      progressStart = { at: Date.now(), progress: job.progress };
      storeProgressStart(job.job_id, progressStart);
    }
    const gained = job.progress - progressStart.progress;
    const elapsed = (Date.now() - progressStart.at) / 1000;
    eta.textContent =
      gained > 0.05 && elapsed > 0 ? t('job.eta', { time: formatDuration((elapsed / gained) * (1 - job.progress)) }) : t('job.eta_unknown');
  }
  // Photos the storyboard left out (docs/studio.md "What the page does"), in the words of the request's language.
  const leftOut = (job as JobRecord & { photos_left_out?: { index: number; message: string }[] }).photos_left_out ?? [];
  $('job-left-out').textContent = leftOut.map((photo) => photo.message).join(' ');
  $('job-error').textContent = job.state === 'failed' ? t('err.RENDER_FAILED', { message: job.error?.message ?? '' }) : '';
  const result = $('job-result');
  const outputs = job.outputs ?? [];
  if (job.state === 'succeeded' && job.links.video !== null) showShares(job);
  else $('job-shares').hidden = true;
  if (job.state === 'succeeded' && job.links.video !== null && outputs.length > 0) {
    renderOutputs(job, outputs);
    result.hidden = false;
  } else if (job.state === 'succeeded' && job.links.video !== null) {
    // A record without `outputs` (a server older than packs): its one video, as the page showed it then.
    $('job-outputs').hidden = true;
    $('job-download').hidden = false;
    showVideo(job.links.video, `/api/v1/jobs/${encodeURIComponent(job.job_id)}/poster`, t('job.video'));
    const link = $<HTMLAnchorElement>('job-download');
    link.href = job.links.video;
    link.download = `${fileStem(job)}.mp4`;
    result.hidden = false;
  } else {
    result.hidden = true;
  }
}

const PROGRESS_STORE = 'immoreel.studio.progress';

/**
 * The first running read of a job (when, and at what progress), kept in localStorage: the rate the
 * time left is measured from survives a reload (docs/studio.md "What the page does").
 */
function storedProgressStart(jobId: string): { at: number; progress: number } | null {
  try {
    const stored = JSON.parse(localStorage.getItem(PROGRESS_STORE) ?? 'null') as { jobId: string; at: number; progress: number } | null;
    return stored?.jobId === jobId ? { at: stored.at, progress: stored.progress } : null;
  } catch {
    return null;
  }
}

function storeProgressStart(jobId: string, start: { at: number; progress: number }): void {
  try {
    localStorage.setItem(PROGRESS_STORE, JSON.stringify({ jobId, ...start }));
  } catch {
    // Not kept: a reload measures again.
  }
}

/** The player on one video; the poster (the title card's frame, docs/api.md "The poster") is set before the source, so it shows at once. */
function showVideo(src: string, poster: string | null, label: string): void {
  const video = $<HTMLVideoElement>('job-video');
  if (poster === null) video.removeAttribute('poster');
  else if (video.getAttribute('poster') !== poster) video.poster = poster;
  if (video.getAttribute('src') !== src) video.src = src;
  video.setAttribute('aria-label', label);
  // The box shows a share link once "Copy link" made one (docs/studio.md "Share links").
  $<HTMLInputElement>('job-link').value = '';
  $('job-link').hidden = true;
  $('job-unshare').hidden = true;
  lastShare = null;
}

/** The format whose video the player shows, for the job shown; the primary output until another is chosen. */
let shownOutput: { jobId: string; format: string } | null = null;

/**
 * Downloads are named by the listing, as the agent knows it ("appartement-maarif-casablanca-portrait.mp4"),
 * not by the job id; letters of any script are kept, so an Arabic title names its file in Arabic.
 */
export function fileStem(job: JobRecord): string {
  const title = (job.listing?.title ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return title === '' ? job.job_id : title;
}

function outputLink(job: JobRecord, kind: 'video' | 'poster', format: string): string {
  return `/api/v1/jobs/${encodeURIComponent(job.job_id)}/${kind}?format=${encodeURIComponent(format)}`;
}

/** "2,3 Mo" / "2.3 MB": one decimal under 10 MB, whole megabytes above. */
function formatSize(bytes: number): string {
  const mb = bytes / 1_000_000;
  return t('size.mb', { n: formatNumber(mb, mb < 10 ? 1 : 0) });
}

/**
 * Every file of the job (docs/studio.md "Packs"): one line per output with its size, length and
 * download link, and one player on the output chosen with "Show" (the primary at first), its
 * poster being that output's own.
 */
function renderOutputs(job: JobRecord, outputs: JobOutput[]): void {
  if (shownOutput?.jobId !== job.job_id || !outputs.some((o) => o.format === shownOutput?.format))
    shownOutput = { jobId: job.job_id, format: outputs[0]!.format };
  $('job-download').hidden = true;
  $('job-outputs').hidden = false;
  $('job-output-list').replaceChildren(
    ...outputs.map((output) => {
      const name = t(`format.${output.format}`);
      const item = make('li', { 'data-format': output.format });
      const facts = make('span', { class: 'muted small' });
      facts.append(
        make('span', { dir: 'ltr', class: 'nowrap' }, `${output.width}\u00a0×\u00a0${output.height}`),
        ` · ${formatDuration(output.duration_s)} · ${formatSize(output.size_bytes)}`,
      );
      const about = make('div', { class: 'about' });
      about.append(make('strong', {}, name), facts);
      item.append(make('span', { class: `shape ${output.format}`, 'aria-hidden': 'true' }), about);
      const actions = make('div', { class: 'actions' });
      if (outputs.length > 1) {
        const show = make(
          'button',
          { type: 'button', 'aria-label': t('job.show_format', { format: name }), 'aria-pressed': 'false' },
          t('job.show'),
        );
        show.addEventListener('click', () => showOutput(job, output));
        actions.append(show);
      }
      const download = make(
        'a',
        {
          class: 'button primary',
          href: outputLink(job, 'video', output.format),
          download: `${fileStem(job)}-${output.format}.mp4`,
          'aria-label': t('job.download_format', { format: name }),
        },
        t('job.download_short'),
      );
      actions.append(namedDownload(download));
      // The poster as a JPEG, for a listing page or a message (docs/studio.md "What the page does").
      if (output.poster_url !== null)
        actions.append(
          make(
            'a',
            {
              class: 'button',
              href: outputLink(job, 'poster', output.format),
              download: `${fileStem(job)}-${output.format}.jpg`,
              'aria-label': `${t('job.poster')} — ${name}`,
            },
            t('job.poster'),
          ),
        );
      item.append(actions);
      return item;
    }),
  );
  showOutput(
    job,
    outputs.find((o) => o.format === shownOutput!.format)!,
  );
}

function showOutput(job: JobRecord, output: JobOutput): void {
  shownOutput = { jobId: job.job_id, format: output.format };
  for (const button of document.querySelectorAll<HTMLButtonElement>('#job-output-list button[aria-pressed]')) {
    button.setAttribute('aria-pressed', String(button.closest('li')?.dataset.format === output.format));
  }
  const poster = output.poster_url === null ? null : outputLink(job, 'poster', output.format);
  showVideo(outputLink(job, 'video', output.format), poster, t('job.video_format', { format: t(`format.${output.format}`) }));
  $('copy-status').textContent = '';
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
  $('job-shares-status').textContent = '';
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

/**
 * "Copy link" makes a share link of the output shown (docs/studio.md "Share links"): a page the
 * client opens without signing in, with the video, its poster and a preview in chat apps.
 */
async function copyLink(): Promise<void> {
  const job = state.shownJob;
  if (job === null) return;
  const box = $<HTMLInputElement>('job-link');
  let link: string;
  let until: string;
  try {
    const format = shownOutput?.jobId === job.job_id ? shownOutput.format : undefined;
    const { data } = await request<{ share: { id: string; url: string; expires_at: string } }>(
      'POST',
      `/api/v1/jobs/${encodeURIComponent(job.job_id)}/shares`,
      format === undefined ? {} : { format },
    );
    link = new URL(data.share.url, location.href).href;
    lastShare = data.share.id;
    void loadShares(job);
    $('job-unshare').hidden = false;
    until = formatDate(data.share.expires_at.slice(0, 10));
    box.value = link;
    box.hidden = false;
  } catch (error) {
    $('copy-status').textContent = explain(error);
    onAuthLost(error);
    return;
  }
  try {
    await navigator.clipboard.writeText(link);
    $('copy-status').textContent = t('job.share_created', { date: until });
  } catch {
    $('copy-status').textContent = t('job.share_shown', { date: until });
    box.select();
  }
}

/** The share link made last for the job shown: "Withdraw the link" revokes it (docs/studio.md "Share links"). */
let lastShare: string | null = null;

async function withdrawLink(): Promise<void> {
  if (lastShare === null) return;
  try {
    await request('DELETE', `/api/v1/shares/${encodeURIComponent(lastShare)}`);
    forgetLastShare();
    $('copy-status').textContent = t('job.unshared');
    if (state.shownJob !== null) void loadShares(state.shownJob);
  } catch (error) {
    $('copy-status').textContent = explain(error);
    onAuthLost(error);
  }
}

function forgetLastShare(): void {
  lastShare = null;
  $('job-unshare').hidden = true;
  $('job-link').hidden = true;
}

/** The live share links of the job shown, newest first, as last read (null: not read yet for this job). */
let shares: { jobId: string; links: ShareLink[] } | null = null;

/**
 * The job's share links (`GET /api/v1/shares?job_id=`), each with its expiry and "Withdraw"
 * (docs/studio.md "Share links"): read once per job shown, then again after each change.
 */
function showShares(job: JobRecord): void {
  if (shares?.jobId === job.job_id) renderShares(job);
  else {
    shares = { jobId: job.job_id, links: [] };
    renderShares(job);
    void loadShares(job);
  }
}

async function loadShares(job: JobRecord): Promise<void> {
  try {
    const { data } = await request<{ shares: ShareLink[] }>('GET', `/api/v1/shares?job_id=${encodeURIComponent(job.job_id)}`);
    if (state.shownJob?.job_id !== job.job_id) return;
    shares = { jobId: job.job_id, links: data.shares };
    renderShares(job);
  } catch (error) {
    onAuthLost(error);
  }
}

function renderShares(job: JobRecord): void {
  const links = shares?.jobId === job.job_id ? shares.links : [];
  $('job-shares').hidden = links.length === 0;
  $('job-share-list').replaceChildren(
    ...links.map((share, index) => {
      // Numbered in the order they were made: link 1 is the oldest.
      const n = links.length - index;
      const date = formatDate(share.expires_at.slice(0, 10));
      const item = make('li', { 'data-share': share.id });
      item.append(
        make('strong', {}, t('shares.link', { n })),
        make(
          'span',
          { class: 'muted small' },
          t('shares.item', { format: t(`format.${share.format ?? job.formats[0] ?? job.format}`), date }),
        ),
        make('input', {
          class: 'link-box',
          readonly: '',
          dir: 'ltr',
          value: new URL(share.url, location.href).href,
          'aria-label': t('shares.link', { n }),
        }),
      );
      const withdraw = make('button', { type: 'button', 'aria-label': t('shares.withdraw_named', { n, date }) }, t('shares.withdraw'));
      withdraw.addEventListener('click', () => void withdrawShare(job, share, n));
      item.append(withdraw);
      return item;
    }),
  );
}

async function withdrawShare(job: JobRecord, share: ShareLink, n: number): Promise<void> {
  try {
    await request('DELETE', `/api/v1/shares/${encodeURIComponent(share.id)}`);
  } catch (error) {
    $('job-shares-status').textContent = explain(error);
    onAuthLost(error);
    return;
  }
  if (share.id === lastShare) forgetLastShare();
  $('job-shares-status').textContent = t('shares.withdrawn', { n });
  if (shares?.jobId === job.job_id) shares.links = shares.links.filter((link) => link.id !== share.id);
  renderShares(job);
  // The focus goes to the next link's button, or back to "Copy link" when none is left.
  ($('job-share-list').querySelector<HTMLButtonElement>('button') ?? $('job-copy')).focus();
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
  $('job-unshare').addEventListener('click', () => void withdrawLink());
  namedDownload($<HTMLAnchorElement>('job-download'));
}
