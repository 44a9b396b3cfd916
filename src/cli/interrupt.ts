/*
 * Ctrl-C in a foreground command (docs/cli.md, "Ctrl-C"): the first SIGINT (or SIGTERM) asks the
 * command to stop cleanly — cancel its job, stop ffmpeg, remove temporary files — and the process
 * then exits 130; a second one exits 130 at once. `worker` and `serve` keep their own handling
 * (drain, then stop).
 */

export const EXIT_INTERRUPTED = 130;

let interrupted = false;

/** True once Ctrl-C was pressed: main() then exits 130 whatever the command returned. */
export function wasInterrupted(): boolean {
  return interrupted;
}

/**
 * Runs `work` with an AbortSignal that fires on the first Ctrl-C; `onFirst` says what is being
 * stopped. The handlers are removed when `work` ends.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>, onFirst: () => void): Promise<T> {
  const controller = new AbortController();
  const handler = (): void => {
    if (interrupted) process.exit(EXIT_INTERRUPTED);
    interrupted = true;
    onFirst();
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}
