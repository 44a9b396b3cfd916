import { ApiError, request, setCsrfToken, type Session } from '../api.js';
import { $, showError } from '../dom.js';
import { t } from '../i18n.js';
import { hooks, state } from '../state.js';

/** Sign-in and sign-out (docs/studio.md, "Security"): the key goes to the server once, never into the page. */

export function signedIn(next: Session): void {
  state.session = next;
  setCsrfToken(next.csrf_token ?? '');
  $('whoami').textContent = t('signin.as', { tenant: next.tenant ?? '' });
  hooks.route();
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

export function wireSignIn(): void {
  $('signin-form').addEventListener('submit', (event) => void signIn(event));
  $('signout').addEventListener('click', () => void signOut());
}
