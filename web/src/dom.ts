import { ApiError } from './api.js';
import { has, t } from './i18n.js';

/** The page's DOM helpers and its one way of putting an error into words (docs/studio.md, "What the page does"). */

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node as T;
};

/**
 * The value of an option of the form: a <select> or <input> by id, the checked radio of a group
 * (the template picker is a fieldset of radio tiles, docs/studio.md "Templates and formats"), or
 * the checked boxes of a group in the order of the page, joined by commas (the format picker: one
 * or several formats, docs/studio.md "Packs").
 */
export function optionValue(id: string): string {
  const node = $(id);
  if (node instanceof HTMLFieldSetElement)
    return [...node.querySelectorAll<HTMLInputElement>('input:checked')].map((input) => input.value).join(',');
  return (node as HTMLInputElement | HTMLSelectElement).value;
}

/**
 * Sets an option (see optionValue). A value no radio has leaves the group as it was; for a group of
 * boxes, the comma-separated values are checked and the others cleared, unless none of them is known.
 */
export function setOptionValue(id: string, value: string): void {
  const node = $(id);
  if (!(node instanceof HTMLFieldSetElement)) {
    (node as HTMLInputElement | HTMLSelectElement).value = value;
    return;
  }
  const inputs = [...node.querySelectorAll<HTMLInputElement>('input[type="radio"], input[type="checkbox"]')];
  const wanted = value.split(',');
  if (!inputs.some((input) => wanted.includes(input.value))) return;
  for (const input of inputs) {
    if (input.type === 'checkbox') input.checked = wanted.includes(input.value);
    else if (input.value === wanted[0]) input.checked = true;
  }
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

/**
 * Saves `href` as `name`: the API names a video by its job id (Content-Disposition), which wins
 * over a link's `download`; fetched and saved from memory instead, the file is named as the page
 * says (docs/studio.md "What the page does"). When the fetch fails, the browser follows the link as usual.
 */
export async function saveAs(href: string, name: string): Promise<void> {
  const response = await fetch(href, { credentials: 'same-origin' }).catch(() => null);
  if (response === null || !response.ok) {
    location.assign(href);
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = make('a', { href: url, download: name, hidden: '' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A download link whose plain click saves the file under its `download` name (see saveAs); other clicks are the browser's. */
export function namedDownload(link: HTMLAnchorElement): HTMLAnchorElement {
  link.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void saveAs(link.href, link.download);
  });
  return link;
}
