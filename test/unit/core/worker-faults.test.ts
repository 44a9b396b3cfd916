import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { workerFaultOf } from '../../../src/core/worker-faults.js';

describe('workerFaultOf: faults of the machine, not of the job (docs/jobs.md "Worker faults")', () => {
  it('knows a full disk from Node, sharp and ffmpeg', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/data/jobs/job_x/photo.jpg'"), { code: 'ENOSPC' });
    expect(workerFaultOf(enospc)).toBe('disk_full');
    expect(workerFaultOf(new Error('wrapped', { cause: enospc }))).toBe('disk_full');
    expect(workerFaultOf(new Error('VipsJpeg: No space left on device'))).toBe('disk_full');
    const ffmpeg = new AppError(
      'RENDER_FAILED',
      'ffmpeg failed to render the video: ffmpeg exited with code 1 — av_interleaved_write_frame(): No space left on device',
      { reason: 'ffmpeg_failed' },
    );
    expect(workerFaultOf(ffmpeg)).toBe('disk_full');
  });

  it('knows a missing binary and a crashed decoder', () => {
    expect(workerFaultOf(new AppError('DEPENDENCY_MISSING', 'ffmpeg could not be started (ENOENT).', { reason: 'ffmpeg_missing' }))).toBe(
      'binary_missing',
    );
    expect(
      workerFaultOf(new AppError('RENDER_FAILED', 'ffmpeg failed to render the video: ffmpeg was killed with signal SIGSEGV', {})),
    ).toBe('decoder_crash');
  });

  it("leaves the job's own failures, and our own SIGKILL of a cancel, to the job", () => {
    expect(workerFaultOf(new AppError('UPSTREAM_ERROR', 'The listing page answered 404.'))).toBeNull();
    expect(
      workerFaultOf(new AppError('RENDER_FAILED', 'ffmpeg failed to render the video: ffmpeg was killed with signal SIGKILL')),
    ).toBeNull();
    expect(workerFaultOf(new TypeError('x is undefined'))).toBeNull();
    expect(workerFaultOf(new Error('canceled'))).toBeNull();
    expect(workerFaultOf(undefined)).toBeNull();
  });
});
