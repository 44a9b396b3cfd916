import { ApiError, request, setCsrfToken, sleep, type Session } from './api.js';
import { marketChart } from './chart.js';
import { csvRecords, toCsv } from './csv.js';
import { chooseLanguage, formatDuration, formatNumber, has, isPageLanguage, language, setLanguage, t, type PageLanguage } from './i18n.js';
import type { JobRecord, Property } from './types.js';
import { AppError } from '../../src/core/errors.js';
import type { RenderRequest } from '../../src/core/requests.js';
import { batchRowRequest } from '../../src/jobs/batch-row.js';

/*
 * The Studio page (docs/studio.md). Plain DOM: the HTML holds the structure, this file fills it
 * from API v1 answers. Nothing here holds the API key; branding (never the key) is kept in
 * localStorage for next time.
 */

const AUDIENCES = ['auto', 'family', 'young_couple', 'investor', 'mre', 'expat', 'retiree', 'luxury', 'student'];
const ACTIVE = new Set(['queued', 'running']);
const BRANDING_STORE = 'immoreel.studio.branding';
const METADATA_INPUT_CHARS = 1200;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node as T;
};

function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------- errors in the page's language ----------

function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return t('err.generic');
  const specific = `err.${error.code}.${error.reason ?? ''}`;
  const key = has(specific) ? specific : has(`err.${error.code}`) ? `err.${error.code}` : 'err.generic';
  let text = t(key, { retry: error.retryAfterS ?? 5, request: error.requestId ?? '', message: error.message });
  if (key === 'err.BAD_REQUEST' || key === 'err.generic') {
    const details = error.details.length > 0 ? error.details.map((d) => `${d.field} — ${d.message}`).join('; ') : error.message;
    text += ` ${t('err.details', { details })}`;
  }
  return text;
}

function showError(id: string, error: unknown): void {
  $(id).textContent = error === null ? '' : explain(error);
}

// ---------- language ----------

function applyLanguage(lang: PageLanguage): void {
  setLanguage(lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) node.textContent = t(node.dataset.i18n!);
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n-aria]')) node.setAttribute('aria-label', t(node.dataset.i18nAria!));
  ($('lang') as HTMLSelectElement).value = lang;
  const audience = $<HTMLSelectElement>('opt-audience');
  const chosen = audience.value || 'auto';
  audience.replaceChildren(...AUDIENCES.map((key) => make('option', { value: key }, t(`audience.${key}`))));
  audience.value = chosen;
  document.title = `immoreel Studio — ${t(`nav.${currentView}`)}`;
  if (session?.signed_in) $('whoami').textContent = t('signin.as', { tenant: session.tenant ?? '' });
  if (property !== null) renderAnalysis(property);
  renderPhotos();
  if (shownJob !== null) renderJob(shownJob);
  if (history.length > 0) renderHistory();
  if (batch !== null) renderBatch();
}

// ---------- session and views ----------

let session: Session | null = null;
type View = 'new' | 'history' | 'batch';
let currentView: View = 'new';

