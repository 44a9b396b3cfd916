import { ApiError, request, sleep, uploadAsset } from '../api.js';
import { marketChart } from '../chart.js';
import { $, explain, make, optionValue, showError } from '../dom.js';
import { formatAmount, formatDate, formatNumber, formatPlace, formatSource, isolateNumbers, t } from '../i18n.js';
import { state } from '../state.js';
import { MAX_METADATA_BYTES } from '../../../src/core/limits.js';
import { photoRef } from '../../../src/core/photo-ref.js';
import type { JobRecord, Property, RequestPhoto, Warning } from '../types.js';
import { brandingFields, dataUrlBlob, storedBranding } from './branding.js';
import {
  durationProblem,
  factWarningItems,
  factWarningText,
  priceDecision,
  renderPriceCheck,
  resetPriceCheck,
  warningField,
  wireFactChecks,
} from './fact-checks.js';
import { requestPhoto } from './focus.js';
import { followJob } from './job.js';
import { photosMissing, photosPending, renderPhotos } from './photos.js';
import { onAuthLost } from './signin.js';

/** The new-video screen: one box for link or text, the analysis, the options, the render (docs/studio.md, "What the page does"). */

const METADATA_INPUT_CHARS = 1200;

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
    state.property = data.property;
    state.analysedInput = text;
    resetPriceCheck();
    renderAnalysis(data.property);
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

/** One fact; `fromListing` values are the listing's own words (a place, a feature list) and may be in any script. */
function fact(list: HTMLElement, label: string, value: string | null, fromListing = false): void {
  if (value === null || value === '') return;
  list.append(make('dt', {}, t(label)), make('dd', fromListing ? { dir: 'auto' } : {}, value));
}

