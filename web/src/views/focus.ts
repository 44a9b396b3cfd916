import { $, make } from '../dom.js';
import { formatAmount, t } from '../i18n.js';
import { state, type FocusPoint, type PhotoItem } from '../state.js';
import type { RequestPhoto } from '../types.js';

/*
 * The subject of a photo, marked by the agent (docs/studio.md "The subject of a photo"): the
 * photo's "Subject" button opens a larger view in a modal dialog where a click or a tap puts the
 * marker, the arrow keys move it, Enter keeps it and Escape leaves it as it was. The point is
 * fractions of the upright photo from its top left, so a photo the browser redraws smaller before
 * the upload (fitForUpload) keeps it; the render and the storyboard receive it as `photos[].focus`.
 */

/** How far an arrow key moves the marker: 5 % of the photo's side, 1 % with Shift. */
const STEP = 0.05;
const FINE_STEP = 0.01;

/** The thumbnails' box (`.photo img`, `object-fit: cover`): 16:9. */
const THUMBNAIL_ASPECT = 16 / 9;

/** A photo of the request: its ref alone, or with the subject marked (to a thousandth: finer than any pixel of a video frame). */
export function requestPhoto(item: PhotoItem): RequestPhoto {
  if (item.focus === null) return item.ref!;
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  return { url: item.ref!, focus: { x: round(item.focus.x), y: round(item.focus.y) } };
}

/**
 * Where a photo's focus is drawn on a thumbnail that shows it `object-fit: cover` in a box of
 * `boxAspect`: percentages of the box, kept inside it when the point lies in the part cut off.
 */
export function markerPosition(focus: FocusPoint, photoAspect: number, boxAspect = THUMBNAIL_ASPECT): { left: number; top: number } {
  const inBox = (v: number): number => Math.min(100, Math.max(0, v * 100));
  if (photoAspect > boxAspect) return { left: inBox((focus.x - 0.5) * (photoAspect / boxAspect) + 0.5), top: inBox(focus.y) };
  return { left: inBox(focus.x), top: inBox((focus.y - 0.5) * (boxAspect / photoAspect) + 0.5) };
}

/** A thumbnail's marker, placed once the thumbnail's own shape is known. */
export function thumbnailMarker(item: PhotoItem, image: HTMLImageElement): HTMLElement | null {
  if (item.focus === null) return null;
  const focus = item.focus;
  const marker = make('span', { class: 'focus-marker small', 'aria-hidden': 'true' });
  const place = (): void => {
    if (image.naturalWidth === 0 || image.naturalHeight === 0) return;
    const { left, top } = markerPosition(focus, image.naturalWidth / image.naturalHeight);
    marker.style.left = `${left}%`;
    marker.style.top = `${top}%`;
  };
  if (image.complete) place();
  else image.addEventListener('load', place, { once: true });
  return marker;
}

/** Whether the page can show the photo to mark its subject: a picture it drew itself (not a HEIC stand-in or a grey box). */
export function canMarkFocus(item: PhotoItem): boolean {
  return item.status !== 'failed' && item.preview.startsWith('data:image/jpeg');
}

let editing: { key: string; n: number; point: FocusPoint | null; objectUrl: string | null; done: (saved: boolean) => void } | null = null;

/** Opens the dialog on the photo; `done` is called once it closes (saved or not), to redraw the list and put the focus back. */
export function openFocusDialog(item: PhotoItem, n: number, done: (saved: boolean) => void): void {
  const image = $<HTMLImageElement>('focus-image');
  // The file itself when this page has it (sharper than the 320-pixel thumbnail), drawn upright by the browser as the thumbnail was.
  const objectUrl = item.file !== null ? URL.createObjectURL(item.file) : null;
  editing = { key: item.key, n, point: item.focus, objectUrl, done };
  image.removeAttribute('style');
  image.src = objectUrl ?? item.preview;
  $('focus-title').textContent = t('focus.title', { n });
  $('focus-clear').hidden = item.focus === null;
  drawPoint();
  $<HTMLDialogElement>('focus-dialog').showModal();
  if (image.complete) sizeImage();
  $('focus-area').focus();
}

/** The photo as large as the dialog allows (60 % of the window's height at most), its shape kept. */
function sizeImage(): void {
  const image = $<HTMLImageElement>('focus-image');
  if (image.naturalWidth === 0) return;
  const room = { width: $('focus-area').parentElement!.clientWidth, height: window.innerHeight * 0.6 };
  const scale = Math.min(room.width / image.naturalWidth, room.height / image.naturalHeight);
  image.style.width = `${Math.floor(image.naturalWidth * scale)}px`;
  image.style.height = `${Math.floor(image.naturalHeight * scale)}px`;
}

/** The marker and what a screen reader says of it. */
function drawPoint(): void {
  const point = editing?.point ?? null;
  const marker = $('focus-marker');
  const area = $('focus-area');
  marker.hidden = point === null;
  area.setAttribute('aria-label', t('focus.area', { n: editing?.n ?? 1 }));
  area.setAttribute('aria-valuenow', String(Math.round((point?.x ?? 0.5) * 100)));
  if (point === null) {
    area.setAttribute('aria-valuetext', t('focus.unset'));
    return;
  }
  marker.style.left = `${point.x * 100}%`;
  marker.style.top = `${point.y * 100}%`;
  area.setAttribute(
    'aria-valuetext',
    t('focus.value', { x: formatAmount(Math.round(point.x * 100), '%'), y: formatAmount(Math.round(point.y * 100), '%') }),
  );
}

function close(saved: boolean): void {
  const dialog = $<HTMLDialogElement>('focus-dialog');
  const ending = editing;
  editing = null;
  if (dialog.open) dialog.close();
  if (ending === null) return;
  if (ending.objectUrl !== null) URL.revokeObjectURL(ending.objectUrl);
  ending.done(saved);
}

function keep(point: FocusPoint | null): void {
  const key = editing?.key;
  if (key === undefined) return;
  const item = state.photos.find((p) => p.key === key);
  if (item !== undefined) item.focus = point;
  close(true);
}

function clamp(v: number): number {
  return Math.min(1, Math.max(0, v));
}

export function wireFocusDialog(): void {
  const area = $('focus-area');
  const image = $<HTMLImageElement>('focus-image');
  image.addEventListener('load', sizeImage);
  // A click or a tap on the photo puts the marker there (the photo is not mirrored on an Arabic page: x runs from its left).
  area.addEventListener('click', (event) => {
    if (editing === null) return;
    const box = image.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    editing.point = { x: clamp((event.clientX - box.left) / box.width), y: clamp((event.clientY - box.top) / box.height) };
    drawPoint();
    area.focus();
  });
  area.addEventListener('keydown', (event) => {
    if (editing === null) return;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const move = moves[event.key];
    if (event.key === 'Enter') {
      event.preventDefault();
      keep(editing.point);
    } else if (move !== undefined) {
      event.preventDefault();
      const step = event.shiftKey ? FINE_STEP : STEP;
      const from = editing.point ?? { x: 0.5, y: 0.5 };
      editing.point = { x: clamp(from.x + move[0] * step), y: clamp(from.y + move[1] * step) };
      drawPoint();
    }
  });
  $('focus-save').addEventListener('click', () => keep(editing?.point ?? null));
  $('focus-clear').addEventListener('click', () => keep(null));
  $('focus-cancel').addEventListener('click', () => close(false));
  // Escape (the dialog's own cancel) leaves the point as it was.
  $('focus-dialog').addEventListener('close', () => close(false));
}
