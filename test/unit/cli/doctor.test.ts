import { describe, expect, it } from 'vitest';
import { nodeCheck, parseFfmpegVersion } from '../../../src/cli/commands/doctor.js';

describe('doctor: the Node check', () => {
  it('accepts the tested lines and refuses the others, with what to install', () => {
    for (const version of ['v20.19.0', 'v20.20.2', 'v22.12.0', 'v24.0.0', 'v25.1.0']) expect(nodeCheck(version, false).ok).toBe(true);
    for (const version of ['v18.20.4', 'v20.18.1', 'v21.7.3', 'v22.11.0', 'v23.5.0']) {
      expect(nodeCheck(version, false)).toMatchObject({ ok: false, hint: 'Install Node 20.19+, 22.12+ or 24+.' });
    }
  });

  it('says once what the AWS SDK would print on every run: its next releases need Node 22', () => {
    expect(nodeCheck('v20.20.2', true).detail).toMatch(/AWS SDK releases after January 2027 need Node 22/);
    expect(nodeCheck('v20.20.2', false).detail).toBe('Node v20.20.2');
    expect(nodeCheck('v22.12.0', true).detail).toBe('Node v22.12.0');
  });
});

describe('doctor: ffmpeg versions', () => {
  it('reads distribution, release and static build version lines', () => {
    expect(parseFfmpegVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2025')).toEqual([5, 1]);
    expect(parseFfmpegVersion('ffmpeg version n6.1 Copyright')).toEqual([6, 1]);
    expect(parseFfmpegVersion('ffmpeg version N-112345-gabcdef Copyright')).toBeNull();
  });
});
