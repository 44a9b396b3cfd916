import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

function probe(file: string): { streams: Record<string, unknown>[]; format: Record<string, unknown> } {
  return JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { encoding: 'utf8' }),
  ) as {
    streams: Record<string, unknown>[];
    format: Record<string, unknown>;
  };
}

describe('immoreel render (CLI, local mode)', { timeout: 180_000 }, () => {
  it('renders the bundled demo offline into a verified MP4 and prints the job record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-e2e-render-'));
    const out = join(dir, 'demo.mp4');
    const result = await runCli(
      ['--json', '--data-dir', join(dir, 'data'), 'render', '--demo', '--duration', '10', '--out', out, '--poster'],
      {
        timeoutMs: 170_000,
      },
    );
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as {
      ok: boolean;
      file: string;
      poster: string;
      job: {
        state: string;
        result: Record<string, unknown>;
        listing: { price_mad: number };
        photos_left_out: { index: number; reason: string }[];
      };
    };
    // 10 s leave no room for every one of the demo's eight photos: said, photo by photo, and nothing else.
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(
      lines.every((line) => /^warning: .* \[PHOTO_LEFT_OUT\]$/.test(line)),
      result.stderr,
    ).toBe(true);
    expect(printed.job.photos_left_out.length).toBe(lines.length);
    expect(printed.job.photos_left_out.every((p) => p.reason === 'duration')).toBe(true);
    expect(printed.ok).toBe(true);
    expect(printed.file).toBe(out);
    expect(printed.job.state).toBe('succeeded');
    expect(printed.job.listing.price_mad).toBe(1_850_000);
    expect(printed.job.result).toMatchObject({
      width: 1280,
      height: 720,
      fps: 60,
      duration_s: 10,
      video_codec: 'h264',
      audio_codec: 'aac',
    });
    expect(existsSync(out)).toBe(true);
    const { streams, format } = probe(out);
    const video = streams.find((s) => s.codec_type === 'video');
    const audio = streams.find((s) => s.codec_type === 'audio');
    expect(video).toMatchObject({
      codec_name: 'h264',
      profile: 'High',
      pix_fmt: 'yuv420p',
      width: 1280,
      height: 720,
      r_frame_rate: '60/1',
      sample_aspect_ratio: '1:1',
    });
    expect(audio).toMatchObject({ codec_name: 'aac', profile: 'LC', sample_rate: '48000', channels: 2 });
    expect(Math.abs(Number(audio?.bit_rate) - 160_000)).toBeLessThan(8_000);
    expect(Number(format.duration)).toBeCloseTo(10, 1);
    // --poster: the title card's frame beside the video, at its size.
    expect(printed.poster).toBe(join(dir, 'demo-poster.jpg'));
    expect(probe(printed.poster).streams[0]).toMatchObject({ codec_name: 'mjpeg', width: 1280, height: 720 });
  });

  it('refuses bad render settings before queueing, naming each flag typed (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-e2e-render-'));
    const result = await runCli([
      '--data-dir',
      join(dir, 'data'),
      'render',
      '--demo',
      '--duration',
      '5',
      '--template',
      'fancy',
      '--color',
      'red',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--duration must be a number of seconds from 10 to 90/);
    expect(result.stderr).toMatch(/template must be one of classic, luxury, social/);
    expect(result.stderr).toMatch(/--color must be a colour/);
    expect(result.stderr).not.toMatch(/branding\.primary_color|duration_s/);
  });

  it('says how to install ffmpeg when it is missing (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-e2e-render-'));
    const result = await runCli(['--data-dir', join(dir, 'data'), 'render', '--demo', '--out', join(dir, 'x.mp4')], {
      env: { FFMPEG_PATH: '/nonexistent' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FFMPEG_PATH is set to \/nonexistent/);
    expect(result.stderr).toMatch(/apt-get install ffmpeg/);
    expect(existsSync(join(dir, 'x.mp4'))).toBe(false);
  });
});

describe('immoreel templates and doctor', { timeout: 120_000 }, () => {
  it('lists and shows the templates', async () => {
    const list = await runCli(['--json', 'templates', 'list']);
    expect(list.code).toBe(0);
    const names = (JSON.parse(list.stdout) as { templates: { name: string }[] }).templates.map((t) => t.name);
    expect(names).toEqual(['classic', 'luxury', 'social']);
    const show = await runCli(['templates', 'show', 'luxury']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/Noto Serif Display/);
    const unknown = await runCli(['templates', 'show', 'fancy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/classic, luxury, social/);
  });

  it('checks the machine, and fails with install hints when ffmpeg is missing', async () => {
    const ok = await runCli(['--json', 'doctor']);
    expect(ok.code).toBe(0);
    const checks = (JSON.parse(ok.stdout) as { checks: { name: string; ok: boolean }[] }).checks;
    expect(checks.map((c) => c.name)).toEqual(
      expect.arrayContaining(['ffmpeg', 'ffprobe', 'libx264', 'aac', 'fonts', 'music', 'text rendering']),
    );
    expect(checks.every((c) => c.ok)).toBe(true);
    const missing = await runCli(['doctor'], { env: { FFMPEG_PATH: '/nonexistent' } });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/✘ ffmpeg/);
    expect(missing.stdout).toMatch(/apt-get install ffmpeg/);
  });
});
