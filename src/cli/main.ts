import { endQuietlyOnClosedPipe, main } from './run.js';

/* The `immoreel` executable (bin/immoreel.js): runs the CLI and sets the exit code (./run.ts). */
endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);
const code = await main(process.argv);
// Let stdout drain before exiting so piped JSON is never cut off.
process.exitCode = code;