function showView(view: View | 'signin'): void {
  for (const name of ['signin', 'new', 'history', 'batch']) $(`${name}-view`).hidden = name !== view;
  $('boot').hidden = true;
  $('nav').hidden = view === 'signin';
  $('signout').hidden = view === 'signin';
  if (view !== 'signin') {
    currentView = view;
    for (const link of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
      if (link.getAttribute('href') === `#${view}`) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `immoreel Studio — ${t(`nav.${view}`)}`;
    if (view === 'history') void loadHistory(true);
  }
}

function route(): void {
  if (!session?.signed_in) return showView('signin');
  const hash = location.hash.replace('#', '');
  showView(hash === 'history' || hash === 'batch' ? hash : 'new');
}

function signedIn(next: Session): void {
  session = next;
  setCsrfToken(next.csrf_token ?? '');
  $('whoami').textContent = t('signin.as', { tenant: next.tenant ?? '' });
  route();
}

async function signIn(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const input = $<HTMLInputElement>('api-key');
  showError('signin-error', null);
  try {
    const { data } = await request<Session>('POST', '/studio/session', { api_key: input.value });
    input.value = '';
    signedIn(data);
    $('main').focus();
  } catch (error) {
    showError('signin-error', error);
    input.focus();
  }
}

async function signOut(): Promise<void> {
  try {
    await request('DELETE', '/studio/session');
  } catch {
    // Signed out locally anyway: the cookie dies with the browser session.
  }
  session = { signed_in: false };
  setCsrfToken('');
  $('whoami').textContent = '';
  route();
}

/** A 401 means the key was revoked or the session ended: back to sign-in, keeping what was typed. */
function onAuthLost(error: unknown): void {
  if (error instanceof ApiError && error.code === 'UNAUTHORIZED') {
    session = { signed_in: false };
    route();
    showError('signin-error', error);
  }
}

// ---------- analysis ----------

let property: Property | null = null;

function isUrl(text: string): boolean {
  return /^https?:\/\/\S+$/i.test(text.trim());
}

async function analyze(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const text = $<HTMLTextAreaElement>('listing').value.trim();
  showError('analyze-error', null);
  if (text === '') {
    $('analyze-error').textContent = t('err.empty_listing');
    $('listing').focus();
    return;
  }
  const button = $<HTMLButtonElement>('analyze-btn');
  button.disabled = true;
  $('analyze-status').textContent = t('analyzing');
  try {
    const body: Record<string, unknown> = isUrl(text) ? { url: text } : { description: text };
    body.language = $<HTMLSelectElement>('opt-language').value;
    const { data } = await request<{ property: Property }>('POST', '/api/v1/analyze', body);
    property = data.property;
    analysedInput = text;
    renderAnalysis(property);
    $('render-form').hidden = false;
    $('analysis-title').focus();
  } catch (error) {
    showError('analyze-error', error);
    onAuthLost(error);
  } finally {
    button.disabled = false;
    $('analyze-status').textContent = '';
  }
}

let analysedInput = '';

function fact(list: HTMLElement, label: string, value: string | null): void {
  if (value === null || value === '') return;
  list.append(make('dt', {}, t(label)), make('dd', {}, value));
}

function renderAnalysis(p: Property): void {
  $('analysis').hidden = false;
  $('analysis-title').setAttribute('tabindex', '-1');
  $('analysis-heading').textContent = p.title;
  const facts = $('facts');
  facts.replaceChildren();
  const n = (v: number | null, unit?: string): string | null =>
    v === null ? null : unit === undefined ? formatNumber(v) : `${formatNumber(v)} ${t(unit)}`;
  fact(facts, 'fact.type', p.property_type === null ? null : t(`type.${p.property_type}`));
  fact(facts, 'fact.transaction', p.transaction === null ? null : t(`tx.${p.transaction}`));
  fact(facts, 'fact.price', n(p.price_mad, 'unit.mad'));
  fact(facts, 'fact.surface', n(p.surface_m2, 'unit.m2'));
  fact(facts, 'fact.rooms', n(p.rooms));
  fact(facts, 'fact.bedrooms', n(p.bedrooms));
  fact(facts, 'fact.bathrooms', n(p.bathrooms));
  fact(facts, 'fact.toilets', n(p.toilets));
  fact(facts, 'fact.floor', n(p.floor));
  fact(facts, 'fact.place', [p.district, p.city].filter((v) => v !== null).join(', '));
  fact(facts, 'fact.ppm2', n(p.price_per_m2_mad, 'unit.mad_m2'));
  fact(facts, 'fact.features', p.features.join(', '));

  const market = $('market');
  market.replaceChildren();
  const m = p.market;
  if (m !== null && p.price_per_m2_mad !== null) {
    const summary = t('market.summary', {
      listing: formatNumber(p.price_per_m2_mad),
      area: m.area,
      q1: m.q1_price_per_m2_mad === null ? '—' : formatNumber(m.q1_price_per_m2_mad),
      median: formatNumber(m.median_price_per_m2_mad),
      q3: m.q3_price_per_m2_mad === null ? '—' : formatNumber(m.q3_price_per_m2_mad),
      source: m.source,
      asOf: m.as_of,
    });
    market.append(
      marketChart(
        { listing: p.price_per_m2_mad, q1: m.q1_price_per_m2_mad, median: m.median_price_per_m2_mad, q3: m.q3_price_per_m2_mad },
        summary,
      ),
    );
    const caption = make('figcaption');
    caption.append(make('span', { class: 'dot', 'aria-hidden': 'true' }), make('span', {}, ` ${t('market.listing')} · `));
    if (m.position !== null) {
      const delta = m.delta_pct === null ? '' : `${m.delta_pct > 0 ? '+' : ''}${Math.round(m.delta_pct)} %`;
      caption.append(make('strong', {}, t(`market.${m.position}`, { delta })));
    }
    caption.append(make('span', { class: 'muted small' }, ` ${m.source}, ${m.as_of}`));
    market.append(caption);
  } else {
    market.append(make('p', { class: 'muted' }, t('market.none')));
  }

  const buyer = $('buyer');
  buyer.replaceChildren();
  const primary = p.target_buyer.segments.find((s) => s.key === p.target_buyer.primary);
  buyer.append(make('p', {}, t('buyer.primary', { label: primary?.label ?? t(`audience.${p.target_buyer.primary}`) })));
  const segments = make('ul');
  for (const segment of p.target_buyer.segments.slice(0, 3)) {
    const item = make('li');
    item.append(make('strong', {}, `${segment.label} (${Math.round(segment.score * 100)} %)`));
    if (segment.reasons.length > 0) item.append(make('span', {}, ` — ${segment.reasons.join(' ; ')}`));
    segments.append(item);
  }
  buyer.append(segments);

  $('angles').replaceChildren(...p.marketing_angles.map((angle) => make('li', {}, angle)));
  const warnings = $('warnings');
  warnings.replaceChildren(
    ...(p.warnings.length > 0 ? p.warnings.map((w) => make('li', {}, w.message)) : [make('li', { class: 'muted' }, t('warnings.none'))]),
  );
  renderPhotos();
}

// ---------- photos ----------

interface PhotoItem {
  key: string;
  name: string;
  file: File | null;
  preview: string;
  status: 'uploading' | 'ready' | 'failed';
  ref: string | null;
  error: unknown;
}

let photos: PhotoItem[] = [];
let dragged: string | null = null;

async function upload(file: Blob): Promise<string> {
  const { data } = await request<{ asset: { ref: string } }>('POST', '/api/v1/assets', file);
  return data.asset.ref;
}

async function uploadPhoto(item: PhotoItem): Promise<void> {
  if (item.file === null) return;
  item.status = 'uploading';
  item.error = null;
  renderPhotos();
  try {
    item.ref = await upload(item.file);
    item.status = 'ready';
  } catch (error) {
    item.status = 'failed';
    item.error = error;
    onAuthLost(error);
  }
  renderPhotos();
}

function addPhotos(files: Iterable<File>): void {
  const added: PhotoItem[] = [];
  for (const file of files) {
    if (!file.type.startsWith('image/')) continue;
    added.push({
      key: crypto.randomUUID(),
      name: file.name,
      file,
      preview: URL.createObjectURL(file),
      status: 'uploading',
      ref: null,
      error: null,
    });
  }
  photos = [...photos, ...added];
  renderPhotos();
  for (const item of added) void uploadPhoto(item);
}

function movePhoto(from: number, to: number, announce = true): void {
  if (to < 0 || to >= photos.length || from === to) return;
  const next = [...photos];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  photos = next;
  renderPhotos();
  if (announce) $('photo-status').textContent = t('photos.moved', { n: to + 1 });
}

function photoButton(label: string, text: string, onClick: () => void, disabled = false): HTMLButtonElement {
  const button = make('button', { type: 'button', class: 'icon', 'aria-label': label, title: label }, text);
  button.disabled = disabled;
  button.addEventListener('click', onClick);
  return button;
}

function renderPhotos(): void {
  const list = $('photo-list');
  list.replaceChildren(
    ...photos.map((item, index) => {
      const li = make('li', { draggable: 'true', 'data-key': item.key, class: `photo ${item.status}` });
      const img = make('img', { src: item.preview, alt: item.name, width: '160', height: '90' });
      li.append(img);
      const caption = make('div', { class: 'photo-caption' });
      caption.append(make('span', { class: index === 0 ? 'badge' : 'muted' }, index === 0 ? t('photos.cover') : `${index + 1}`));
      if (item.status === 'uploading') caption.append(make('span', { class: 'muted' }, t('photos.uploading')));
      if (item.status === 'failed')
        caption.append(make('span', { class: 'error', role: 'alert' }, `${t('photos.failed')} — ${explain(item.error)}`));
      li.append(caption);
      const tools = make('div', { class: 'photo-tools' });
      const n = index + 1;
      const up = photoButton(t('photos.up', { n }), '↑', () => movePhoto(index, index - 1), index === 0);
      const down = photoButton(t('photos.down', { n }), '↓', () => movePhoto(index, index + 1), index === photos.length - 1);
      const remove = photoButton(t('photos.remove', { n }), '✕', () => {
        URL.revokeObjectURL(item.preview);
        photos = photos.filter((p) => p.key !== item.key);
        renderPhotos();
      });
      tools.append(up, down, remove);
      if (item.status === 'failed') tools.append(photoButton(t('photos.retry'), '↻', () => void uploadPhoto(item)));
      li.append(tools);
      li.addEventListener('dragstart', (event) => {
        dragged = item.key;
        event.dataTransfer?.setData('text/plain', item.key);
      });
      li.addEventListener('dragover', (event) => {
        if (dragged !== null) event.preventDefault();
      });
      li.addEventListener('drop', (event) => {
        if (dragged === null) return;
        event.preventDefault();
        event.stopPropagation();
        const from = photos.findIndex((p) => p.key === dragged);
        dragged = null;
        movePhoto(
          from,
          photos.findIndex((p) => p.key === item.key),
        );
      });
      return li;
    }),
  );
  const own = $('own-photos');
  const count = property?.photos.length ?? 0;
  own.hidden = photos.length > 0 || count === 0;
  own.textContent = t('photos.own', { count });
}

function wireDropzone(zone: HTMLElement, onFiles: (files: File[]) => void): void {
  zone.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) {
      event.preventDefault();
      zone.classList.add('over');
    }
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    onFiles([...(event.dataTransfer?.files ?? [])]);
  });
}

