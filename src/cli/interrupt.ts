/*
 * Ctrl-C in a foreground command (docs/cli.md, "Ctrl-C"): the first SIGINT (or SIGTERM) asks the
 * command to stop cleanly — cancel its job, stop ffmpeg, remove temporary files — and the process
 * then exits 128 + the signal's number, as a shell reports it: 130 after SIGINT, 143 after SIGTERM
 * (a supervisor or `timeout` stopping a cron batch); a second one exits so at once. `worker` and
 * `serve` keep their own handling (drain, then stop).
 */

const EXIT_INTERRUPTED = 130;
const EXIT_TERMINATED = 143;

let interruptedBy: NodeJS.Signals | null = null;

/** True once Ctrl-C (or SIGTERM) came: main() then exits 130 (143) whatever the command returned. */
export function wasInterrupted(): boolean {
  return interruptedBy !== null;
}

/** The signal that interrupted the command, or null. */
export function interruptSignal(): NodeJS.Signals | null {
  return interruptedBy;
}

/** The exit code of an interrupted command: 128 + the signal's number. */
export function interruptedExitCode(): number {
  return interruptedBy === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED;
}

/**
 * Runs `work` with an AbortSignal that fires on the first Ctrl-C; `onFirst` says what is being
 * stopped. The handlers are removed when `work` ends.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>, onFirst: () => void): Promise<T> {
  const controller = new AbortController();
  const handler = (signal: NodeJS.Signals): void => {
    if (interruptedBy !== null) process.exit(interruptedExitCode());
    interruptedBy = signal;
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
