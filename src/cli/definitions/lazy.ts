/**
 * A command's action that loads its module only when the command runs (docs/cli.md, "Start-up"):
 * `.action(lazy(async () => (await import('../commands/jobs.js')).listJobs))`.
 */
export function lazy<A extends unknown[]>(load: () => Promise<(...args: A) => unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const run = await load();
    await run(...args);
  };
}