// ---------- branding (remembered, never the key) ----------

interface StoredBranding {
  agency_name?: string;
  agent_name?: string;
  phone?: string;
  logo?: { dataUrl: string; type: string };
}

let logoRef: string | null = null;

function storedBranding(): StoredBranding {
  try {
    return JSON.parse(localStorage.getItem(BRANDING_STORE) ?? '{}') as StoredBranding;
  } catch {
    return {};
  }
}

function saveBranding(update: Partial<StoredBranding>): void {
  const next = { ...storedBranding(), ...update };
  try {
    localStorage.setItem(BRANDING_STORE, JSON.stringify(next));
  } catch {
    // Storage full or disabled: branding is simply not remembered.
  }
}

function showLogo(): void {
  const logo = storedBranding().logo;
  $('logo-preview').hidden = logo === undefined;
  if (logo !== undefined) $<HTMLImageElement>('logo-img').src = logo.dataUrl;
}

function restoreBranding(): void {
  const stored = storedBranding();
  $<HTMLInputElement>('brand-agency').value = stored.agency_name ?? '';
  $<HTMLInputElement>('brand-agent').value = stored.agent_name ?? '';
  $<HTMLInputElement>('brand-phone').value = stored.phone ?? '';
  showLogo();
  const fields: [string, keyof StoredBranding][] = [
    ['brand-agency', 'agency_name'],
    ['brand-agent', 'agent_name'],
    ['brand-phone', 'phone'],
  ];
  for (const [id, key] of fields) $(id).addEventListener('input', () => saveBranding({ [key]: $<HTMLInputElement>(id).value }));
  $('brand-logo').addEventListener('change', () => {
    const file = $<HTMLInputElement>('brand-logo').files?.[0];
    if (file === undefined) return;
    const reader = new FileReader();
    reader.onload = () => {
      saveBranding({ logo: { dataUrl: String(reader.result), type: file.type } });
      logoRef = null;
      showLogo();
    };
    reader.readAsDataURL(file);
  });
  $('logo-remove').addEventListener('click', () => {
    const { logo: _drop, ...rest } = storedBranding();
    try {
      localStorage.setItem(BRANDING_STORE, JSON.stringify(rest));
    } catch {
      // Nothing stored, nothing to remove.
    }
    logoRef = null;
    $<HTMLInputElement>('brand-logo').value = '';
    showLogo();
  });
}

