import { open, stat } from 'node:fs/promises';
import { AppError } from '../core/errors.js';
import { sha256File } from '../core/files.js';
import type { VideoResult } from '../core/types.js';
import { runFfprobe, type FfmpegBinaries, type ProbeData } from './ffmpeg/runner.js';
import { AUDIO_BITRATE_KBPS, AUDIO_RATE, FPS, MAX_KEYFRAME_INTERVAL_S } from './formats.js';

/**
 * Verification (docs/rendering.md): every render is checked with ffprobe against the output contract
 * before it is published; a video that fails a check fails its job, with the property named.
 */

export interface Expectations {
  width: number;
  height: number;
  durationS: number;
  /** Silence encodes to ~2 kbps whatever the target (docs/rendering.md): checked only with music. */
  checkAudioBitrate: boolean;
}

export interface PacketInfo {
  pts: number;
  key: boolean;
}

/** Top-level MP4 box types, in file order (ftyp, moov, mdat…). */
export async function topLevelBoxes(file: string): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const boxes: string[] = [];
    const header = Buffer.alloc(16);
    let offset = 0;
    while (offset + 8 <= size && boxes.length < 64) {
      await handle.read(header, 0, 16, offset);
      let boxSize = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (boxSize === 1) boxSize = Number(header.readBigUInt64BE(8));
      else if (boxSize === 0) boxSize = size - offset;
      if (boxSize < 8) break;
      boxes.push(type);
      offset += boxSize;
    }
    return boxes;
  } finally {
    await handle.close();
  }
}

function ratio(value: string | undefined): number | null {
  if (value === undefined) return null;
  const [a, b] = value.split('/').map(Number);
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}

/** A stream's duration in seconds as ffprobe reported it, or null when it reported none. */
function streamDuration(stream: ProbeData['streams'][number] | undefined): number | null {
  const value = Number(stream?.duration);
  return stream?.duration === undefined || !Number.isFinite(value) ? null : value;
}

/**
 * The video stream lasts exactly its frames (within 10 µs: ffprobe prints microseconds) and
 * the audio as long as the video (within one frame): a join that shifted timestamps shows here first.
 */
function streamLengthFailures(
  video: ProbeData['streams'][number] | undefined,
  audio: ProbeData['streams'][number] | undefined,
  durationS: number,
): string[] {
  const failures: string[] = [];
  const videoS = streamDuration(video);
  const audioS = streamDuration(audio);
  if (videoS !== null && Math.abs(videoS - durationS) > 1e-5) {
    failures.push(`the video stream lasts ${videoS.toFixed(6)} s, expected ${durationS.toFixed(6)} s`);
  }
  if (videoS !== null && audioS !== null && Math.abs(audioS - videoS) > 1 / FPS) {
    failures.push(`the audio lasts ${audioS.toFixed(6)} s and the video ${videoS.toFixed(6)} s: they differ by more than a frame`);
  }
  return failures;
}

