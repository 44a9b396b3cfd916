import { request, type Session } from './api.js';
import { $, make, showError } from './dom.js';
import { restoreDraft, saveDraft } from './draft.js';
import { chooseLanguage, isPageLanguage, setLanguage, t, type PageLanguage } from './i18n.js';
import { hooks, state, type View } from './state.js';
import { renderBatch, resumeBatch, wireBatch } from './views/batch.js';
import { wireBranding } from './views/branding.js';
import { wireFocusDialog } from './views/focus.js';
import { loadHistory, renderHistory, wireHistory } from './views/history.js';
import { openAddressedJob, renderJob, wireJob } from './views/job.js';
import { renderAnalysis, renderFormatsHint, schedulePhotoPreview, showTemplateStills, wireNewVideo } from './views/new-video.js';
import { renderPhotos, wirePhotos } from './views/photos.js';
import { signedIn, whoami, wireSignIn } from './views/signin.js';

/*
 * The Studio page (docs/studio.md). Plain DOM: the HTML holds the structure, the views in views/
 * fill it from API v1 answers, state.ts holds what the page knows. This file chooses the language
 * and the screen, and wires the views. Nothing here holds the API key.
 */

const AUDIENCES = ['auto', 'family', 'young_couple', 'investor', 'mre', 'expat', 'retiree', 'luxury', 'student'];

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
  document.title = `immoreel Studio — ${t(`nav.${state.view}`)}`;
  if (state.session?.signed_in) $('whoami').textContent = whoami(state.session.tenant);
  if (state.property !== null) renderAnalysis(state.property);
  renderPhotos();
  if (state.shownJob !== null) renderJob(state.shownJob);
  if (state.history.length > 0) renderHistory();
  if (state.batch !== null) renderBatch();
}

function showView(view: View | 'signin'): void {
  for (const name of ['signin', 'new', 'history', 'batch']) $(`${name}-view`).hidden = name !== view;
  $('boot').hidden = true;
  $('nav').hidden = view === 'signin';
  $('signout').hidden = view === 'signin';
  $('device-link').hidden = view === 'signin';
  if (view === 'signin') $('device-panel').hidden = true;
  if (view !== 'signin') {
    state.view = view;
    for (const link of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
      if (link.getAttribute('href') === `#${view}`) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `immoreel Studio — ${t(`nav.${view}`)}`;
    if (view === 'history') void loadHistory(true);
  }
}

function route(): void {
  if (!state.session?.signed_in) return showView('signin');
  const hash = location.hash.replace('#', '');
  showView(hash === 'history' || hash === 'batch' ? hash : 'new');
  showTemplateStills();
  void openAddressedJob();
  resumeBatch();
}

async function start(): Promise<void> {
  hooks.route = route;
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
  wireSignIn();
  wireNewVideo();
  wirePhotos();
  wireFocusDialog();
  wireBranding();
  wireJob();
  wireHistory();
  wireBatch();
  // Fires for the nav's #links and for Back/Forward over `?job=` addresses alike.
  window.addEventListener('popstate', route);
  if (restoreDraft()) {
    if (state.property !== null) {
      renderAnalysis(state.property);
      $('render-form').hidden = false;
    }
    renderPhotos();
    renderFormatsHint();
  }
  hooks.changed = () => {
    saveDraft();
    if (state.session?.signed_in) schedulePhotoPreview();
  };
  for (const form of ['analyze-form', 'render-form']) {
    $(form).addEventListener('input', saveDraft);
    $(form).addEventListener('change', saveDraft);
  }

  if (new URLSearchParams(location.search).get('signin') === 'link_used') $('signin-error').textContent = t('signin.link_used');
  try {
    const { data } = await request<Session>('GET', '/studio/session');
    if (data.signed_in) signedIn(data);
    else {
      state.session = data;
      route();
    }
  } catch (error) {
    state.session = { signed_in: false };
    route();
    showError('signin-error', error);
  }
  document.body.dataset.ready = 'true';
  // Read by `npm run bench:studio`: the page answers input from here on.
  performance.mark('studio-interactive');
}

void start();
