import { describe, expect, it } from 'vitest';
import { checkContract, type Expectations, type PacketInfo } from '../../../src/render/verify.js';
import type { ProbeData } from '../../../src/render/ffmpeg/runner.js';

const expectations: Expectations = { width: 1280, height: 720, durationS: 4, checkAudioBitrate: true };

function probeData(video: Record<string, unknown> = {}, audio: Record<string, unknown> = {}, duration = 4): ProbeData {
  return {
    streams: [
      {
        codec_type: 'video',
        codec_name: 'h264',
        profile: 'High',
        pix_fmt: 'yuv420p',
        width: 1280,
        height: 720,
        sample_aspect_ratio: '1:1',
        r_frame_rate: '60/1',
        avg_frame_rate: '60/1',
        ...video,
      },
      { codec_type: 'audio', codec_name: 'aac', profile: 'LC', sample_rate: 48000, channels: 2, bit_rate: 161000, ...audio },
    ],
    format: { duration },
    chapters: [],
  } as unknown as ProbeData;
}

function packets(frames = 240, keyEvery = 60): PacketInfo[] {
  return Array.from({ length: frames }, (_, i) => ({ pts: i / 60, key: i % keyEvery === 0 }));
}

const GOOD_BOXES = ['ftyp', 'moov', 'free', 'mdat'];

describe('output contract checks', () => {
  it('passes a video that meets docs/rendering.md', () => {
    expect(checkContract(probeData(), packets(), GOOD_BOXES, expectations)).toEqual([]);
  });

  it('names each property that is wrong', () => {
    const failures = checkContract(
      probeData(
        {
          profile: 'Constrained Baseline',
          pix_fmt: 'yuv444p',
          width: 1920,
          sample_aspect_ratio: '4000:3999',
          r_frame_rate: '30/1',
          avg_frame_rate: '30/1',
        },
        { bit_rate: 128000, sample_rate: 44100, channels: 1, profile: 'HE-AAC' },
        4.5,
      ),
      packets(240, 250),
      ['ftyp', 'mdat', 'moov'],
      expectations,
    );
    const text = failures.join('\n');
    expect(text).toMatch(/H\.264 profile is Constrained Baseline, expected High/);
    expect(text).toMatch(/pixel format is yuv444p/);
    expect(text).toMatch(/frame size is 1920x720, expected 1280x720/);
    expect(text).toMatch(/sample aspect ratio is 4000:3999/);
    expect(text).toMatch(/frame rate is 30\/1/);
    expect(text).toMatch(/audio bitrate is 128 kbps, expected 160 kbps ±5 %/);
    expect(text).toMatch(/audio sample rate is 44100 Hz/);
    expect(text).toMatch(/1 channel\(s\), expected 2/);
    expect(text).toMatch(/AAC profile is HE-AAC/);
    expect(text).toMatch(/moov box is not before mdat/);
    expect(text).toMatch(/duration is 4\.500 s, expected 4\.000 s/);
    expect(text).toMatch(/keyframes are up to 4\.00 s apart/);
  });

  it('refuses an average frame rate a hair off 60/1 and streams longer than their frames (a drifting join)', () => {
    const drifted = probeData({ avg_frame_rate: '5529600/92161', duration: '30.000326' }, { duration: '30.000000' }, 30);
    const text = checkContract(drifted, packets(1800), GOOD_BOXES, { ...expectations, durationS: 30 }).join('\n');
    expect(text).toMatch(/average 5529600\/92161\), expected a constant 60\/1/);
    expect(text).toMatch(/the video stream lasts 30\.000326 s, expected 30\.000000 s/);
    const exact = probeData({ duration: '30.000000' }, { duration: '30.000000' }, 30);
    expect(checkContract(exact, packets(1800), GOOD_BOXES, { ...expectations, durationS: 30 })).toEqual([]);
  });

  it('refuses audio and video of different lengths and one frame too many', () => {
    const longAudio = probeData({ duration: '4.000000' }, { duration: '4.100000' });
    expect(checkContract(longAudio, packets(), GOOD_BOXES, expectations).join()).toMatch(
      /the audio lasts 4\.100000 s and the video 4\.000000 s/,
    );
    expect(checkContract(probeData(), packets(241), GOOD_BOXES, expectations).join()).toMatch(/241 frames, expected 240/);
  });

  it('finds uneven frame timing and missing frames', () => {
    const uneven = packets().map((p, i) => (i === 100 ? { ...p, pts: p.pts + 0.008 } : p));
    expect(checkContract(probeData(), uneven, GOOD_BOXES, expectations).join()).toMatch(/frame timing is not constant/);
    expect(checkContract(probeData(), packets(200), GOOD_BOXES, expectations).join()).toMatch(/200 frames, expected 240/);
  });

  it('does not hold a silent track to 160 kbps (silence encodes to a few kbps)', () => {
    expect(checkContract(probeData({}, { bit_rate: 2100 }), packets(), GOOD_BOXES, { ...expectations, checkAudioBitrate: false })).toEqual(
      [],
    );
  });
});
