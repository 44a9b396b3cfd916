import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { QUIET_OPTIONS, type FfmpegCommandSpec } from './ffmpeg/command.js';
import { runFfmpeg, type FfmpegBinaries } from './ffmpeg/runner.js';
import type { Timeline } from './storyboard.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';

/**
 * The video's poster (docs/api.md "The poster"): one JPEG frame of the verified video at its own
 * size, taken where the title card is fully shown — the first frame is black (the fade-in), and the
 * title card is what names the listing. Without a title card (none fits), one second after the fade-in.
 */

/** The time (s) of the poster's frame in `timeline`. */
export function posterTimeS(timeline: Timeline): number {
  for (const shot of timeline.shots) {
    const card = shot.cards.find((c) => c.content.kind === 'title');
    if (card !== undefined) {
      // Halfway between the end of its fade-in and the start of its fade-out: the card at full opacity.
      const middle = (card.from + card.fadeFrames + (card.to - card.fadeFrames)) / 2;
      return Math.min(timeline.frames - 1, shot.start + Math.round(middle)) / timeline.fps;
    }
  }
  return Math.min(timeline.frames - 1, timeline.fadeInFrames + timeline.fps) / timeline.fps;
}

/** The ffmpeg run that writes the frame at `timeS` of `video` as a JPEG (pure). */
export function posterCommand(video: string, timeS: number, output: string): FfmpegCommandSpec {
  return {
    // Seeking on the input decodes from the keyframe before `timeS` and drops frames up to it: exact, and short.
    inputs: [{ file: video, options: ['-ss', timeS.toFixed(3)] }],
    complexFilter: null,
    outputOptions: [...QUIET_OPTIONS, '-map', '0:v:0', '-frames:v', '1', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg'],
    output,
  };
}

/** Writes the poster of `video` to `posterPath` (under a temporary name, then renamed; private like the video). */
export async function writePoster(
  video: string,
  timeS: number,
  posterPath: string,
  options: { binaries: FfmpegBinaries; signal: AbortSignal; redact: string[]; watchdogMs?: number },
): Promise<void> {
  const temp = `${posterPath}.tmp.jpg`;
  // Drawn before the video is published (which creates the video's folder): the poster's may not exist yet.
  await mkdir(dirname(posterPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    await runFfmpeg(posterCommand(video, timeS, temp), { ...options, what: 'draw the poster' });
    await chmod(temp, PRIVATE_FILE_MODE);
    await rename(temp, posterPath);
  } finally {
    await rm(temp, { force: true });
  }
}
