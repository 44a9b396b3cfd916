import type { JobState } from './types.js';

/**
 * The job state machine of docs/jobs.md, enforced here and only here: the store calls
 * `assertTransition` inside the transaction that writes a new state.
 *
 *   queued → running → succeeded | failed | canceled
 *   queued → canceled
 *   running → queued   (only to re-queue a render whose worker died or shut down)
 *
 * Terminal states never change.
 */
const ALLOWED: Record<JobState, readonly JobState[]> = {
  queued: ['running', 'canceled'],
  running: ['succeeded', 'failed', 'canceled', 'queued'],
  succeeded: [],
  failed: [],
  canceled: [],
};

export const TERMINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'canceled'];

export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function canTransition(from: JobState, to: JobState): boolean {
  return ALLOWED[from].includes(to);
}

/** A bug, never a user error: some code tried to move a job along an edge that does not exist. */
export class IllegalTransitionError extends Error {
  constructor(
    readonly jobId: string,
    readonly from: JobState,
    readonly to: JobState,
  ) {
    super(`Illegal job state transition ${from} → ${to} for ${jobId}.`);
    this.name = 'IllegalTransitionError';
  }
}

export function assertTransition(jobId: string, from: JobState, to: JobState): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(jobId, from, to);
}
