import { shippedFontsConfig } from '../render/fonts.js';
import { endQuietlyOnClosedPipe, main } from './run.js';

/*
 * The `immoreel` executable (bin/immoreel.js): runs the CLI and sets the exit code (./run.ts).
 * The one place that reads and writes the process environment (docs/configuration.md): it hands
 * `process.env` to main, which reads it once into the configuration.
 */
endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);
showOwnNoticesPlainly();
// The AWS SDK warns on every run under Node 20 that its releases after January 2027 need Node 22:
// `immoreel doctor` says it once instead (docs/scaling.md "Configuration of S3"), so that --quiet
// keeps stderr for errors (a nightly cron job would mail that warning every night).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Text on videos is drawn by sharp's fontconfig, which reads FONTCONFIG_FILE from this process's
// environment once, at the first text: pointed at the shipped fonts before any command runs
// (docs/configuration.md "Fonts").
process.env.FONTCONFIG_FILE = shippedFontsConfig();
const code = await main(process.argv, process.env);
// Let stdout drain before exiting so piped JSON is never cut off.
process.exitCode = code;

/**
 * immoreel's own process notices (code IMMOREEL_*, e.g. a data directory made private) as one
 * plain line, like the CLI's other messages, instead of Node's "(node:PID) … Use `node
 * --trace-warnings`" format. Other warnings keep Node's own handling.
 */
function showOwnNoticesPlainly(): void {
  const nodeListeners = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    if (warning.code?.startsWith('IMMOREEL_') === true) process.stderr.write(`notice: ${warning.message}\n`);
    else for (const listener of nodeListeners) listener(warning);
  });
}
