import { describe, expect, it } from 'vitest';
import { outputTargets } from '../../../src/render/pipeline.js';

describe('outputTargets: the outputs of a render against its formats', () => {
  it('keeps a single-format render on ctx.outputPath and ctx.posterPath, as before packs', () => {
    expect(outputTargets({ format: 'square' }, { outputPath: '/o/v.mp4', posterPath: '/o/p.jpg' })).toEqual([
      { format: 'square', outputPath: '/o/v.mp4', posterPath: '/o/p.jpg' },
    ]);
    expect(outputTargets({ format: 'square', formats: ['square'] }, { outputPath: '/o/v.mp4' })).toEqual([
      { format: 'square', outputPath: '/o/v.mp4' },
    ]);
  });

  it('uses ctx.outputs in formats order for a pack, ignoring outputPath', () => {
    const outputs = [
      { format: 'portrait' as const, outputPath: '/o/a.mp4' },
      { format: 'landscape' as const, outputPath: '/o/b.mp4', posterPath: '/o/b.jpg' },
    ];
    expect(outputTargets({ format: 'portrait', formats: ['portrait', 'landscape'] }, { outputPath: '/ignored', outputs })).toBe(outputs);
  });

  it('refuses a pack the caller described inconsistently, naming what is wrong', () => {
    const one = { outputPath: '/o/v.mp4' };
    expect(() => outputTargets({ format: 'landscape', formats: ['landscape', 'square'] }, one)).toThrow(/needs RenderContext\.outputs/);
    expect(() => outputTargets({ format: 'landscape', formats: ['square', 'landscape'] }, one)).toThrow(
      /starts with square but format is landscape/,
    );
    expect(() => outputTargets({ format: 'landscape', formats: ['landscape', 'landscape'] }, one)).toThrow(/lists landscape twice/);
    expect(() => outputTargets({ format: 'landscape', formats: [] }, one)).toThrow(/empty/);
    expect(() =>
      outputTargets(
        { format: 'landscape', formats: ['landscape', 'square'] },
        {
          outputPath: '',
          outputs: [
            { format: 'square', outputPath: '/a' },
            { format: 'landscape', outputPath: '/b' },
          ],
        },
      ),
    ).toThrow(/must list the formats landscape, square, in that order/);
    expect(() =>
      outputTargets(
        { format: 'landscape', formats: ['landscape', 'square'] },
        {
          outputPath: '',
          outputs: [
            { format: 'landscape', outputPath: '/a' },
            { format: 'square', outputPath: '/a' },
          ],
        },
      ),
    ).toThrow(/same path \(\/a\)/);
  });
});
