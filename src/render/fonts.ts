import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import { FONTS_DIR } from './package-files.js';

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

/**
 * The last fallback of every text, after the template's Latin and Arabic families: emoji and
 * pictographs that users put in agency names ("… العقارية 🏠"), drawn in colour instead of a
 * missing-glyph box (assets/fonts/README.md).
 */
export const EMOJI_FAMILY = 'Noto Color Emoji';
export const EMOJI_FONT_FILE = 'NotoColorEmoji.ttf';

/** Font files that are missing from assets/fonts (`immoreel doctor` reports them). */
export function missingFontFiles(dir: string = FONTS_DIR): string[] {
  return [...Object.values(FONT_FILES).flat(), EMOJI_FONT_FILE].filter((file) => !existsSync(join(dir, file)));
}

/**
 * The colour emoji font holds bitmaps of one size (136 px). Without this rule (the system's
 * 10-scale-bitmap-fonts.conf, which our fonts.conf does not include) Pango draws them at that size
 * whatever the text size; with it fontconfig scales every bitmap glyph to the requested pixel size.
 */
const SCALE_BITMAP_FONTS = `  <match target="font">
    <test name="outline" compare="eq"><bool>false</bool></test>
    <edit name="pixelsizefixupfactor" mode="assign">
      <divide><name target="pattern">pixelsize</name><name target="font">pixelsize</name></divide>
    </edit>
  </match>
  <match target="font">
    <test name="outline" compare="eq"><bool>false</bool></test>
    <test name="pixelsizefixupfactor" compare="not_eq"><double>1.0</double></test>
    <edit name="matrix" mode="assign">
      <times><name>matrix</name>
        <matrix><name>pixelsizefixupfactor</name> <double>0</double> <double>0</double> <name>pixelsizefixupfactor</name></matrix>
      </times>
    </edit>
    <edit name="size" mode="assign"><divide><name>size</name><name>pixelsizefixupfactor</name></divide></edit>
  </match>
`;

/** The fonts.conf written by this process, by fonts directory. */
const written = new Map<string, string>();

/**
 * Writes a fontconfig file that points fontconfig (inside sharp's libvips) at assets/fonts and
 * nothing else, so that every glyph comes from a shipped font and a video looks the same on every
 * machine, and returns its path. fontconfig reads FONTCONFIG_FILE from the environment of the
 * process once, when it initialises (at the first text drawn, in this process: sharp is a native
 * module, so a child's environment cannot carry it). The entry points set it to this path before
 * any command runs (docs/configuration.md "Fonts"); nothing in this layer touches the environment.
 */
export function shippedFontsConfig(dir: string = FONTS_DIR): string {
  const known = written.get(dir);
  if (known !== undefined) return known;
  const configDir = join(tmpdir(), `immoreel-fontconfig-${process.getuid?.() ?? 'user'}`);
  mkdirSync(configDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = join(configDir, 'fonts.conf');
  const escapeXml = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <dir>${escapeXml(dir)}</dir>\n  <cachedir>${escapeXml(join(configDir, 'cache'))}</cachedir>\n${SCALE_BITMAP_FONTS}</fontconfig>\n`,
    { mode: PRIVATE_FILE_MODE },
  );
  written.set(dir, file);
  return file;
}

/**
 * The characters a TrueType font has glyphs for, read from its `cmap` table (the Unicode
 * subtables: format 4 for the Basic Multilingual Plane, format 12 beyond it). Enough to check
 * which shipped font draws which character of a card (docs/rendering.md "Text").
 */
function readCoverage(file: string): (codePoint: number) => boolean {
  const font = readFileSync(file);
  const tables = font.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < tables; i += 1) {
    const record = 12 + i * 16;
    if (font.toString('latin1', record, record + 4) === 'cmap') cmap = font.readUInt32BE(record + 8);
  }
  if (cmap < 0) throw new Error(`${file} has no cmap table`);
  const ranges: [number, number, (c: number) => boolean][] = [];
  const subtables = font.readUInt16BE(cmap + 2);
  for (let i = 0; i < subtables; i += 1) {
    const platform = font.readUInt16BE(cmap + 4 + i * 8);
    const encoding = font.readUInt16BE(cmap + 6 + i * 8);
    const at = cmap + font.readUInt32BE(cmap + 8 + i * 8);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = font.readUInt16BE(at);
    if (format === 4) {
      const segments = font.readUInt16BE(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segments * 2 + 2;
      const deltas = starts + segments * 2;
      const offsets = deltas + segments * 2;
      for (let s = 0; s < segments; s += 1) {
        const start = font.readUInt16BE(starts + s * 2);
        const end = font.readUInt16BE(ends + s * 2);
        const delta = font.readUInt16BE(deltas + s * 2);
        const offsetAt = offsets + s * 2;
        const offset = font.readUInt16BE(offsetAt);
        const glyph = (c: number): number => {
          if (offset === 0) return (c + delta) & 0xffff;
          const g = font.readUInt16BE(offsetAt + offset + (c - start) * 2);
          return g === 0 ? 0 : (g + delta) & 0xffff;
        };
        ranges.push([start, end, (c) => glyph(c) !== 0]);
      }
    } else if (format === 12) {
      const groups = font.readUInt32BE(at + 12);
      for (let g = 0; g < groups; g += 1) {
        const group = at + 16 + g * 12;
        ranges.push([font.readUInt32BE(group), font.readUInt32BE(group + 4), () => true]);
      }
    }
  }
  return (codePoint) => ranges.some(([start, end, has]) => codePoint >= start && codePoint <= end && has(codePoint));
}

const coverages = new Map<string, (codePoint: number) => boolean>();

/** Whether a shipped family (its regular face, which covers what its bold does) has a glyph for `char`. */
export function familyCovers(family: FontFamily, char: string, dir: string = FONTS_DIR): boolean {
  const file = join(dir, FONT_FILES[family][0]);
  let covers = coverages.get(file);
  if (covers === undefined) {
    covers = readCoverage(file);
    coverages.set(file, covers);
  }
  return covers(char.codePointAt(0) ?? 0);
}
