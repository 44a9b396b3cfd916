import { ApiError, request, setCsrfToken, type Session } from '../api.js';
import { $, explain, showError } from '../dom.js';
import { t } from '../i18n.js';
import { hooks, state } from '../state.js';

/** Sign-in and sign-out (docs/studio.md, "Security"): the key goes to the server once, never into the page. */

/**
 * Who is signed in: the tenant's name, which tells an agency's accounts apart; for `immoreel
 * studio`'s own tenant (`studio`, a name the agent never chose) just that they are signed in.
 */
export function whoami(tenant: string | undefined): string {
  return tenant === undefined || tenant === 'studio' ? t('signin.local') : t('signin.as', { tenant });
}

export function signedIn(next: Session): void {
  state.session = next;
  setCsrfToken(next.csrf_token ?? '');
  $('whoami').textContent = whoami(next.tenant);
  hooks.route();
  // Signed in, a reloaded draft can be sent: the photos its video would leave out are said again,
  // as after any change (once per sign-in, not on every navigation).
  hooks.changed();
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
    // Signed out locally anyway: the server ends an unused session itself (docs/studio.md "Sessions").
  }
  state.session = { signed_in: false };
  setCsrfToken('');
  $('whoami').textContent = '';
  hooks.route();
}

/** A 401 means the key was revoked or the session ended: back to sign-in, keeping what was typed. */
export function onAuthLost(error: unknown): void {
  if (error instanceof ApiError && error.code === 'UNAUTHORIZED') {
    state.session = { signed_in: false };
    hooks.route();
    showError('signin-error', error);
  }
}

/** A one-time sign-in link for a phone or another device (docs/studio.md "From a phone or another device"). */
async function deviceLink(): Promise<void> {
  const panel = $('device-panel');
  const box = $<HTMLInputElement>('device-url');
  panel.hidden = false;
  try {
    const { data } = await request<{ links: string[]; lan: boolean }>('POST', '/studio/device-link');
    box.value = data.links[0] ?? '';
    box.hidden = box.value === '';
    $('device-help').textContent = t(data.lan ? 'device.lan' : 'device.local');
    box.select();
  } catch (error) {
    box.hidden = true;
    $('device-help').textContent = error instanceof ApiError && error.reason === 'no_device_links' ? t('device.serve') : explain(error);
    onAuthLost(error);
  }
  panel.scrollIntoView({ block: 'nearest' });
}

export function wireSignIn(): void {
  $('device-link').addEventListener('click', () => void deviceLink());
  $('signin-form').addEventListener('submit', (event) => void signIn(event));
  $('signout').addEventListener('click', () => void signOut());
}
