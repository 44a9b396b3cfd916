import { uploadAsset } from '../api.js';
import { $, explain, make, wireDropzone } from '../dom.js';
import { t } from '../i18n.js';
import { hooks, state, type FocusPoint, type PhotoItem } from '../state.js';
import type { RequestPhoto } from '../types.js';
import { photoRef } from '../../../src/core/photo-ref.js';
import { canMarkFocus, openFocusDialog, thumbnailMarker } from './focus.js';
import { onAuthLost } from './signin.js';

/** The photos: uploaded as soon as dropped, reordered by drag or by the ↑/↓ buttons (docs/studio.md, "What the page does"). */

let dragged: string | null = null;

/** The API takes uploads of at most 15 MB and 50 megapixels (docs/api.md "Assets"). */
const UPLOAD_LIMIT_BYTES = 15 * 1024 * 1024;
const UPLOAD_LIMIT_PIXELS = 50_000_000;
/** A larger photo is redrawn at this long side: four times a 1080p frame's, plenty for a video. */
const REDRAWN_LONG_SIDE = 4096;

/**
 * The photo as it can be uploaded: as it is when the API takes it, else redrawn by the browser as
 * a JPEG small enough (docs/studio.md "Errors before the click"), rather than refused at the upload.
 */
export async function fitForUpload(file: Blob): Promise<Blob> {
  if (file.size <= UPLOAD_LIMIT_BYTES && file.size < 4 * 1024 * 1024) return file;
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    // A photo this browser cannot draw (HEIC outside Safari) goes as it is: the server decodes it, or says why not.
    return file;
  }
  try {
    if (file.size <= UPLOAD_LIMIT_BYTES && bitmap.width * bitmap.height <= UPLOAD_LIMIT_PIXELS) return file;
    let side = Math.min(REDRAWN_LONG_SIDE, Math.max(bitmap.width, bitmap.height));
    for (;;) {
      const scale = side / Math.max(bitmap.width, bitmap.height);
      const canvas = new OffscreenCanvas(Math.max(1, Math.round(bitmap.width * scale)), Math.max(1, Math.round(bitmap.height * scale)));
      canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.88 });
      if (blob.size <= UPLOAD_LIMIT_BYTES || side < 1000) return blob;
      side = Math.round(side * 0.75);
    }
  } finally {
    bitmap.close();
  }
}

async function uploadPhoto(item: PhotoItem): Promise<void> {
  if (item.file === null) return;
  item.status = 'uploading';
  item.error = null;
  renderPhotos();
  try {
    item.ref = await uploadAsset(await fitForUpload(item.file));
    rememberThumbnail(item.ref, item.preview);
    item.status = 'ready';
  } catch (error) {
    item.status = 'failed';
    item.error = error;
    onAuthLost(error);
  }
  renderPhotos();
}

/**
 * A small JPEG of the photo, drawn by the browser: kept in the draft (the API does not serve
 * assets back), and the proof that the browser can decode the file at all. Throws when it cannot.
 */
async function thumbnail(file: File): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, 320 / bitmap.width, 180 / bitmap.height);
  const canvas = make('canvas', {
    width: String(Math.max(1, Math.round(bitmap.width * scale))),
    height: String(Math.max(1, Math.round(bitmap.height * scale))),
  });
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return canvas.toDataURL('image/jpeg', 0.8);
}