function dataUrlBlob(dataUrl: string, type: string): Blob {
  const bytes = atob(dataUrl.slice(dataUrl.indexOf(',') + 1));
  const array = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) array[i] = bytes.charCodeAt(i);
  return new Blob([array], { type });
}

// ---------- render ----------

let pendingAttempt: { body: string; key: string } | null = null;

async function renderVideo(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  showError('render-error', null);
  if (photos.some((p) => p.status === 'uploading')) return;
  const failed = photos.find((p) => p.status === 'failed');
  if (failed !== undefined) {
    $('render-error').textContent = explain(failed.error);
    return;
  }
  const button = $<HTMLButtonElement>('render-btn');
  button.disabled = true;
  try {
    const stored = storedBranding();
    if (stored.logo !== undefined && logoRef === null) logoRef = await upload(dataUrlBlob(stored.logo.dataUrl, stored.logo.type));
    const duration = $<HTMLInputElement>('opt-duration').value.trim();
    const options = {
      template: $<HTMLSelectElement>('opt-template').value,
      format: $<HTMLSelectElement>('opt-format').value,
      language: $<HTMLSelectElement>('opt-language').value,
      target_audience: $<HTMLSelectElement>('opt-audience').value,
      music: $<HTMLSelectElement>('opt-music').value,
      ...(duration === '' ? {} : { duration_s: Number(duration) }),
    };
    const branding: Record<string, string> = {};
    const agency = $<HTMLInputElement>('brand-agency').value.trim();
    const agent = $<HTMLInputElement>('brand-agent').value.trim();
    const phone = $<HTMLInputElement>('brand-phone').value.trim();
    if (agency !== '') branding.agency_name = agency;
    if (agent !== '') branding.agent_name = agent;
    if (phone !== '') branding.phone = phone;
    if (logoRef !== null) branding.logo_url = logoRef;
    const refs = photos.map((p) => p.ref!);
    const body = {
      ...(property !== null ? { listing: property } : isUrl(analysedInput) ? { url: analysedInput } : { description: analysedInput }),
      ...(refs.length > 0 ? { photos: refs } : {}),
      ...options,
      ...(Object.keys(branding).length > 0 ? { branding } : {}),
      metadata: { studio: { input: analysedInput.slice(0, METADATA_INPUT_CHARS), photos: refs, ...options } },
    };
    const text = JSON.stringify(body);
    // The same request retried after a failure keeps its Idempotency-Key: never two jobs for one click.
    if (pendingAttempt === null || pendingAttempt.body !== text) pendingAttempt = { body: text, key: crypto.randomUUID() };
    const { data } = await request<{ job: JobRecord }>('POST', '/api/v1/render-video', body, { 'Idempotency-Key': pendingAttempt.key });
    pendingAttempt = null;
    followJob(data.job);
  } catch (error) {
    showError('render-error', error);
    onAuthLost(error);
    if (error instanceof ApiError && error.reason === 'unknown_asset') logoRef = null;
  } finally {
    button.disabled = false;
  }
}