export function renderAnalysis(p: Property): void {
  $('analysis').hidden = false;
  $('analysis-title').setAttribute('tabindex', '-1');
  $('analysis-heading').textContent = p.title;
  const facts = $('facts');
  facts.replaceChildren();
  const n = (v: number | null, unit?: string): string | null =>
    v === null ? null : unit === undefined ? formatNumber(v) : formatAmount(v, t(unit));
  fact(facts, 'fact.type', p.property_type === null ? null : t(`type.${p.property_type}`));
  fact(facts, 'fact.transaction', p.transaction === null ? null : t(`tx.${p.transaction}`));
  fact(facts, 'fact.price', n(p.price_mad, 'unit.mad'));
  if (p.price_mad !== null) facts.append(...factWarningItems(p, 'price'));
  fact(facts, 'fact.surface', n(p.surface_m2, 'unit.m2'));
  if (p.surface_m2 !== null) facts.append(...factWarningItems(p, 'surface'));
  fact(facts, 'fact.rooms', n(p.rooms));
  fact(facts, 'fact.bedrooms', n(p.bedrooms));
  fact(facts, 'fact.bathrooms', n(p.bathrooms));
  fact(facts, 'fact.toilets', n(p.toilets));
  fact(facts, 'fact.floor', n(p.floor));
  fact(facts, 'fact.place', [p.district, p.city].flatMap((v) => (v === null ? [] : [formatPlace(v)])).join(t('list.comma')), true);
  fact(facts, 'fact.ppm2', n(p.price_per_m2_mad, 'unit.mad_m2'));
  fact(facts, 'fact.features', p.features.join(t('list.comma')), true);

  const market = $('market');
  market.replaceChildren();
  const m = p.market;
  if (m !== null && p.price_per_m2_mad !== null) {
    const summary = t('market.summary', {
      listing: formatNumber(p.price_per_m2_mad),
      area: formatPlace(m.area),
      q1: m.q1_price_per_m2_mad === null ? '—' : formatNumber(m.q1_price_per_m2_mad),
      median: formatNumber(m.median_price_per_m2_mad),
      q3: m.q3_price_per_m2_mad === null ? '—' : formatNumber(m.q3_price_per_m2_mad),
      source: formatSource(m.source),
      asOf: formatDate(m.as_of),
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
      const delta =
        m.delta_pct === null ? '' : formatAmount(Math.round(m.delta_pct), '%').replace(/^\u2066/, m.delta_pct > 0 ? '\u2066+' : '\u2066');
      caption.append(make('strong', {}, t(`market.${m.position}`, { delta })));
    } else {
      // No position while the price or surface is held back (docs/studio.md "Doubtful facts"): the analysis says why.
      const withheld = (m as typeof m & { position_withheld?: string }).position_withheld;
      if (withheld !== undefined) caption.append(make('strong', { dir: 'auto' }, isolateNumbers(withheld)));
    }
    caption.append(make('span', { class: 'muted small' }, ` ${formatSource(m.source)}${t('list.comma')}${formatDate(m.as_of)}`));
    market.append(caption);
  } else {
    // A market known, but no price per m² to place on it: the price is held back, and the analysis says so.
    const withheld = (m as (typeof m & { position_withheld?: string }) | null)?.position_withheld;
    market.append(make('p', { class: 'muted', dir: 'auto' }, withheld === undefined ? t('market.none') : isolateNumbers(withheld)));
  }

  const buyer = $('buyer');
  buyer.replaceChildren();
  const primary = p.target_buyer.segments.find((s) => s.key === p.target_buyer.primary);
  buyer.append(make('p', {}, t('buyer.primary', { label: primary?.label ?? t(`audience.${p.target_buyer.primary}`) })));
  const segments = make('ul');
  for (const segment of p.target_buyer.segments.slice(0, 3)) {
    const item = make('li');
    item.append(make('strong', { dir: 'auto' }, `${segment.label} (${formatAmount(Math.round(segment.score * 100), '%')})`));
    if (segment.reasons.length > 0) item.append(make('span', { dir: 'auto' }, ` — ${isolateNumbers(segment.reasons.join(' ; '))}`));
    segments.append(item);
  }
  buyer.append(segments);

  $('angles').replaceChildren(...p.marketing_angles.map((angle) => make('li', { dir: 'auto' }, isolateNumbers(angle))));
  // Warnings about a fact are shown under it (above); the others here, in the page's words when it has them.
  const general = p.warnings.filter(
    (w) => warningField(w) === null || (warningField(w) === 'price' ? p.price_mad === null : p.surface_m2 === null),
  );
  $('warnings').replaceChildren(
    ...(general.length > 0
      ? general.map((w) => make('li', { dir: 'auto' }, warningText(w, p)))
      : [make('li', { class: 'muted' }, t('warnings.none'))]),
  );
  renderPriceCheck(p);
  renderPhotos();
}

/** A warning in the page's language when the page has words for its code; else as the analysis wrote it. */
function warningText(warning: Warning, p: Property): string {
  if (warning.code === 'URL_SCHEME_ADDED') return t('warning.URL_SCHEME_ADDED', { url: p.source.url ?? '' });
  return factWarningText(warning, p);
}

/** Hides the analysis: the listing is analysed again before the next render. */
export function clearAnalysis(): void {
  state.property = null;
  $('analysis').hidden = true;
  $('render-form').hidden = true;
}

export interface RenderOptions {
  template: string;
  /** One format is sent as `format`, as before packs; several as `formats`, the first ticked being the primary (docs/studio.md "Packs"). */
  format?: string;
  formats?: string[];
  language: string;
  target_audience: string;
  music: string;
  duration_s?: number;
}

export function renderOptions(): RenderOptions {
  const duration = $<HTMLInputElement>('opt-duration').value.trim();
  const formats = chosenFormats();
  return {
    template: optionValue('opt-template'),
    ...(formats.length === 1 ? { format: formats[0] } : { formats }),
    language: $<HTMLSelectElement>('opt-language').value,
    target_audience: $<HTMLSelectElement>('opt-audience').value,
    music: $<HTMLSelectElement>('opt-music').value,
    ...(duration === '' ? {} : { duration_s: Number(duration) }),
  };
}

/** The formats ticked, in the page's order (landscape, portrait, square). */
export function chosenFormats(): string[] {
  return optionValue('opt-format')
    .split(',')
    .filter((format) => format !== '');
}

/** No format ticked: said next to the boxes at once, like a missing photo (docs/studio.md "Errors before the click"). */
export function renderFormatsHint(): void {
  const missing = chosenFormats().length === 0;
  $('formats-needed').hidden = !missing;
  for (const box of document.querySelectorAll<HTMLInputElement>('#opt-format input')) {
    if (missing) box.setAttribute('aria-invalid', 'true');
    else box.removeAttribute('aria-invalid');
  }
}

/**
 * The job's `metadata.studio`, read back by Re-run: the listing's first characters, the photos as
 * sent and the options, within the API's limit on metadata (docs/api.md "Render jobs and videos"): past it,
 * the photos' subjects are left out first, then the end of the listing's text.
 */
export function studioMetadata(input: string, photos: RequestPhoto[], options: RenderOptions): { studio: StudioMetadata } {
  const size = (studio: StudioMetadata): number => new TextEncoder().encode(JSON.stringify({ studio })).length;
  let studio: StudioMetadata = { input: input.slice(0, METADATA_INPUT_CHARS), photos, ...options };
  if (size(studio) > MAX_METADATA_BYTES) studio = { ...studio, photos: photos.map(photoRef) };
  while (size(studio) > MAX_METADATA_BYTES && studio.input !== '')
    studio = { ...studio, input: studio.input.slice(0, Math.floor(studio.input.length * 0.8)) };
  return { studio };
}

/** What the Studio keeps in a job's metadata to fill the form again (Re-run): photos as the render got them, refs or `{url, focus}`. */
export type StudioMetadata = RenderOptions & { input: string; photos: RequestPhoto[] };

let pendingAttempt: { body: string; key: string } | null = null;

async function renderVideo(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  showError('render-error', null);
  const button = $<HTMLButtonElement>('render-btn');
  if (button.disabled) return;
  // What the page can tell is wrong is said next to its field, and nothing is sent (docs/studio.md "Errors before the click").
  if (durationProblem(true)) {
    $('render-error').textContent = t('duration.invalid');
    return;
  }
  const price = priceDecision(state.property);
  if (price === null) {
    $('render-error').textContent = t('price.needed');
    return;
  }
  if (photosMissing()) {
    $('render-error').textContent = t('photos.needed');
    $('photos-needed').classList.replace('hint', 'error');
    $('photo-input').setAttribute('aria-invalid', 'true');
    $('photo-input').focus();
    return;
  }
  if (chosenFormats().length === 0) {
    $('render-error').textContent = t('formats.needed');
    document.querySelector<HTMLInputElement>('#opt-format input')?.focus();
    return;
  }
  button.disabled = true;
  try {
    // Photos still on their way: the render waits for them, and says so (docs/studio.md, "Errors before the click").
    if (photosPending() > 0) {
      $('render-status').textContent = t('render.waiting', { n: photosPending() });
      while (photosPending() > 0) await sleep(200);
      $('render-status').textContent = '';
    }
    const failed = state.photos.filter((p) => p.status === 'failed');
    if (failed.length > 0) {
      $('render-error').textContent = failed.map((p) => t('photos.failed_named', { name: p.name, reason: explain(p.error) })).join(' ');
      return;
    }
    if (photosMissing()) {
      $('render-error').textContent = t('photos.needed');
      return;
    }
    const photos = state.photos;
    const stored = storedBranding();
    if (stored.logo !== undefined && state.logoRef === null)
      state.logoRef = await uploadAsset(dataUrlBlob(stored.logo.dataUrl, stored.logo.type));
    const options = renderOptions();
    const branding = brandingFields();
    if (state.logoRef !== null) branding.logo_url = state.logoRef;
    // Each photo with the subject the agent marked, if any (docs/studio.md "The subject of a photo"); kept for Re-run too.
    const sent = photos.map(requestPhoto);
    const input = state.analysedInput;
    const body = {
      ...(price.listing !== null ? { listing: price.listing } : isUrl(input) ? { url: input } : { description: input }),
      ...(price.confirmed.length > 0 ? { confirmed_facts: price.confirmed } : {}),
      ...(sent.length > 0 ? { photos: sent } : {}),
      ...options,
      ...(Object.keys(branding).length > 0 ? { branding } : {}),
      metadata: studioMetadata(input, sent, options),
    };
    const text = JSON.stringify(body);
    // The same request retried after a failure keeps its Idempotency-Key: never two jobs for one click.
    if (pendingAttempt === null || pendingAttempt.body !== text) pendingAttempt = { body: text, key: crypto.randomUUID() };
    const { data } = await request<{ job: JobRecord }>('POST', '/api/v1/render-video', body, { 'Idempotency-Key': pendingAttempt.key });
    pendingAttempt = null;
    followJob(data.job);
  } catch (error) {
    // A refusal that names the photos is said as the photo field's own hint.
    const aboutPhotos = error instanceof ApiError && error.details.some((d) => /(^|\.)photos$/.test(d.field));
    $('render-error').textContent = aboutPhotos ? t('photos.needed') : explain(error);
    onAuthLost(error);
    if (error instanceof ApiError && error.reason === 'unknown_asset') state.logoRef = null;
  } finally {
    button.disabled = false;
  }
}

let previewTimer: ReturnType<typeof setTimeout> | undefined;
let previewRun = 0;

/**
 * Which photos the video will leave out at the duration chosen, asked of the storyboard before
 * the click (`POST /api/v1/storyboard`, docs/studio.md "What the page does"): the same body as the
 * render, no job, no charge. A server without the route (404) leaves the page as it was.
 */
export function schedulePhotoPreview(): void {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(() => void previewPhotos(), 600);
}

/** Whether this server has the storyboard route, read once from its OpenAPI document (a missing route would be a 404 in the console). */
let storyboardRoute: Promise<boolean> | null = null;

function hasStoryboardRoute(): Promise<boolean> {
  storyboardRoute ??= request<{ paths?: Record<string, unknown> }>('GET', '/api/v1/openapi.json')
    .then(({ data }) => data.paths?.['/api/v1/storyboard'] !== undefined)
    .catch(() => false);
  return storyboardRoute;
}

async function previewPhotos(): Promise<void> {
  const run = ++previewRun;
  const ready = state.photos.filter((p) => p.status === 'ready' && p.ref !== null);
  const show = (leftOut: Set<string>): void => {
    const names = state.photos.filter((p) => p.ref !== null && leftOut.has(p.ref)).map((p) => p.name);
    const changed = [...leftOut].join('|') !== [...state.leftOut].join('|');
    state.leftOut = leftOut;
    $('photos-left-out').textContent = names.length === 0 ? '' : t('photos.left_out', { names: names.join(t('list.comma')) });
    if (changed) renderPhotos();
  };
  if (state.property === null || ready.length === 0 || ready.length < state.photos.length || chosenFormats().length === 0)
    return show(new Set());
  const duration = $<HTMLInputElement>('opt-duration').value.trim();
  const options = renderOptions();
  if (duration !== '' && !(Number.isInteger(options.duration_s) && options.duration_s! >= 10 && options.duration_s! <= 90)) return;
  if (!(await hasStoryboardRoute())) return;
  try {
    const { data } = await request<{ storyboard: { photos: { ref: string; shown: boolean }[] } }>('POST', '/api/v1/storyboard', {
      listing: state.property,
      photos: ready.map(requestPhoto),
      ...options,
    });
    if (run !== previewRun) return;
    show(new Set(data.storyboard.photos.filter((photo) => !photo.shown).map((photo) => photo.ref)));
  } catch {
    // No storyboard route (an older server), or a refusal the render will explain: nothing is said before the click.
    if (run === previewRun) show(new Set());
  }
}

/** Starts over: the text, the analysis and the photos go; options and branding stay, they are the agency's habits. */
function clearDraft(): void {
  $<HTMLTextAreaElement>('listing').value = '';
  state.analysedInput = '';
  clearAnalysis();
  resetPriceCheck();
  state.photos = [];
  $('photo-problems').hidden = true;
  for (const id of ['analyze-error', 'render-error', 'rerun-status']) $(id).textContent = '';
  renderPhotos();
  $('listing').focus();
}

/**
 * Each template tile shows the template's still with its title card in the video's language
 * (docs/studio.md "Templates and formats"). Called once signed in: the still is an API call.
 */
export function showTemplateStills(): void {
  const language = encodeURIComponent(optionValue('opt-language'));
  for (const image of document.querySelectorAll<HTMLImageElement>('img.still')) {
    const src = `/api/v1/templates/${encodeURIComponent(image.dataset.template ?? '')}/still?language=${language}`;
    if (image.getAttribute('src') !== src) image.src = src;
  }
}

export function wireNewVideo(): void {
  $('opt-language').addEventListener('change', () => {
    if (state.session?.signed_in) showTemplateStills();
  });
  $('draft-clear').addEventListener('click', clearDraft);
  $('opt-format').addEventListener('change', renderFormatsHint);
  for (const id of ['opt-duration', 'opt-format', 'opt-template']) $(id).addEventListener('change', schedulePhotoPreview);
  $('analyze-form').addEventListener('submit', (event) => void analyze(event));
  wireFactChecks();
  $('render-form').addEventListener('submit', (event) => void renderVideo(event));
}
