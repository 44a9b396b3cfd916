import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FONTS_DIR } from './paths.js';

/**
 * The fonts shipped in assets/fonts (OFL, see its README.md) and how the card renderer finds them.
 * Text is drawn by sharp through Pango + HarfBuzz, which shapes Arabic (joined letters, right to
 * left, mixed with Latin and digits) — ffmpeg 5.1's drawtext cannot (docs/rendering.md).
 */

export const FONT_FAMILIES = ['Noto Sans', 'Noto Serif Display', 'Noto Sans Arabic', 'Noto Naskh Arabic'] as const;
export type FontFamily = (typeof FONT_FAMILIES)[number];

/** Every font file the renderer needs, by family: regular and bold. */
export const FONT_FILES: Readonly<Record<FontFamily, readonly [string, string]>> = {
  'Noto Sans': ['NotoSans-Regular.ttf', 'NotoSans-Bold.ttf'],
  'Noto Serif Display': ['NotoSerifDisplay-Regular.ttf', 'NotoSerifDisplay-Bold.ttf'],
  'Noto Sans Arabic': ['NotoSansArabic-Regular.ttf', 'NotoSansArabic-Bold.ttf'],
  'Noto Naskh Arabic': ['NotoNaskhArabic-Regular.ttf', 'NotoNaskhArabic-Bold.ttf'],
};

/** Font files that are missing from assets/fonts (`immoreel doctor` reports them). */
export function missingFontFiles(dir: string = FONTS_DIR): string[] {
  return Object.values(FONT_FILES)
    .flat()
    .filter((file) => !existsSync(join(dir, file)));
}

let configured = false;

/**
 * Points fontconfig (inside sharp's libvips) at assets/fonts and nothing else, so that every
 * glyph comes from a shipped font and a video looks the same on every machine. Must run before
 * the first text is drawn: fontconfig reads FONTCONFIG_FILE once, when it initialises.
 */
export function useShippedFonts(dir: string = FONTS_DIR): void {
  if (configured) return;
  const configDir = join(tmpdir(), `immoreel-fontconfig-${process.getuid?.() ?? 'user'}`);
  mkdirSync(configDir, { recursive: true });
  const file = join(configDir, 'fonts.conf');
  const escapeXml = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <dir>${escapeXml(dir)}</dir>\n  <cachedir>${escapeXml(join(configDir, 'cache'))}</cachedir>\n</fontconfig>\n`,
  );
  process.env.FONTCONFIG_FILE = file;
  configured = true;
}