// ---------- following a job ----------

let shownJob: JobRecord | null = null;
let following = 0;
let progressStart: { at: number; progress: number } | null = null;

function renderJob(job: JobRecord): void {
  $('job-panel').hidden = false;
  $('job-title').textContent = t('job.title', { id: job.job_id });
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

/** Polls the job, waiting what the server's Retry-After says between reads. */
function followJob(job: JobRecord): void {
  const run = ++following;
  shownJob = job;
  progressStart = null;
  $('copy-status').textContent = '';
  $<HTMLVideoElement>('job-video').removeAttribute('src');
  renderJob(job);
  if (currentView !== 'new') location.hash = '#new';
  $('job-panel').scrollIntoView({ block: 'nearest' });
  void (async () => {
    let waitS = 1;
    while (run === following && shownJob !== null && ACTIVE.has(shownJob.state)) {
      await sleep(waitS * 1000);
      if (run !== following) return;
      try {
        const { data, retryAfterS } = await request<{ job: JobRecord }>('GET', `/api/v1/jobs/${encodeURIComponent(job.job_id)}`);
        if (run !== following) return;
        shownJob = data.job;
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

async function cancelJob(jobId: string): Promise<JobRecord | null> {
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

// ---------- history ----------

let history: JobRecord[] = [];
let historyCursor: string | null = null;

async function loadHistory(reset: boolean): Promise<void> {
  showError('history-error', null);
  const state = $<HTMLSelectElement>('history-filter').value;
  const query = new URLSearchParams({ limit: '20' });
  if (state !== '') query.set('state', state);
  if (!reset && historyCursor !== null) query.set('cursor', historyCursor);
  try {
    const { data } = await request<{ jobs: JobRecord[]; next_cursor: string | null }>('GET', `/api/v1/jobs?${query}`);
    history = reset ? data.jobs : [...history, ...data.jobs];
    historyCursor = data.next_cursor;
    renderHistory();
  } catch (error) {
    showError('history-error', error);
    onAuthLost(error);
  }
}

function actionButton(text: string, onClick: () => void | Promise<void>): HTMLButtonElement {
  const button = make('button', { type: 'button' }, text);
  button.addEventListener('click', () => void onClick());
  return button;
}

function renderHistory(): void {
  const dateFormat = new Intl.DateTimeFormat(language() === 'ar' ? 'ar-MA' : language(), { dateStyle: 'short', timeStyle: 'short' });
  $('history-rows').replaceChildren(
    ...history.map((job) => {
      const row = make('tr', { 'data-job': job.job_id });
      row.append(make('td', {}, dateFormat.format(new Date(job.created_at))));
      row.append(make('td', {}, job.listing?.title ?? job.job_id));
      const status = `${t(`state.${job.state}`)}${ACTIVE.has(job.state) ? ` (${Math.round(job.progress * 100)} %)` : ''}`;
      row.append(make('td', { class: `state ${job.state}` }, status));
      const actions = make('td', { class: 'actions' });
      actions.append(actionButton(t('history.open'), () => followJob(job)));
      actions.append(actionButton(t('history.rerun'), () => rerun(job)));
      if (ACTIVE.has(job.state)) {
        actions.append(
          actionButton(t('job.cancel'), async () => {
            try {
              const updated = await cancelJob(job.job_id);
              if (updated !== null) history = history.map((j) => (j.job_id === updated.job_id ? updated : j));
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
  $('history-empty').hidden = history.length > 0;
  $('history-more').hidden = historyCursor === null;
}

interface StudioMetadata {
  input?: string;
  photos?: string[];
  template?: string;
  format?: string;
  language?: string;
  target_audience?: string;
  music?: string;
  duration_s?: number;
}

/** Re-run: the job's settings back in the form, to change and render again. */
function rerun(job: JobRecord): void {
  const saved = ((job.metadata ?? {}) as { studio?: StudioMetadata }).studio ?? {};
  $<HTMLTextAreaElement>('listing').value = saved.input ?? job.listing?.title ?? '';
  const set = (id: string, value: string | undefined): void => {
    if (value !== undefined) $<HTMLSelectElement | HTMLInputElement>(id).value = value;
  };
  set('opt-template', saved.template ?? job.template);
  set('opt-format', saved.format ?? job.format);
  set('opt-language', saved.language ?? job.language);
  set('opt-audience', saved.target_audience);
  set('opt-music', saved.music);
  set('opt-duration', saved.duration_s === undefined ? '' : String(saved.duration_s));
  photos = (saved.photos ?? []).map((ref, index) => ({
    key: crypto.randomUUID(),
    name: `${index + 1}`,
    file: null,
    preview: `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" fill="#d8dee4"/></svg>')}`,
    status: 'ready' as const,
    ref,
    error: null,
  }));
  location.hash = '#new';
  // The listing is analysed again, so the video tells what the agent sees now.
  property = null;
  $('analysis').hidden = true;
  $('render-form').hidden = true;
  renderPhotos();
  if ($<HTMLTextAreaElement>('listing').value.trim() !== '') $<HTMLFormElement>('analyze-form').requestSubmit();
  $('rerun-status').textContent = t('history.rerun_loaded', { id: job.job_id });
}

// ---------- batch ----------

interface BatchRowState {
  id: string;
  values: Record<string, string>;
  jobId: string | null;
  state: string;
  progress: number;
  error: { code: string; message: string } | null;
}

let batch: { columns: string[]; rows: BatchRowState[] } | null = null;
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
    text = await file.text();
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
  batch = {
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

function renderBatch(): void {
  if (batch === null) return;
  $('batch-table').hidden = false;
  $('batch-rows').replaceChildren(
    ...batch.rows.map((row) => {
      const tr = make('tr', { 'data-row': row.id });
      tr.append(make('th', { scope: 'row' }, row.id));
      const label = row.state === 'submitting' ? t('batch.submitting') : t(`state.${row.state}`);
      tr.append(
        make('td', { class: `state ${row.state}` }, ACTIVE.has(row.state) ? `${label} (${Math.round(row.progress * 100)} %)` : label),
      );
      tr.append(make('td', {}, row.error?.message ?? ''));
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

// ---------- start ----------

async function start(): Promise<void> {
  const lang = chooseLanguage(location.search, navigator.languages ?? [navigator.language]);
  applyLanguage(lang);
  $<HTMLSelectElement>('opt-language').value = lang;
  $('lang').addEventListener('change', () => {
    const next = $<HTMLSelectElement>('lang').value;
    if (!isPageLanguage(next)) return;
    const url = new URL(location.href);
    url.searchParams.set('lang', next);
    window.history.replaceState(null, '', url);
    applyLanguage(next);
  });
  $('signin-form').addEventListener('submit', (event) => void signIn(event));
  $('signout').addEventListener('click', () => void signOut());
  $('analyze-form').addEventListener('submit', (event) => void analyze(event));
  $('render-form').addEventListener('submit', (event) => void renderVideo(event));
  $('photo-input').addEventListener('change', () => {
    const input = $<HTMLInputElement>('photo-input');
    addPhotos([...(input.files ?? [])]);
    input.value = '';
  });
  wireDropzone($('dropzone'), addPhotos);
  restoreBranding();
  $('job-cancel').addEventListener('click', async () => {
    if (shownJob === null) return;
    try {
      const job = await cancelJob(shownJob.job_id);
      if (job !== null) renderJob((shownJob = job));
    } catch (error) {
      showError('job-error', error);
    }
  });
  $('job-copy').addEventListener('click', () => void copyLink());
  $('history-filter').addEventListener('change', () => void loadHistory(true));
  $('history-refresh').addEventListener('click', () => void loadHistory(true));
  $('history-more').addEventListener('click', () => void loadHistory(false));
  $('batch-input').addEventListener('change', () => {
    const file = $<HTMLInputElement>('batch-input').files?.[0];
    if (file !== undefined) void startBatch(file);
    $<HTMLInputElement>('batch-input').value = '';
  });
  wireDropzone($('batch-drop'), (files) => {
    if (files[0] !== undefined) void startBatch(files[0]);
  });
  $('batch-failed').addEventListener('click', downloadFailedRows);
  window.addEventListener('hashchange', route);

  if (new URLSearchParams(location.search).get('signin') === 'link_used') $('signin-error').textContent = t('signin.link_used');
  try {
    const { data } = await request<Session>('GET', '/studio/session');
    if (data.signed_in) signedIn(data);
    else {
      session = data;
      route();
    }
  } catch (error) {
    session = { signed_in: false };
    route();
    showError('signin-error', error);
  }
  document.body.dataset.ready = 'true';
  // Read by `npm run bench:studio`: the page answers input from here on.
  performance.mark('studio-interactive');
}

void start();
