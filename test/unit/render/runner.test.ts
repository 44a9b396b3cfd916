import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/core/errors.js';
import { progressParser, resolveBinaries, stderrTail } from '../../../src/render/ffmpeg/runner.js';

const saved = { ffmpeg: process.env.FFMPEG_PATH, ffprobe: process.env.FFPROBE_PATH };
afterEach(() => {
  if (saved.ffmpeg === undefined) delete process.env.FFMPEG_PATH;
  else process.env.FFMPEG_PATH = saved.ffmpeg;
  if (saved.ffprobe === undefined) delete process.env.FFPROBE_PATH;
  else process.env.FFPROBE_PATH = saved.ffprobe;
});

describe('ffmpeg runner', () => {
  it('reads -progress blocks as a fraction of the planned duration, across chunk boundaries', () => {
    const seen: number[] = [];
    const parse = progressParser(10, (f) => seen.push(f));
    parse('frame=60\nfps=0.0\nout_time_us=1000000\nout_ti');
    parse('me_ms=2500000\nprogress=continue\nout_time_us=N/A\n');
    parse('out_time_us=12000000\nprogress=end\n');
    expect(seen).toEqual([0.1, 0.25, 1, 1]);
  });

  it('keeps the end of stderr for error messages, with job paths hidden', () => {
    const stderr = 'frame=  10 fps=0\n[image2 @ 0x1] Could not open file : /data/jobs/job_1/cards/card-x.png\n/data/jobs/job_1/cards/card-x.png: No such file or directory\n';
    const tail = stderrTail(stderr, ['/data/jobs/job_1']);
    expect(tail).toContain('No such file or directory');
    expect(tail).not.toContain('/data/jobs/job_1');
    expect(tail).not.toContain('frame=');
  });

  it('reports a missing ffmpeg as DEPENDENCY_MISSING (exit 1) with how to install it', () => {
    process.env.FFMPEG_PATH = '/nonexistent/ffmpeg';
    try {
      resolveBinaries();
      throw new Error('expected DEPENDENCY_MISSING');
    } catch (error) {
      expect(isAppError(error) && error.code).toBe('DEPENDENCY_MISSING');
      expect(isAppError(error) && error.exitCode).toBe(1);
      expect((error as Error).message).toMatch(/FFMPEG_PATH is set to \/nonexistent\/ffmpeg/);
      expect((error as Error).message).toMatch(/apt-get install ffmpeg/);
    }
  });

  it('finds ffmpeg and ffprobe on PATH when no override is set', () => {
    delete process.env.FFMPEG_PATH;
    delete process.env.FFPROBE_PATH;
    const binaries = resolveBinaries();
    expect(binaries.ffmpeg).toMatch(/ffmpeg$/);
    expect(binaries.ffprobe).toMatch(/ffprobe$/);
  });
});