/** Pure checks of what ffprobe reported; returns one message per failed property. */
export function checkContract(data: ProbeData, packets: PacketInfo[], boxes: string[], expect: Expectations): string[] {
  const failures: string[] = [];
  const video = data.streams.find((s) => s.codec_type === 'video');
  const audio = data.streams.find((s) => s.codec_type === 'audio');
  if (video === undefined) failures.push('no video stream');
  else {
    if (video.codec_name !== 'h264') failures.push(`video codec is ${video.codec_name}, expected h264`);
    if (String(video.profile) !== 'High') failures.push(`H.264 profile is ${video.profile}, expected High`);
    if (video.pix_fmt !== 'yuv420p') failures.push(`pixel format is ${video.pix_fmt}, expected yuv420p`);
    if (video.width !== expect.width || video.height !== expect.height) {
      failures.push(`frame size is ${video.width}x${video.height}, expected ${expect.width}x${expect.height}`);
    }
    if (video.sample_aspect_ratio !== '1:1')
      failures.push(`sample aspect ratio is ${video.sample_aspect_ratio ?? 'unset'}, expected 1:1 (square pixels)`);
    // Exactly 60/1 both ways: an average of 5529600/92161 (59.9993) is a stream whose timestamps
    // drifted off the grid somewhere, and players and platforms read it as variable frame rate.
    const rate = ratio(video.r_frame_rate);
    const average = ratio(video.avg_frame_rate);
    if (rate !== FPS || average !== FPS) {
      failures.push(`frame rate is ${video.r_frame_rate} (average ${video.avg_frame_rate}), expected a constant ${FPS}/1`);
    }
  }
  failures.push(...streamLengthFailures(video, audio, expect.durationS));
  if (packets.length > 0) {
    const sorted = [...packets].sort((a, b) => a.pts - b.pts);
    const step = 1 / FPS;
    const uneven = sorted.slice(1).filter((p, i) => Math.abs(p.pts - (sorted[i] as PacketInfo).pts - step) > step * 0.25).length;
    if (uneven > 0) failures.push(`frame timing is not constant: ${uneven} frame${uneven === 1 ? '' : 's'} off the ${FPS} fps grid`);
    const expectedFrames = Math.round(expect.durationS * FPS);
    if (sorted.length !== expectedFrames) failures.push(`the video has ${sorted.length} frames, expected ${expectedFrames}`);
    const keys = sorted.filter((p) => p.key).map((p) => p.pts);
    if (keys[0] === undefined || Math.abs(keys[0] - (sorted[0] as PacketInfo).pts) > 1e-6)
      failures.push('the first frame is not a keyframe');
    let widest = 0;
    const ends = [...keys, (sorted[sorted.length - 1] as PacketInfo).pts + step];
    for (let i = 1; i < ends.length; i += 1) widest = Math.max(widest, (ends[i] as number) - (ends[i - 1] as number));
    if (widest > MAX_KEYFRAME_INTERVAL_S + 1e-6)
      failures.push(`keyframes are up to ${widest.toFixed(2)} s apart, expected at most ${MAX_KEYFRAME_INTERVAL_S} s`);
  } else failures.push('no video frames');
  if (audio === undefined) failures.push('no audio track');
  else {
    if (audio.codec_name !== 'aac') failures.push(`audio codec is ${audio.codec_name}, expected aac`);
    if (String(audio.profile) !== 'LC') failures.push(`AAC profile is ${audio.profile}, expected LC`);
    if (Number(audio.sample_rate) !== AUDIO_RATE) failures.push(`audio sample rate is ${audio.sample_rate} Hz, expected ${AUDIO_RATE}`);
    if (audio.channels !== 2) failures.push(`audio has ${audio.channels} channel(s), expected 2 (stereo)`);
    if (expect.checkAudioBitrate) {
      const kbps = Number(audio.bit_rate) / 1000;
      if (!Number.isFinite(kbps) || Math.abs(kbps - AUDIO_BITRATE_KBPS) > AUDIO_BITRATE_KBPS * 0.05) {
        failures.push(
          `audio bitrate is ${Number.isFinite(kbps) ? Math.round(kbps) : 'unknown'} kbps, expected ${AUDIO_BITRATE_KBPS} kbps ±5 %`,
        );
      }
    }
  }
  const moov = boxes.indexOf('moov');
  const mdat = boxes.indexOf('mdat');
  if (moov === -1 || mdat === -1 || moov > mdat) failures.push('the moov box is not before mdat (not faststart)');
  const duration = Number(data.format.duration);
  if (!Number.isFinite(duration) || Math.abs(duration - expect.durationS) > 0.1) {
    failures.push(
      `duration is ${Number.isFinite(duration) ? duration.toFixed(3) : 'unknown'} s, expected ${expect.durationS.toFixed(3)} s`,
    );
  }
  return failures;
}

/**
 * Streams, format and every video packet of `file`, from one ffprobe run: each run costs a process
 * start (~0.14 s of CPU for ffmpeg 5.1's 200 shared libraries), so streams and packets are not read
 * by two (docs/rendering.md "Where the time goes").
 */
async function probeWithPackets(
  file: string,
  binaries: FfmpegBinaries,
  signal?: AbortSignal,
): Promise<{ data: ProbeData; packets: PacketInfo[] }> {
  let json: string;
  try {
    json = await runFfprobe(
      ['-v', 'error', '-show_streams', '-show_format', '-show_entries', 'packet=stream_index,pts_time,flags', '-of', 'json', file],
      { binaries, signal },
    );
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new AppError('RENDER_FAILED', `ffprobe could not read the video: ${(error as Error).message}`, { reason: 'ffprobe_failed' });
  }
  const parsed = JSON.parse(json) as {
    streams?: ProbeData['streams'];
    format?: ProbeData['format'];
    packets?: { stream_index?: number; pts_time?: string; flags?: string }[];
  };
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video');
  const packets = (parsed.packets ?? [])
    .filter((p) => video !== undefined && p.stream_index === video.index && p.pts_time !== undefined && p.pts_time !== 'N/A')
    .map((p) => ({ pts: Number(p.pts_time), key: (p.flags ?? '').includes('K') }));
  return { data: { streams, format: parsed.format ?? {}, chapters: [] }, packets };
}

/** Checks `file` against the contract; returns the job's `result` (without video_url). */
export async function verifyVideo(
  file: string,
  expect: Expectations,
  binaries: FfmpegBinaries,
  signal?: AbortSignal,
): Promise<Omit<VideoResult, 'video_url'>> {
  const [{ data, packets }, boxes, info] = await Promise.all([probeWithPackets(file, binaries, signal), topLevelBoxes(file), stat(file)]);
  const failures = checkContract(data, packets, boxes, expect);
  if (failures.length > 0) {
    throw new AppError('RENDER_FAILED', `The rendered video failed verification: ${failures.join('; ')}.`, {
      reason: 'verification_failed',
      details: failures.map((message) => ({ field: 'video', message })),
    });
  }
  const audio = data.streams.find((s) => s.codec_type === 'audio');
  return {
    width: expect.width,
    height: expect.height,
    fps: FPS,
    duration_s: Math.round(Number(data.format.duration) * 1000) / 1000,
    size_bytes: info.size,
    video_codec: 'h264',
    audio_codec: 'aac',
    audio_bitrate_kbps: Math.round(Number(audio?.bit_rate ?? 0) / 1000),
    sha256: await sha256File(file),
  };
}
