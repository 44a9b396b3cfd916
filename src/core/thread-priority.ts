import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/** The lowest priority a Linux thread can have. */
const NICEST = 19;

/**
 * Worker threads give way to the server's event loop when the cores are busy (docs/security.md
 * "Measured"): on Linux each thread has its own nice value, and the calling thread's is raised
 * (lower priority) by 10 from where it stands, which any process may do — relative, so that a
 * server already started under `nice` keeps the gap. The thread still uses every idle cycle; a health
 * check no longer waits for a core behind it. Elsewhere, or if refused, the thread keeps its priority.
 */
export function yieldToEventLoop(): void {
  if (isMainThread || process.platform !== 'linux') return;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, Math.min(NICEST, getPriority(threadId) + 10));
  } catch {
    // No /proc or not permitted: the work still runs, at the process's priority.
  }
}
