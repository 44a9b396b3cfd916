import { isAppError } from './errors.js';

/**
 * Faults of the machine that renders, not of the job it renders (docs/jobs.md "Worker faults"):
 * its scratch disk is full, ffmpeg or ffprobe is missing, or a decoder process crashed. A job that
 * meets one is handed to another worker; it is neither failed nor charged again, and the worker
 * stops claiming for a while. Pure: the error and its causes are read, nothing is touched.
 */
export type WorkerFaultKind = 'disk_full' | 'binary_missing' | 'decoder_crash';

const NO_SPACE = /\bENOSPC\b|no space left on device|disk quota exceeded|\bEDQUOT\b/i;
/** A process of ours killed by the kernel for a fault of its own (not our SIGKILL of a cancel). */
const CRASH = /killed with signal (SIGSEGV|SIGBUS|SIGILL|SIGFPE|SIGABRT)\b|\b(SIGSEGV|SIGBUS)\b/;

function* chain(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 6; depth += 1) {
    yield current;
    current = current instanceof Error ? current.cause : undefined;
  }
}

/** The worker fault an error shows, or null when it is the job's own (or unknown). */
export function workerFaultOf(error: unknown): WorkerFaultKind | null {
  for (const link of chain(error)) {
    if (Array.isArray((link as { errors?: unknown }).errors)) {
      for (const inner of (link as { errors: unknown[] }).errors) {
        const found = workerFaultOf(inner);
        if (found !== null) return found;
      }
    }
    const code = (link as { code?: unknown }).code;
    const message = link instanceof Error ? link.message : typeof link === 'string' ? link : '';
    if (code === 'ENOSPC' || code === 'EDQUOT' || NO_SPACE.test(message)) return 'disk_full';
    if (isAppError(link) && link.code === 'DEPENDENCY_MISSING') return 'binary_missing';
    if (CRASH.test(message)) return 'decoder_crash';
  }
  return null;
}

/** What the operator's log and a worker's `/ready` say of a fault (never shown to a client). */
export function describeWorkerFault(kind: WorkerFaultKind): string {
  switch (kind) {
    case 'disk_full':
      return 'its scratch disk is full';
    case 'binary_missing':
      return 'ffmpeg or ffprobe cannot be run';
    case 'decoder_crash':
      return 'a decoder process crashed';
  }
}
