import { $, optionValue, setOptionValue } from './dom.js';
import { state, type FocusPoint, type PhotoItem } from './state.js';
import type { Property } from './types.js';

/*
 * The draft of the new-video screen, kept in localStorage so that a reload or a crashed tab
 * loses nothing (docs/studio.md, "Page state"): the listing text, the analysis shown, the
 * uploaded photos (their asset refs and a small thumbnail: the API does not serve assets back)
 * and the options. Photos still uploading are not kept: they have no ref yet.
 */

const DRAFT_STORE = 'immoreel.studio.draft';
const OPTION_IDS = ['opt-template', 'opt-format', 'opt-language', 'opt-audience', 'opt-music', 'opt-duration'];

interface Draft {
  text: string;
  analysedInput: string;
  property: Property | null;
  /** `focus`: the subject the agent marked (docs/studio.md "The subject of a photo"). */
  photos: { name: string; ref: string; preview: string; focus?: FocusPoint | null }[];
  options: Record<string, string>;
}

export function saveDraft(): void {
  const draft: Draft = {
    text: $<HTMLTextAreaElement>('listing').value,
    analysedInput: state.analysedInput,
    property: state.property,
    photos: state.photos.flatMap((p) =>
      p.status === 'ready' && p.ref !== null ? [{ name: p.name, ref: p.ref, preview: p.preview, focus: p.focus }] : [],
    ),
    options: Object.fromEntries(OPTION_IDS.map((id) => [id, optionValue(id)])),
  };
  try {
    localStorage.setItem(DRAFT_STORE, JSON.stringify(draft));
  } catch {
    // Storage full or disabled: the draft is simply not kept.
  }
}

/** The stored draft back in the form and the state; false when there is none. */
export function restoreDraft(): boolean {
  let draft: Partial<Draft>;
  try {
    draft = JSON.parse(localStorage.getItem(DRAFT_STORE) ?? 'null') as Partial<Draft>;
  } catch {
    return false;
  }
  if (draft === null || typeof draft !== 'object') return false;
  $<HTMLTextAreaElement>('listing').value = typeof draft.text === 'string' ? draft.text : '';
  for (const [id, value] of Object.entries(draft.options ?? {})) {
    if (OPTION_IDS.includes(id) && typeof value === 'string') setOptionValue(id, value);
  }
  state.analysedInput = typeof draft.analysedInput === 'string' ? draft.analysedInput : '';
  state.property = draft.property ?? null;
  state.photos = (draft.photos ?? []).map((p): PhotoItem => ({
    key: crypto.randomUUID(),
    name: p.name,
    file: null,
    preview: p.preview,
    status: 'ready',
    ref: p.ref,
    error: null,
    focus: validFocus(p.focus),
  }));
  return true;
}

/** A stored point, if it is one (a draft is the browser's storage: anything may be there). */
function validFocus(focus: unknown): FocusPoint | null {
  if (focus === null || typeof focus !== 'object') return null;
  const { x, y } = focus as Partial<FocusPoint>;
  const fraction = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;
  return fraction(x) && fraction(y) ? { x, y } : null;
}
