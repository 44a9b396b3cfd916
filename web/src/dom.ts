import { ApiError } from './api.js';
import { has, t } from './i18n.js';

/** The page's DOM helpers and its one way of putting an error into words (docs/studio.md, "What the page does"). */

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node as T;
};

/**
 * The value of an option of the form: a <select> or <input> by id, or the checked radio of a group
 * (the template and format pickers are fieldsets of radio tiles, docs/studio.md "Templates and formats").
 */
export function optionValue(id: string): string {
  const node = $(id);
  if (node instanceof HTMLFieldSetElement) return node.querySelector<HTMLInputElement>('input[type="radio"]:checked')?.value ?? '';
  return (node as HTMLInputElement | HTMLSelectElement).value;
}

/** Sets an option (see optionValue); a value no radio has leaves the group as it was. */
export function setOptionValue(id: string, value: string): void {
  const node = $(id);
  if (!(node instanceof HTMLFieldSetElement)) {
    (node as HTMLInputElement | HTMLSelectElement).value = value;
    return;
  }
  const radio = [...node.querySelectorAll<HTMLInputElement>('input[type="radio"]')].find((input) => input.value === value);
  if (radio !== undefined) radio.checked = true;
}

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
