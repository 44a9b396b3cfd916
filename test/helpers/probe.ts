import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Probe {
  videoCodec: string;
  profile: string;
  width: number;
  height: number;
  fps: number;
  pixFmt: string;
  audioCodec: string;
  sampleRate: number;
  channels: number;
  durationS: number;
}

/** ffprobe of a finished video, independent of the engine's own verification. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run(process.env.FFPROBE_PATH ?? 'ffprobe', [
    '-v',
    'error',
    '-show_streams',
    '-show_format',
    '-of',
    'json',
    file,
  ]);
  const data = JSON.parse(stdout) as {
    streams: {
      codec_type: string;
      codec_name: string;
      profile?: string;
      width?: number;
      height?: number;
      avg_frame_rate?: string;
      pix_fmt?: string;
      sample_rate?: string;
      channels?: number;
    }[];
    format: { duration: string };
  };
  const video = data.streams.find((s) => s.codec_type === 'video')!;
  const audio = data.streams.find((s) => s.codec_type === 'audio');
  const [num, den] = (video.avg_frame_rate ?? '0/1').split('/').map(Number) as [number, number];
  return {
    videoCodec: video.codec_name,
    profile: video.profile ?? '',
    width: video.width ?? 0,
    height: video.height ?? 0,
    fps: num / den,
    pixFmt: video.pix_fmt ?? '',
    audioCodec: audio?.codec_name ?? '',
    sampleRate: Number(audio?.sample_rate ?? 0),
    channels: audio?.channels ?? 0,
    durationS: Number(data.format.duration),
  };
}

/** Asserts the output contract of docs/rendering.md that a user would notice. */
export function expectPlayable720p60(p: Probe, format: 'landscape' | 'portrait' | 'square' = 'landscape'): string[] {
  const size = { landscape: [1280, 720], portrait: [720, 1280], square: [720, 720] }[format];
  const problems: string[] = [];
  if (p.videoCodec !== 'h264') problems.push(`video codec ${p.videoCodec}`);
  if (p.width !== size[0] || p.height !== size[1]) problems.push(`size ${p.width}x${p.height}`);
  if (Math.abs(p.fps - 60) > 0.01) problems.push(`fps ${p.fps}`);
  if (p.pixFmt !== 'yuv420p') problems.push(`pix_fmt ${p.pixFmt}`);
  if (p.audioCodec !== 'aac') problems.push(`audio codec ${p.audioCodec}`);
  if (!(p.durationS > 1)) problems.push(`duration ${p.durationS}`);
  return problems;
}

/** ffmpeg processes that are children of `pid` (renders left running would be a leak). */
export async function ffmpegChildren(pid: number = process.pid): Promise<number> {
  const { stdout } = await run('ps', ['-o', 'pid=,ppid=,comm=', '-e']);
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, ppid, comm]) => Number(ppid) === pid && comm === 'ffmpeg').length;
}
