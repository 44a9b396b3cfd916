import { ApiError } from './api.js';
import { has, t } from './i18n.js';

/** The page's DOM helpers and its one way of putting an error into words (docs/studio.md, "What the page does"). */

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node as T;
};

export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An API error in the page's language: the code and reason's own text, else the generic one with the details. */
export function explain(error: unknown): string {
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

export function showError(id: string, error: unknown): void {
  $(id).textContent = error === null ? '' : explain(error);
}

export function wireDropzone(zone: HTMLElement, onFiles: (files: File[]) => void): void {
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
