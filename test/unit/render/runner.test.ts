import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { isAppError } from '../../../src/core/errors.js';
import { progressFraction, resolveBinaries, stderrTail, timemarkSeconds } from '../../../src/render/ffmpeg/runner.js';

/** The ffmpeg settings of an environment, read as the entry points read them (docs/configuration.md). */
function settingsOf(env: Record<string, string | undefined>): ReturnType<typeof loadConfig>['ffmpeg'] {
  return loadConfig({ env: { PATH: process.env.PATH, ...env } }).ffmpeg;
}

describe('ffmpeg runner', () => {
  it('reads fluent-ffmpeg progress timemarks as a fraction of the planned duration', () => {
    expect(timemarkSeconds('00:01:02.50')).toBe(62.5);
    expect(timemarkSeconds('N/A')).toBeNull();
    expect(progressFraction('00:00:01.00', 10)).toBe(0.1);
    expect(progressFraction('00:00:02.50', 10)).toBe(0.25);
    // Past the plan (the muxer's last packets) is capped; a negative start (B-frame delay) is 0.
    expect(progressFraction('00:00:12.00', 10)).toBe(1);
    expect(progressFraction('-00:00:00.03', 10)).toBe(0);
    expect(progressFraction('N/A', 10)).toBeNull();
  });

  it('keeps the end of stderr for error messages, with job paths hidden', () => {
    const stderr =
      'frame=  10 fps=0\n[image2 @ 0x1] Could not open file : /data/jobs/job_1/cards/card-x.png\n/data/jobs/job_1/cards/card-x.png: No such file or directory\n';
    const tail = stderrTail(stderr, ['/data/jobs/job_1']);
    expect(tail).toContain('No such file or directory');
    expect(tail).not.toContain('/data/jobs/job_1');
    expect(tail).not.toContain('frame=');
  });

  it('reports a missing ffmpeg as DEPENDENCY_MISSING (exit 1) with how to install it', () => {
    try {
      resolveBinaries(settingsOf({ FFMPEG_PATH: '/nonexistent/ffmpeg' }));
      throw new Error('expected DEPENDENCY_MISSING');
    } catch (error) {
      expect(isAppError(error) && error.code).toBe('DEPENDENCY_MISSING');
      expect(isAppError(error) && error.exitCode).toBe(1);
      expect((error as Error).message).toMatch(/FFMPEG_PATH is set to \/nonexistent\/ffmpeg/);
      expect((error as Error).message).toMatch(/apt-get install ffmpeg/);
    }
  });

  it('finds ffmpeg and ffprobe on PATH when no override is set', () => {
    expect(() => resolveBinaries({ searchPath: '/nonexistent-dir' })).toThrow(/ffmpeg was not found on PATH/);
    const binaries = resolveBinaries(settingsOf({}));
    expect(binaries.ffmpeg).toMatch(/ffmpeg$/);
    expect(binaries.ffprobe).toMatch(/ffprobe$/);
  });

  it('looks the binaries up once per process, and again only when FFMPEG_PATH, FFPROBE_PATH or PATH change', () => {
    const first = resolveBinaries(settingsOf({}));
    expect(resolveBinaries(settingsOf({}))).toBe(first);
    const overridden = resolveBinaries(settingsOf({ FFMPEG_PATH: first.ffmpeg }));
    expect(overridden).not.toBe(first);
    expect(overridden.ffmpeg).toBe(first.ffmpeg);
  });
});
