/**
 * A process that runs one long ffmpeg through the runner (a test pattern at real-time speed for 10
 * minutes) and prints `RUNNING` once ffmpeg reports progress: the test kills this process with
 * SIGKILL and checks that its ffmpeg goes too (docs/rendering.md "ffmpeg dies with its worker").
 */
import { QUIET_OPTIONS } from '../../src/render/ffmpeg/command.js';
import { resolveBinaries, runFfmpeg } from '../../src/render/ffmpeg/runner.js';
import { TEST_FFMPEG } from './config.js';

let told = false;
await runFfmpeg(
  {
    inputs: [{ file: 'testsrc=size=160x120:rate=5', options: ['-re', '-f', 'lavfi'] }],
    complexFilter: null,
    outputOptions: [...QUIET_OPTIONS, '-t', '600', '-f', 'null'],
    output: '/dev/null',
  },
  {
    binaries: resolveBinaries(TEST_FFMPEG),
    expectedDurationS: 600,
    onProgress: () => {
      if (told) return;
      told = true;
      process.stdout.write('RUNNING\n');
    },
  },
);
