import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/core/errors.js';
import { TEMPLATES_DIR } from '../../../src/render/package-files.js';
import { listTemplates, loadTemplate } from '../../../src/render/templates.js';

function brokenCopy(change: (raw: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-templates-'));
  const raw = JSON.parse(readFileSync(join(TEMPLATES_DIR, 'classic', 'template.json'), 'utf8')) as Record<string, unknown>;
  change(raw);
  mkdirSync(join(dir, 'classic'));
  writeFileSync(join(dir, 'classic', 'template.json'), JSON.stringify(raw));
  return dir;
}

function loadError(dir: string): { message: string; code: string } {
  try {
    loadTemplate('classic', dir);
  } catch (error) {
    if (isAppError(error)) return { message: error.message, code: error.code };
    throw error;
  }
  throw new Error('expected the template to be refused');
}

describe('templates', () => {
  it('ships classic, luxury and social, all valid, each with its own look', () => {
    expect(listTemplates()).toEqual(['classic', 'luxury', 'social']);
    const [classic, luxury, social] = ['classic', 'luxury', 'social'].map((name) => loadTemplate(name));
    expect(luxury!.fonts.heading).toBe('Noto Serif Display');
    expect(luxury!.transition.duration_s).toBeGreaterThan(classic!.transition.duration_s);
    expect(luxury!.motion.zoom).toBeLessThan(classic!.motion.zoom);
    expect(social!.recommended_format).toBe('portrait');
    expect(social!.style.type_scale).toBeGreaterThan(1.2);
    expect(social!.shots.preferred_s).toBeLessThan(classic!.shots.preferred_s);
  });

  it('refuses a broken template with the field that is wrong', () => {
    expect(loadError(brokenCopy((t) => ((t.motion as Record<string, unknown>).zoom = 5))).message).toMatch(
      /motion\.zoom must be a number from 0 to 0\.3 \(got 5\)/,
    );
    expect(loadError(brokenCopy((t) => ((t.colors as Record<string, unknown>).accent = 'blue'))).message).toMatch(
      /colors\.accent must be a colour like #1A2B3C/,
    );
    expect(loadError(brokenCopy((t) => (t.transition = { kind: 'swirl', duration_s: 0.5 }))).message).toMatch(
      /transition\.kind must be one of cut, fade/,
    );
    expect(loadError(brokenCopy((t) => ((t.scenes as unknown[])[0] = { kind: 'intro' }))).message).toMatch(
      /scenes\[0\]\.duration_s must be a number/,
    );
    expect(loadError(brokenCopy((t) => ((t.fonts as Record<string, unknown>).heading = 'Comic Sans'))).message).toMatch(
      /fonts\.heading must be one of Noto Sans/,
    );
    const broken = loadError(brokenCopy((t) => delete t.shots));
    expect(broken.message).toMatch(/templates\/classic\/template\.json/);
    expect(broken.message).toMatch(/shots must be an object/);
  });

  it('reports every fault of a template at once, each with its field, scenes checked by their own kind', () => {
    const { message } = loadError(
      brokenCopy((t) => {
        const motion = t.motion as Record<string, unknown>;
        motion.sequence = ['zoom_in', 'spin'];
        const scenes = t.scenes as Record<string, unknown>[];
        scenes[1] = { kind: 'slideshow' };
        scenes[3] = { kind: 'features', duration_s: 3, max_items: 2.5 };
      }),
    );
    expect(message).toMatch(/motion\.sequence\[1\] must be one of zoom_in, .* \(got "spin"\)/);
    expect(message).toMatch(/scenes\[1\] must be a scene: an object with a kind \(intro, photos/);
    expect(message).toMatch(/scenes\[3\]\.max_items must be a whole number from 1 to 8 \(got 2\.5\)/);
  });

  it('reports an unknown template as a bad request naming the available ones', () => {
    try {
      loadTemplate('fancy');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(isAppError(error) && error.code).toBe('BAD_REQUEST');
      expect((error as Error).message).toMatch(/classic, luxury, social/);
    }
  });
});
