import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENCODER, segmentJoin, segmentOutputOptions } from '../../../src/render/ffmpeg/plan.js';
import { resolveBinaries, runFfmpeg } from '../../../src/render/ffmpeg/runner.js';
import { FPS } from '../../../src/render/formats.js';
import { verifyVideo } from '../../../src/render/verify.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { ffprobe } from '../../helpers/render-fixtures.js';

/**
 * The join of segmented renders (docs/rendering.md "Segments") at several lengths, on tiny frames:
 * segments of uneven frame counts (as the plan's cuts make them) encoded with the plan's own
 * segment options, joined by the plan's own join command, then held to the output contract by the
 * verifier. A join that drifts (a 30 s render 30.0003 s long, average 5529600/92161) fails here in
 * a second or two, without a real render.
 */
const binaries = resolveBinaries(TEST_FFMPEG);
const dir = mkdtempSync(join(tmpdir(), 'immoreel-join-'));

/** An ffmpeg run of a lavfi test source into `file`. */
function fromLavfi(source: string, options: string[], file: string): void {
  execFileSync(binaries.ffmpeg, ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', source, ...options, '-y', file]);
}

function encodeSegment(file: string, frames: number): void {
  fromLavfi(`testsrc=size=64x36:rate=${FPS}`, ['-frames:v', String(frames), ...segmentOutputOptions(DEFAULT_ENCODER, 1)], file);
}

function encodeSoundtrack(file: string, seconds: number): void {
  fromLavfi(
    'sine=frequency=440:sample_rate=48000',
    ['-af', 'aformat=channel_layouts=stereo', '-t', String(seconds), '-c:a', 'aac', '-b:a', '160k'],
    file,
  );
}

describe('the join of segments (real ffmpeg, tiny frames)', { timeout: 120_000 }, () => {
  // Frame counts of each segment: uneven, none a whole number of milliseconds (437 frames = 7.28333 s).
  const cases: { seconds: number; segments: number[] }[] = [
    { seconds: 20, segments: [563, 637] },
    { seconds: 30, segments: [437, 611, 752] },
    { seconds: 90, segments: [1349, 1351, 1283, 1417] },
  ];
  for (const { seconds, segments } of cases) {
    it(`joins ${segments.length} segments into exactly ${seconds} s at 60/1, ${seconds * FPS} frames, audio as long`, async () => {
      expect(segments.reduce((a, b) => a + b, 0)).toBe(seconds * FPS);
      const output = join(dir, `joined-${seconds}.mp4`);
      const files = segments.map((frames, k) => {
        const file = `${output}.part${k + 1}.mp4`;
        encodeSegment(file, frames);
        return file;
      });
      const soundtrack = join(dir, `music-${seconds}.m4a`);
      encodeSoundtrack(soundtrack, seconds);
      const { listFile, listText, mux } = segmentJoin(files, soundtrack, output, seconds);
      writeFileSync(listFile, listText);
      await runFfmpeg(mux, { binaries, what: 'join the segments' });

      const result = await verifyVideo(output, { width: 64, height: 36, durationS: seconds, checkAudioBitrate: false }, binaries);
      expect(result.duration_s).toBe(seconds);
      const streams = ffprobe(output).streams;
      const video = streams.find((s) => s.codec_type === 'video');
      const audio = streams.find((s) => s.codec_type === 'audio');
      expect(video).toMatchObject({ r_frame_rate: '60/1', avg_frame_rate: '60/1', nb_frames: String(seconds * FPS) });
      expect(Number(video?.duration)).toBe(seconds);
      expect(Number(audio?.duration)).toBeCloseTo(seconds, 3);
    });
  }
});
