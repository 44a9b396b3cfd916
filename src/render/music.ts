import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, badRequest } from '../core/errors.js';
import { QUIET_OPTIONS, type FfmpegCommandSpec } from './ffmpeg/command.js';
import { runFfmpeg, runFfprobe, type RunOptions } from './ffmpeg/runner.js';
import { AUDIO_BITRATE_KBPS, AUDIO_RATE } from './formats.js';
import { trackByName, trackForMood, type MusicMood, type MusicTrack } from './music-tracks.js';
import { MUSIC_DIR } from './package-files.js';

/**
 * The soundtrack: a bundled bed chosen by the template's mood (or by name), the user's own file
 * (local mode), or silence. Encoded once, as the output contract's AAC (160 kbps, 48 kHz, stereo), of
 * exactly the video's length, faded in and out, loudness-normalised; every output of the render
 * copies it (docs/rendering.md "Soundtrack").
 */

/** The contract's audio encoding. */
const AAC_OPTIONS: readonly string[] = ['-c:a', 'aac', '-b:a', `${AUDIO_BITRATE_KBPS}k`, '-ar', String(AUDIO_RATE), '-ac', '2'];

export type MusicChoice = { kind: 'none' } | { kind: 'track'; track: MusicTrack; file: string } | { kind: 'file'; file: string };

/** Integrated loudness of every soundtrack (EBU R128 LUFS; streaming platforms play at −14 to −16). */
export const TARGET_LUFS = -16;

export function resolveMusic(music: string, mood: MusicMood, musicDir: string = MUSIC_DIR): MusicChoice {
  if (music === 'none') return { kind: 'none' };
  const track = music === 'auto' ? trackForMood(mood) : trackByName(music);
  if (track !== undefined) {
    const file = join(musicDir, track.file);
    if (!existsSync(file)) {
      throw new AppError(
        'DEPENDENCY_MISSING',
        `The bundled music ${track.file} is missing from ${musicDir}: reinstall immoreel, or render with --music none.`,
      );
    }
    return { kind: 'track', track, file };
  }
  // validateRenderRequest only lets a path through in local mode.
  return { kind: 'file', file: music };
}

/**
 * The ffmpeg run that turns a music source into the finished soundtrack (pure).
 * The source is decoded once and repeated with `aloop` on its samples: re-reading the file with
 * -stream_loop would replay the AAC/MP3 encoder delay at every turn (measured: a 10 ms gap).
 */
export function soundtrackCommand(
  choice: Exclude<MusicChoice, { kind: 'none' }>,
  durationS: number,
  sourceDurationS: number,
  output: string,
): FfmpegCommandSpec {
  const samples = Math.round(durationS * AUDIO_RATE);
  const loopSamples = Math.max(1, Math.round(sourceDurationS * AUDIO_RATE));
  const fadeIn = Math.min(1.2, durationS / 8);
  const fadeOut = Math.min(2.5, durationS / 5);
  const filters = [
    `aresample=${AUDIO_RATE}`,
    'aformat=channel_layouts=stereo',
    `aloop=loop=-1:size=${loopSamples}`,
    `atrim=end_sample=${samples}`,
    // Bundled beds are normalised when made (scripts/make-music.ts); a user's file is levelled here.
    // loudnorm resamples to 192 kHz internally: resample back (docs/rendering.md).
    ...(choice.kind === 'file' ? [`loudnorm=I=${TARGET_LUFS}:TP=-1.5:LRA=11`, `aresample=${AUDIO_RATE}`] : []),
    `apad=whole_len=${samples}`,
    `atrim=end_sample=${samples}`,
    `afade=t=in:st=0:d=${fadeIn.toFixed(3)}`,
    `afade=t=out:st=${(durationS - fadeOut).toFixed(3)}:d=${fadeOut.toFixed(3)}`,
  ];
  return {
    inputs: [{ file: choice.file, options: [] }],
    complexFilter: null,
    outputOptions: [...QUIET_OPTIONS, '-map', '0:a:0', '-vn', '-sn', '-dn', '-af', filters.join(','), ...AAC_OPTIONS, '-f', 'mp4'],
    output,
  };
}

/** A silent track of exactly the video's duration, for a video without music. */
export function silenceCommand(durationS: number, output: string): FfmpegCommandSpec {
  return {
    inputs: [{ file: `anullsrc=r=${AUDIO_RATE}:cl=stereo`, options: ['-f', 'lavfi'] }],
    complexFilter: null,
    outputOptions: [...QUIET_OPTIONS, '-af', `atrim=end_sample=${Math.round(durationS * AUDIO_RATE)}`, ...AAC_OPTIONS, '-f', 'mp4'],
    output,
  };
}

/** Writes the soundtrack to `output` (an M4A), silence included. */
export async function prepareSoundtrack(choice: MusicChoice, durationS: number, output: string, options: RunOptions): Promise<void> {
  if (choice.kind === 'none') {
    await runFfmpeg(silenceCommand(durationS, output), { ...options, what: 'prepare the silent soundtrack' });
    return;
  }
  const probedDuration = choice.kind === 'track' ? choice.track.durationS : await probeMusicDuration(choice.file, options);
  await runFfmpeg(soundtrackCommand(choice, durationS, probedDuration, output), {
    ...options,
    expectedDurationS: durationS,
    what: 'prepare the soundtrack',
  });
}

/** The length of a user's music file, or BAD_REQUEST when it is not a usable audio file. */
async function probeMusicDuration(file: string, options: RunOptions): Promise<number> {
  let probed: string;
  try {
    probed = await runFfprobe(
      ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_type,duration:format=duration', '-of', 'json', file],
      { binaries: options.binaries, signal: options.signal },
    );
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw badRequest(`The music file ${file} could not be read as audio. Give an MP3, M4A, WAV, OGG or FLAC file, or --music none.`, {
      reason: 'invalid_music',
      details: [{ field: 'music', message: 'not a readable audio file' }],
    });
  }
  const info = JSON.parse(probed) as { streams?: { codec_type?: string; duration?: string }[]; format?: { duration?: string } };
  const stream = info.streams?.find((s) => s.codec_type === 'audio');
  if (stream === undefined) {
    throw badRequest(`The music file ${file} has no audio track.`, {
      reason: 'invalid_music',
      details: [{ field: 'music', message: 'no audio track' }],
    });
  }
  const sourceDuration = Number(stream.duration ?? info.format?.duration);
  if (!Number.isFinite(sourceDuration) || sourceDuration < 0.5) {
    throw badRequest(`The music file ${file} is shorter than half a second.`, {
      reason: 'invalid_music',
      details: [{ field: 'music', message: 'too short' }],
    });
  }
  return sourceDuration;
}