/** What stands for a HEIC photo the browser cannot draw (the server decodes it: docs/rendering.md "Photos"). */
const HEIC_PREVIEW = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180"><rect width="320" height="180" fill="#D8DEE6"/><text x="160" y="98" font-family="sans-serif" font-size="28" text-anchor="middle" fill="#44505C">HEIC</text></svg>',
)}`;

/** Files that are not photos, named one by one; they are never added to the list (docs/studio.md, "Errors before the click"). */
function showProblems(problems: string[]): void {
  const list = $('photo-problems');
  list.replaceChildren(...problems.map((text) => make('li', {}, text)));
  list.hidden = problems.length === 0;
}

/** Adds the files that are images the browser can read, uploads each, and names every other file. */
export async function addPhotos(files: Iterable<File>): Promise<void> {
  const problems: string[] = [];
  const chosen = [...files];
  state.checking += chosen.length;
  renderPhotos();
  const added: PhotoItem[] = [];
  try {
    for (const file of chosen) {
      // Browsers other than Safari neither type nor draw iPhone photos: the server decodes them.
      const heic = /\.hei[cf]$/i.test(file.name) || /^image\/hei[cf]/.test(file.type);
      if (!file.type.startsWith('image/') && !heic) {
        problems.push(t('photos.not_image', { name: file.name }));
        continue;
      }
      let preview: string;
      try {
        preview = await thumbnail(file);
      } catch {
        if (!heic) {
          problems.push(t('photos.unreadable', { name: file.name }));
          continue;
        }
        preview = HEIC_PREVIEW;
      }
      added.push({ key: crypto.randomUUID(), name: file.name, file, preview, status: 'uploading', ref: null, error: null, focus: null });
    }
  } finally {
    state.checking -= chosen.length;
  }
  showProblems(problems);
  state.photos = [...state.photos, ...added];
  renderPhotos();
  await Promise.all(added.map((item) => uploadPhoto(item)));
}

/**
 * Moves a photo; a move made with the ↑/↓ buttons (`tool`) leaves the focus on the moved photo's
 * same button, or its other one once the photo reached an end, never on the page's body.
 */
function movePhoto(from: number, to: number, tool?: 'up' | 'down'): void {
  const photos = state.photos;
  if (to < 0 || to >= photos.length || from === to) return;
  const next = [...photos];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  state.photos = next;
  renderPhotos();
  $('photo-status').textContent = t('photos.moved', { n: to + 1 });
  if (tool !== undefined) {
    const moved = $('photo-list').children[to];
    const button =
      moved?.querySelector<HTMLButtonElement>(`button[data-tool="${tool}"]:not(:disabled)`) ??
      moved?.querySelector<HTMLButtonElement>('button[data-tool]:not(:disabled)');
    button?.focus();
  }
}

function photoButton(label: string, text: string, onClick: () => void, disabled = false): HTMLButtonElement {
  const button = make('button', { type: 'button', class: 'icon', 'aria-label': label, title: label }, text);
  button.disabled = disabled;
  button.addEventListener('click', onClick);
  return button;
}

/** "Subject": opens the larger view where the agent marks what the video must keep in frame; the focus comes back to it after. */
function focusButton(item: PhotoItem, n: number): HTMLButtonElement {
  const label = t(item.focus === null ? 'photos.focus' : 'photos.focus_marked', { n });
  const button = make(
    'button',
    {
      type: 'button',
      class: `focus-tool${item.focus === null ? '' : ' on'}`,
      'aria-label': label,
      title: label,
      'aria-haspopup': 'dialog',
    },
    t('photos.focus_short'),
  );
  button.dataset.tool = 'focus';
  button.addEventListener('click', () =>
    openFocusDialog(item, n, (saved) => {
      if (saved) {
        renderPhotos();
        $('photo-status').textContent = t(item.focus === null ? 'focus.cleared' : 'focus.saved', { n });
      }
      $('photo-list').querySelector<HTMLButtonElement>(`li[data-key="${item.key}"] button[data-tool="focus"]`)?.focus();
    }),
  );
  return button;
}

export function renderPhotos(): void {
  const photos = state.photos;
  const list = $('photo-list');
  list.replaceChildren(
    ...photos.map((item, index) => {
      const leftOut = item.ref !== null && state.leftOut.has(item.ref);
      const li = make('li', { draggable: 'true', 'data-key': item.key, class: `photo ${item.status}${leftOut ? ' photo-left-out' : ''}` });
      const img = make('img', { src: item.preview, alt: item.name, width: '160', height: '90' });
      // The subject marked by the agent is drawn on the thumbnail (docs/studio.md "The subject of a photo").
      const frame = make('div', { class: 'photo-frame' });
      frame.append(img);
      const marker = thumbnailMarker(item, img);
      if (marker !== null) frame.append(marker);
      li.append(frame);
      const caption = make('div', { class: 'photo-caption' });
      caption.append(make('span', { class: index === 0 ? 'badge' : 'muted' }, index === 0 ? t('photos.cover') : `${index + 1}`));
      if (item.status === 'uploading') caption.append(make('span', { class: 'muted' }, t('photos.uploading')));
      if (item.status === 'failed')
        caption.append(make('span', { class: 'error', role: 'alert' }, `${t('photos.failed')} — ${explain(item.error)}`));
      li.append(caption);
      const tools = make('div', { class: 'photo-tools' });
      const n = index + 1;
      const up = photoButton(t('photos.up', { n }), '↑', () => movePhoto(index, index - 1, 'up'), index === 0);
      const down = photoButton(t('photos.down', { n }), '↓', () => movePhoto(index, index + 1, 'down'), index === photos.length - 1);
      up.dataset.tool = 'up';
      down.dataset.tool = 'down';
      const remove = photoButton(t('photos.remove', { n }), '✕', () => {
        state.photos = state.photos.filter((p) => p.key !== item.key);
        renderPhotos();
      });
      tools.append(up, down, remove);
      if (canMarkFocus(item)) tools.append(focusButton(item, n));
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
        const from = state.photos.findIndex((p) => p.key === dragged);
        dragged = null;
        movePhoto(
          from,
          state.photos.findIndex((p) => p.key === item.key),
        );
      });
      return li;
    }),
  );
  const own = $('own-photos');
  const count = state.property?.photos.length ?? 0;
  own.hidden = photos.length > 0 || count === 0;
  own.textContent = t('photos.own', { count });
  // Said as a hint at first, before the agent had a chance to add a photo; an error once a render was asked without one.
  const missing = photosMissing();
  const hint = $('photos-needed');
  hint.hidden = !missing;
  if (!missing) hint.classList.replace('error', 'hint');
  if (missing && hint.classList.contains('error')) $('photo-input').setAttribute('aria-invalid', 'true');
  else $('photo-input').removeAttribute('aria-invalid');
  hooks.changed();
}

/** No photo added and none in the listing: the render would be refused, so the page says so first. */
export function photosMissing(): boolean {
  return state.property !== null && state.photos.length === 0 && state.checking === 0 && state.property.photos.length === 0;
}

/** How many photos are still being checked or sent. */
export function photosPending(): number {
  return state.checking + state.photos.filter((p) => p.status === 'uploading').length;
}

const THUMBNAILS_STORE = 'immoreel.studio.thumbnails';
/** The thumbnails of the last uploads kept for a re-run (a 320×180 JPEG is ≈ 10 KB). */
const THUMBNAILS_KEPT = 40;

function storedThumbnails(): [string, string][] {
  try {
    const stored = JSON.parse(localStorage.getItem(THUMBNAILS_STORE) ?? '[]') as unknown;
    return Array.isArray(stored) ? (stored as [string, string][]) : [];
  } catch {
    return [];
  }
}

/** Keeps an uploaded photo's thumbnail by its ref: a re-run then shows the photos, not grey boxes (the API does not serve assets back). */
function rememberThumbnail(ref: string, preview: string): void {
  const kept = [[ref, preview] as [string, string], ...storedThumbnails().filter(([known]) => known !== ref)].slice(0, THUMBNAILS_KEPT);
  try {
    localStorage.setItem(THUMBNAILS_STORE, JSON.stringify(kept));
  } catch {
    // Storage full: a re-run shows grey boxes for these.
  }
}

/** Photos already uploaded (a re-run's, with their subjects): their thumbnails when this browser uploaded them, grey placeholders otherwise. */
export function setUploadedPhotos(photos: readonly RequestPhoto[]): void {
  const thumbnails = new Map(storedThumbnails());
  state.photos = photos.map((photo, index) => {
    const { ref, focus } = photoWithFocus(photo);
    return {
      key: crypto.randomUUID(),
      name: `${index + 1}`,
      file: null,
      preview:
        thumbnails.get(ref) ??
        `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" fill="#d8dee4"/></svg>')}`,
      status: 'ready' as const,
      ref,
      error: null,
      focus,
    };
  });
  renderPhotos();
}

/** A request's photo (a ref, or `{url, focus}`) as the page keeps it. */
function photoWithFocus(photo: RequestPhoto): { ref: string; focus: FocusPoint | null } {
  return { ref: photoRef(photo), focus: typeof photo === 'string' ? null : (photo.focus ?? null) };
}

export function wirePhotos(): void {
  $('photo-input').addEventListener('change', () => {
    const input = $<HTMLInputElement>('photo-input');
    const files = [...(input.files ?? [])];
    input.value = '';
    void addPhotos(files);
  });
  wireDropzone($('dropzone'), (files) => void addPhotos(files));
}
