import { describe, expect, it } from 'vitest';
import { withFocus } from '../../../src/cli/commands/render.js';
import { AppError } from '../../../src/core/errors.js';

/** `--focus FILE=X,Y` (docs/cli.md, docs/rendering.md "Framing"): the subject of a photo given on the command line. */
describe('--focus', () => {
  const photos = ['/home/agent/photos/salon.jpg', '/home/agent/photos/cuisine.heic', 'https://cdn.example.com/vue.jpg'];

  it('gives the photos it names their subject, by file name, path or URL; the others stay plain', () => {
    expect(withFocus(photos, ['salon.jpg=0.2,0.45', 'https://cdn.example.com/vue.jpg=0.9, 0.5'])).toEqual([
      { url: '/home/agent/photos/salon.jpg', focus: { x: 0.2, y: 0.45 } },
      '/home/agent/photos/cuisine.heic',
      { url: 'https://cdn.example.com/vue.jpg', focus: { x: 0.9, y: 0.5 } },
    ]);
  });

  it('refuses a focus that is not two fractions, or names no photo given', () => {
    for (const bad of ['salon.jpg=20,45', 'salon.jpg', 'salon.jpg=0.2', 'garage.jpg=0.5,0.5']) {
      expect(() => withFocus(photos, [bad]), bad).toThrow(AppError);
    }
    expect(() => withFocus(photos, ['garage.jpg=0.5,0.5'])).toThrow(/no photo garage.jpg/);
  });
});
