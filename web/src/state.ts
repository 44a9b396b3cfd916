import type { Session } from './api.js';
import type { JobRecord, Property } from './types.js';

/*
 * The page's state, in one place (docs/studio.md, "Files"): the views read and change it, and
 * main.ts wires the few calls that go from one view back up to the page (routing, sign-out on a
 * 401) through `hooks`, so no view imports main.ts.
 */

export type View = 'new' | 'history' | 'batch';

export const ACTIVE = new Set(['queued', 'running']);

/** A photo's subject, as fractions of the upright photo from its top left (docs/studio.md "The subject of a photo"). */
export interface FocusPoint {
  x: number;
  y: number;
}

export interface PhotoItem {
  key: string;
  name: string;
  file: File | null;
  preview: string;
  status: 'uploading' | 'ready' | 'failed';
  ref: string | null;
  error: unknown;
  /** Marked by the agent; null: the renderer finds the subject itself. */
  focus: FocusPoint | null;
}

export interface BatchRowState {
  id: string;
  values: Record<string, string>;
  jobId: string | null;
  state: string;
  progress: number;
  error: { code: string; message: string } | null;
}

export interface PageState {
  session: Session | null;
  view: View;
  /** The analysis shown, and the text or link it was made from. */
  property: Property | null;
  analysedInput: string;
  photos: PhotoItem[];
  /** Files being decoded before they join `photos`. */
  checking: number;
  /** The uploaded logo's asset ref, once sent for this page's branding. */
  logoRef: string | null;
  shownJob: JobRecord | null;
  history: JobRecord[];
  historyCursor: string | null;
  batch: { columns: string[]; rows: BatchRowState[] } | null;
  /** The agent's answer about a doubtful price (docs/studio.md "Doubtful facts"). */
  priceCheck: { confirmed: boolean; corrected: string };
  /** The refs of the photos the storyboard would leave out at the duration chosen (docs/studio.md "What the page does"). */
  leftOut: Set<string>;
}

export const state: PageState = {
  session: null,
  view: 'new',
  property: null,
  analysedInput: '',
  photos: [],
  checking: 0,
  logoRef: null,
  shownJob: null,
  history: [],
  historyCursor: null,
  batch: null,
  priceCheck: { confirmed: false, corrected: '' },
  leftOut: new Set(),
};

export const hooks = {
  /** Shows the screen the address and the session call for. */
  route: (): void => undefined,
  /** Something in the draft changed: main.ts stores it (and asks again which photos the video will show). */
  changed: (): void => undefined,
};
