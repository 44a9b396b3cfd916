import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUSIC_TRACKS } from '../../../src/render/music-tracks.js';
import { MUSIC_DIR } from '../../../src/render/package-files.js';
import { ffprobe } from '../../helpers/render-fixtures.js';

describe('bundled music beds', () => {
  // A render loops and cuts a bed by its declared length without probing it: a regenerated file
  // (scripts/make-music.ts) of another length would otherwise loop with a gap or a jump.
  it.each(MUSIC_TRACKS.map((track) => [track.name, track] as const))('%s is as long as its declared length', (_name, track) => {
    const audio = ffprobe(join(MUSIC_DIR, track.file)).streams.find((stream) => stream.codec_type === 'audio');
    expect(audio).toBeDefined();
    expect(Number(audio?.duration)).toBeCloseTo(track.durationS, 3);
  });
});
