import { writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../core/paths.js';
import { join } from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import type { PlacedImage } from './ffmpeg/plan.js';
import { EMOJI_FAMILY, familyCovers, type FontFamily } from './fonts.js';
import type { Card, CardContent, Direction, Timeline } from './storyboard.js';
import type { Template } from './templates.js';

/**
 * Text cards (docs/rendering.md): every text of the video is drawn here into a transparent PNG, by sharp's
 * Pango/HarfBuzz text renderer with the shipped fonts, and overlaid by ffmpeg as an image. User
 * text never enters a filtergraph string; it only enters Pango markup, escaped.
 *
 * Layout is in output pixels. All three formats have a 720-pixel short side, so sizes are the
 * same everywhere; the template's type_scale grows or shrinks all type.
 */

export interface CardStyle {
  template: Template;
  /** The template's accent, or the agency's primary_color. */
  accent: string;
  direction: Direction;
  width: number;
  height: number;
}

export interface TextSpec {
  text: string;
  bold?: boolean;
  size: number;
  color: string;
  maxWidth: number;
  /** Lines allowed before the size is reduced, then the text shortened. */
  maxLines?: number;
  align?: 'start' | 'centre';
  /** Letter spacing in px, for small-caps labels. */
  tracking?: number;
  /** Use the body family instead of the heading family. */
  body?: boolean;
}

interface TextImage {
  buffer: Buffer;
  width: number;
  height: number;
}

function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * Prepares user text for drawing: one line of whitespace, and digit groups glued with a narrow
 * no-break space. A plain space between digit groups is a bidi "neutral": inside Arabic text the
 * groups of "1 850 000" would be laid out right to left as "000 850 1". U+202F is a common number
 * separator, so the number stays one left-to-right run (Unicode bidi rule W4), and never wraps.
 */
export function prepareText(text: string): string {
  return (
    text
      // Control characters (tabs and newlines become spaces below) would break the layout.
      .replace(/\p{Cc}/gu, (c) => (/\s/.test(c) ? ' ' : ''))
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/(\d)[ \u00A0](?=\d{3}(?!\d))/g, '$1\u202F')
      // A number stays on the line of its unit: "120 m²", "15 %", "1 850 000 DH".
      .replace(/(\d) (?=(m²|m2|DH|MAD|€|%|درهم|م²)(?![\p{L}\d]))/gu, '$1\u00A0')
  );
}

function fontDescription(style: CardStyle, spec: TextSpec, size: number): string {
  const { fonts } = style.template;
  const latin = spec.body ? fonts.body : fonts.heading;
  const arabic = spec.body ? fonts.arabic_body : fonts.arabic_heading;
  // Families in order of preference per glyph: the script of the video first, the other as
  // fallback, then colour emoji for pictographs neither has.
  const families = style.direction === 'rtl' ? `${arabic},${latin},${EMOJI_FAMILY}` : `${latin},${arabic},${EMOJI_FAMILY}`;
  return `${families} ${spec.bold ? 'Bold' : ''} ${Math.round(size)}`.replace(/\s+/g, ' ');
}

/** The Pango markup and font description of a text (prepared by `prepareText`) at `size`. */
export function textMarkup(style: CardStyle, spec: TextSpec, text: string, size: number): { markup: string; font: string } {
  const tracking = spec.tracking === undefined ? '' : ` letter_spacing="${Math.round(spec.tracking * 1024)}"`;
  const rtl = style.direction === 'rtl';
  // Right to left: a right-to-left mark makes every paragraph right to left (one that starts with
  // a number or a Latin name would otherwise be laid out left to right), and Pango mirrors the
  // alignment of such a paragraph, so `left` puts its lines on the right (`right` put them on the
  // left: the first versions' Arabic titles). The line height is fixed: Arabic and Latin fallback
  // glyphs have different ascents, which made the gaps between lines uneven.
  const markup = rtl
    ? `<span foreground="${spec.color}" line_height="${LINE_HEIGHT}"${tracking}>\u200F${arabicMarkup(text, arabicFamily(style, spec))}</span>`
    : `<span foreground="${spec.color}"${tracking}>${escapeMarkup(text)}</span>`;
  return { markup, font: fontDescription(style, spec, size) };
}

function arabicFamily(style: CardStyle, spec: TextSpec): FontFamily {
  return spec.body ? style.template.fonts.arabic_body : style.template.fonts.arabic_heading;
}

/**
 * The Latin family the shipped Arabic fonts take their digits from: the symbols they lack ("/",
 * "%") are drawn by it, so that a unit or a price matches its number (docs/rendering.md "Text").
 */
const SYMBOL_FAMILY: FontFamily = 'Noto Sans';

/**
 * Arabic text as markup, escaped. The Arabic fonts have no "²": Pango took it from the template's
 * Latin family (a serif in luxury), raised to Latin capital height, far above the low Arabic
 * letters. It is the Arabic font's own "2" as a superscript instead (same font, weight and
 * colour, raised by the font's superscript offset). The other symbols the Arabic font lacks
 * ("/" of "درهم/م²", "%") are drawn by the sans the Arabic fonts' digits come from, not by
 * whatever Latin family the template has (Noto Serif Display's hairline slash in luxury).
 * Letters it lacks (a Latin agency name) keep the template's Latin family.
 */
function arabicMarkup(text: string, family: FontFamily): string {
  let markup = '';
  for (const char of text) {
    if (char === '²' && familyCovers(family, '2')) markup += '<span font_scale="superscript" baseline_shift="superscript">2</span>';
    else if (/[\p{P}\p{S}]/u.test(char) && !familyCovers(family, char) && familyCovers(SYMBOL_FAMILY, char))
      markup += `<span font_family="${SYMBOL_FAMILY}">${escapeMarkup(char)}</span>`;
    else markup += escapeMarkup(char);
  }
  return markup;
}

async function renderText(style: CardStyle, spec: TextSpec, text: string, size: number): Promise<TextImage> {
  const rtl = style.direction === 'rtl';
  const { markup, font } = textMarkup(style, spec, text, size);
  const image = sharp({
    text: {
      text: markup,
      font,
      width: Math.max(1, Math.floor(spec.maxWidth)),
      align: spec.align === 'centre' ? 'centre' : 'left',
      rgba: true,
      dpi: 72,
      wrap: 'word-char',
      ...(rtl ? {} : { spacing: Math.round(size * 0.18) }),
    },
  });
  const { data, info } = await image.png({ compressionLevel: 0 }).toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height };
}

/** Line height of right-to-left text, as a multiple of the type size (docs/rendering.md "Text"). */
const LINE_HEIGHT = 1.45;

/** Draws one text block: shrinks the type, then shortens the text, until it fits its lines. */
export async function drawText(style: CardStyle, spec: TextSpec): Promise<TextImage> {
  const text = prepareText(spec.text);
  const maxLines = spec.maxLines ?? 1;
  const lineHeight = (size: number): number => size * 1.5;
  let size = spec.size;
  let image = await renderText(style, spec, text, size);
  for (let attempt = 0; attempt < 3 && image.height > lineHeight(size) * maxLines; attempt += 1) {
    size *= 0.88;
    image = await renderText(style, spec, text, size);
  }
  let words = text.split(' ');
  while (image.height > lineHeight(size) * maxLines && words.length > 1) {
    words = words.slice(0, -1);
    image = await renderText(style, spec, `${words.join(' ').replace(/(?<![\s,;:.–—-])[\s,;:.–—-]+$/u, '')}…`, size);
  }
  return image;
}

// ---------------------------------------------------------------------------------------------
// Shapes (SVG with numbers and validated colours only)

function hexToRgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function contrast(a: string, b: string): number {
  const lum = (hex: string): number => {
    const [r, g, b2] = hexToRgb(hex).map((c) => {
      const v = c / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The accent as a text colour on the panel: lightened towards white until it reads (contrast ≥ 4.5). */
export function readableOn(color: string, background: string): string {
  let [r, g, b] = hexToRgb(color);
  for (let step = 0; step < 10 && contrast(toHex(r, g, b), background) < 4.5; step += 1) {
    r += (255 - r) * 0.2;
    g += (255 - g) * 0.2;
    b += (255 - b) * 0.2;
  }
  return toHex(r, g, b);
}

function toHex(r: number, g: number, b: number): string {
  return `#${[r, g, b]
    .map((c) => Math.round(c).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase()}`;
}

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
export function textOn(background: string): string {
  const channel = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = hexToRgb(background).map(channel) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#FFFFFF' : '#111111';
}

function svg(width: number, height: number, body: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`,
  );
}

const SHADOW = 18;

interface Block {
  width: number;
  height: number;
  layers: (left: number, top: number) => OverlayOptions[];
}

function textBlock(image: TextImage): Block {
  return {
    width: image.width,
    height: image.height,
    layers: (left, top) => [{ input: image.buffer, left: Math.round(left), top: Math.round(top) }],
  };
}

function spacer(height: number): Block {
  return { width: 0, height, layers: () => [] };
}

/** Blocks stacked vertically, aligned to the start side (or centred), in a panel. */
interface PanelOptions {
  blocks: Block[];
  align: 'start' | 'centre';
  pad: number;
  accentBar: boolean;
  minWidth?: number;
  /** No background: the card floats on a dark backdrop. */
  bare?: boolean;
}

async function panel(style: CardStyle, options: PanelOptions): Promise<{ buffer: Buffer; width: number; height: number; inset: number }> {
  const { template, accent, direction } = style;
  const { pad } = options;
  const bar = options.accentBar ? 8 : 0;
  const contentWidth = Math.max(options.minWidth ?? 0, ...options.blocks.map((b) => b.width));
  const contentHeight = options.blocks.reduce((sum, b) => sum + b.height, 0);
  const panelWidth = Math.ceil(contentWidth + pad * 2 + bar);
  const panelHeight = Math.ceil(contentHeight + pad * 2);
  const width = panelWidth + SHADOW * 2;
  const height = panelHeight + SHADOW * 2;
  const radius = template.style.corner_radius;
  const layers: OverlayOptions[] = [];
  if (!options.bare) {
    const barX = direction === 'rtl' ? SHADOW + panelWidth - bar : SHADOW;
    layers.push({
      input: svg(
        width,
        height,
        `<defs><filter id="s" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="${SHADOW / 2.5}"/></filter>` +
          `<clipPath id="c"><rect x="${SHADOW}" y="${SHADOW}" width="${panelWidth}" height="${panelHeight}" rx="${radius}"/></clipPath></defs>` +
          `<rect x="${SHADOW}" y="${SHADOW + 4}" width="${panelWidth}" height="${panelHeight}" rx="${radius}" fill="#000" fill-opacity="0.35" filter="url(#s)"/>` +
          `<rect x="${SHADOW}" y="${SHADOW}" width="${panelWidth}" height="${panelHeight}" rx="${radius}" fill="${template.colors.panel}" fill-opacity="${template.colors.panel_opacity}"/>` +
          (bar > 0 ? `<rect x="${barX}" y="${SHADOW}" width="${bar}" height="${panelHeight}" fill="${accent}" clip-path="url(#c)"/>` : ''),
      ),
      left: 0,
      top: 0,
    });
  }
  let top = SHADOW + pad;
  const contentLeft = SHADOW + pad + (direction === 'rtl' ? 0 : bar);
  for (const block of options.blocks) {
    let left: number;
    if (options.align === 'centre') left = contentLeft + (contentWidth - block.width) / 2;
    else left = direction === 'rtl' ? contentLeft + contentWidth - block.width : contentLeft;
    layers.push(...block.layers(left, top));
    top += block.height;
  }
  const buffer = await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(layers)
    .png({ compressionLevel: 1 })
    .toBuffer();
  return { buffer, width, height, inset: SHADOW };
}

function badgeBlock(style: CardStyle, text: TextImage): Block {
  const padX = 14;
  const padY = 6;
  const width = text.width + padX * 2;
  const height = text.height + padY * 2;
  return {
    width,
    height,
    layers: (left, top) => [
      {
        input: svg(
          width,
          height,
          `<rect width="${width}" height="${height}" rx="${Math.min(height / 2, style.template.style.corner_radius + 4)}" fill="${style.accent}"/>`,
        ),
        left: Math.round(left),
        top: Math.round(top),
      },
      { input: text.buffer, left: Math.round(left + padX), top: Math.round(top + padY) },
    ],
  };
}

/** A row: a shape (drawn by `shape`) before the text, on the start side. */
function iconRow(style: CardStyle, text: TextImage, iconSize: number, shape: (size: number) => string): Block {
  const gap = Math.round(iconSize * 0.6);
  const width = iconSize + gap + text.width;
  const height = Math.max(iconSize, text.height);
  return {
    width,
    height,
    layers: (left, top) => {
      const iconLeft = style.direction === 'rtl' ? left + width - iconSize : left;
      const textLeft = style.direction === 'rtl' ? left : left + iconSize + gap;
      return [
        { input: svg(iconSize, iconSize, shape(iconSize)), left: Math.round(iconLeft), top: Math.round(top + (height - iconSize) / 2) },
        { input: text.buffer, left: Math.round(textLeft), top: Math.round(top + (height - text.height) / 2) },
      ];
    },
  };
}

const checkMark =
  (accent: string) =>
  (size: number): string =>
    `<circle cx="${size / 2}" cy="${size / 2}" r="${size / 2}" fill="${accent}"/>` +
    `<path d="M ${size * 0.27} ${size * 0.52} L ${size * 0.44} ${size * 0.68} L ${size * 0.74} ${size * 0.35}" stroke="${textOn(accent)}" stroke-width="${size * 0.12}" fill="none" stroke-linecap="round" stroke-linejoin="round"/>`;

const dot =
  (accent: string) =>
  (size: number): string =>
    `<circle cx="${size / 2}" cy="${size / 2}" r="${size / 2.6}" fill="${accent}"/>`;

function accentRule(style: CardStyle, width: number): Block {
  return {
    width,
    height: 4,
    layers: (left, top) => [
      {
        input: svg(width, 4, `<rect width="${width}" height="4" rx="2" fill="${style.accent}"/>`),
        left: Math.round(left),
        top: Math.round(top),
      },
    ],
  };
}

/** Stat cells side by side (or two per row when too wide), separated by thin rules. */
function statsGrid(style: CardStyle, cells: { value: TextImage; label: TextImage }[], maxWidth: number): Block {
  const gapX = 44;
  const cellWidth = Math.max(...cells.map((c) => Math.max(c.value.width, c.label.width)));
  const perRow = cells.length * cellWidth + (cells.length - 1) * gapX <= maxWidth ? cells.length : 2;
  const rows = Math.ceil(cells.length / perRow);
  // Every label on one line, under the tallest value: an Arabic value with a deep letter ("م")
  // is taller than a lone digit, which put its label lower than the others.
  const valueHeight = Math.max(...cells.map((c) => c.value.height));
  const cellHeight = valueHeight + 6 + Math.max(...cells.map((c) => c.label.height));
  const gapY = 22;
  const width = perRow * cellWidth + (perRow - 1) * gapX;
  const height = rows * cellHeight + (rows - 1) * gapY;
  return {
    width,
    height,
    layers: (left, top) => {
      const layers: OverlayOptions[] = [];
      cells.forEach((cell, i) => {
        const row = Math.floor(i / perRow);
        let col = i % perRow;
        if (style.direction === 'rtl') col = perRow - 1 - col;
        const x = left + col * (cellWidth + gapX);
        const y = top + row * (cellHeight + gapY);
        layers.push({ input: cell.value.buffer, left: Math.round(x + (cellWidth - cell.value.width) / 2), top: Math.round(y) });
        layers.push({
          input: cell.label.buffer,
          left: Math.round(x + (cellWidth - cell.label.width) / 2),
          top: Math.round(y + valueHeight + 6),
        });
        if (col > 0) {
          const ruleX = Math.round(x - gapX / 2);
          layers.push({
            input: svg(2, cellHeight, `<rect width="2" height="${cellHeight}" fill="#FFFFFF" fill-opacity="0.25"/>`),
            left: ruleX,
            top: Math.round(y),
          });
        }
      });
      return layers;
    },
  };
}

function logoBlock(logo: { buffer: Buffer; width: number; height: number }, plate: number): Block {
  const width = logo.width + plate * 2;
  const height = logo.height + plate * 2;
  return {
    width,
    height,
    layers: (left, top) => [
      {
        input: svg(
          width,
          height,
          `<rect width="${width}" height="${height}" rx="${Math.min(12, plate)}" fill="#FFFFFF" fill-opacity="0.94"/>`,
        ),
        left: Math.round(left),
        top: Math.round(top),
      },
      { input: logo.buffer, left: Math.round(left + plate), top: Math.round(top + plate) },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Layout of the frame

interface Frame {
  margin: number;
  /** Lowest y a bottom card may reach (portrait keeps clear of app buttons and captions). */
  bottom: number;
  top: number;
  wide: boolean;
}

function frameOf(style: CardStyle): Frame {
  const { width, height } = style;
  if (height > width) return { margin: 40, bottom: height - 250, top: 150, wide: false };
  if (height === width) return { margin: 44, bottom: height - 56, top: 56, wide: false };
  return { margin: 56, bottom: height - 52, top: 48, wide: true };
}

type Anchor = 'lower_start' | 'lower_centre' | 'centre' | 'upper_end';

function place(style: CardStyle, image: { width: number; height: number; inset: number }, anchor: Anchor): { x: number; y: number } {
  const frame = frameOf(style);
  const { width, height } = style;
  const panelWidth = image.width - image.inset * 2;
  const panelHeight = image.height - image.inset * 2;
  let x: number;
  let y: number;
  switch (anchor) {
    case 'lower_start':
      x = style.direction === 'rtl' ? width - frame.margin - panelWidth : frame.margin;
      y = frame.bottom - panelHeight;
      break;
    case 'lower_centre':
      x = (width - panelWidth) / 2;
      y = frame.bottom - panelHeight;
      break;
    case 'upper_end':
      x = style.direction === 'rtl' ? frame.margin : width - frame.margin - panelWidth;
      y = frame.top;
      break;
    default:
      x = (width - panelWidth) / 2;
      y = (height - panelHeight) / 2;
  }
  // Never outside the frame, whatever the text length.
  x = Math.min(Math.max(0, x), Math.max(0, width - panelWidth));
  y = Math.min(Math.max(0, y), Math.max(0, height - panelHeight));
  return { x: Math.round(x - image.inset), y: Math.round(y - image.inset) };
}

export interface LogoImage {
  buffer: Buffer;
  width: number;
  height: number;
}

/** Draws one card; returns the PNG and where it sits in the frame. */
export async function drawCard(
  style: CardStyle,
  content: CardContent,
  logo: LogoImage | null,
): Promise<{ buffer: Buffer; x: number; y: number; width: number; height: number; rise: number }> {
  const { template, width } = style;
  const s = template.style.type_scale;
  const colors = template.colors;
  const frame = frameOf(style);
  const full = width - frame.margin * 2;
  const maxWidth = (share: number): number => (frame.wide ? Math.min(full, width * share) : full) - 60;
  const text = (spec: Omit<TextSpec, 'size'> & { size: number }): Promise<TextImage> => drawText(style, { ...spec, size: spec.size * s });
  const label = (value: string, max: number, color = readableOn(style.accent, colors.panel)): Promise<TextImage> =>
    text({
      text: value,
      bold: true,
      size: 19,
      color,
      maxWidth: max,
      tracking: template.style.uppercase_labels && style.direction === 'ltr' ? 2 : 0,
      body: true,
    });

  let blocks: Block[];
  let anchor: Anchor;
  let align: 'start' | 'centre' = 'start';
  let accentBar = true;
  let bare = false;
  let rise = 22;
  let minWidth = 0;
  switch (content.kind) {
    case 'title': {
      const max = maxWidth(0.62);
      blocks = [];
      if (content.badge !== null) {
        blocks.push(
          badgeBlock(
            style,
            await text({
              text: content.badge,
              bold: true,
              size: 18,
              color: textOn(style.accent),
              maxWidth: max,
              body: true,
              tracking: style.direction === 'ltr' ? 1.5 : 0,
            }),
          ),
          spacer(14),
        );
      }
      blocks.push(textBlock(await text({ text: content.heading, bold: true, size: 42, color: colors.text, maxWidth: max, maxLines: 3 })));
      // The place on its own line, clear of the title's descenders (Arabic ones run deep).
      if (content.subheading !== null)
        blocks.push(
          spacer(style.direction === 'rtl' ? 12 : 6),
          textBlock(await text({ text: content.subheading, size: 25, color: colors.muted, maxWidth: max, maxLines: 1, body: true })),
        );
      anchor = 'lower_start';
      break;
    }
    case 'callout': {
      const max = maxWidth(0.5);
      blocks = [
        iconRow(
          style,
          await text({ text: content.text, bold: true, size: 28, color: colors.text, maxWidth: max, maxLines: 1 }),
          Math.round(20 * s),
          dot(style.accent),
        ),
      ];
      anchor = 'lower_start';
      accentBar = false;
      rise = 16;
      break;
    }
    case 'features': {
      const max = maxWidth(0.46);
      blocks = [textBlock(await label(content.heading, max)), spacer(14)];
      for (const [i, item] of content.items.entries()) {
        if (i > 0) blocks.push(spacer(12));
        blocks.push(
          iconRow(
            style,
            await text({ text: item, size: 29, color: colors.text, maxWidth: max - 50, maxLines: 1, body: true }),
            Math.round(30 * s),
            checkMark(style.accent),
          ),
        );
      }
      anchor = frame.wide ? 'lower_start' : 'centre';
      break;
    }
    case 'stats': {
      const max = maxWidth(0.86);
      const cells = [];
      for (const item of content.items) {
        cells.push({
          value: await text({
            text: item.value,
            bold: true,
            size: item.value.length > 9 ? 32 : 42,
            color: colors.text,
            maxWidth: 320,
            maxLines: 1,
          }),
          label: await text({ text: item.label, size: 18, color: colors.muted, maxWidth: 260, maxLines: 1, body: true }),
        });
      }
      blocks = [textBlock(await label(content.heading, max)), spacer(16), statsGrid(style, cells, max)];
      anchor = frame.wide ? 'lower_centre' : 'centre';
      align = 'centre';
      accentBar = false;
      break;
    }
    case 'price': {
      const max = maxWidth(0.58);
      blocks = [
        textBlock(await label(content.label, max)),
        spacer(8),
        textBlock(await text({ text: content.price, bold: true, size: 60, color: colors.text, maxWidth: max, maxLines: 1 })),
      ];
      for (const detail of content.details)
        blocks.push(
          spacer(6),
          textBlock(await text({ text: detail, size: 23, color: colors.muted, maxWidth: max, maxLines: 2, body: true })),
        );
      anchor = frame.wide ? 'lower_start' : 'centre';
      break;
    }
    case 'angle': {
      const max = maxWidth(0.74);
      blocks = [
        accentRule(style, 64),
        spacer(16),
        textBlock(
          await text({ text: content.text, size: 30, color: colors.text, maxWidth: max, maxLines: 3, align: 'centre', body: true }),
        ),
      ];
      anchor = 'lower_centre';
      align = 'centre';
      accentBar = false;
      break;
    }
    case 'contact': {
      const max = maxWidth(0.7);
      blocks = [];
      if (logo !== null) blocks.push(logoBlock(logo, 14), spacer(22));
      blocks.push(textBlock(await label(content.heading, max)), spacer(10));
      if (content.name !== null)
        blocks.push(
          textBlock(await text({ text: content.name, bold: true, size: 48, color: colors.text, maxWidth: max, maxLines: 2 })),
          spacer(4),
        );
      if (content.agency !== null)
        blocks.push(textBlock(await text({ text: content.agency, size: 29, color: colors.muted, maxWidth: max, maxLines: 2, body: true })));
      if (content.lines.length > 0) blocks.push(spacer(20), accentRule(style, 56), spacer(20));
      for (const [i, line] of content.lines.entries()) {
        if (i > 0) blocks.push(spacer(8));
        blocks.push(textBlock(await text({ text: line, size: 32, color: colors.text, maxWidth: max, maxLines: 1, body: true })));
      }
      anchor = 'centre';
      align = 'centre';
      accentBar = false;
      rise = 0;
      minWidth = 420;
      break;
    }
    case 'closing': {
      const max = maxWidth(0.72);
      blocks = [
        textBlock(
          await text({ text: content.heading, bold: true, size: 40, color: colors.text, maxWidth: max, maxLines: 3, align: 'centre' }),
        ),
      ];
      if (content.subheading !== null)
        blocks.push(
          spacer(8),
          textBlock(await text({ text: content.subheading, size: 25, color: colors.muted, maxWidth: max, maxLines: 1, body: true })),
        );
      if (content.price !== null)
        blocks.push(
          spacer(20),
          accentRule(style, 48),
          spacer(20),
          textBlock(await text({ text: content.price, bold: true, size: 40, color: colors.text, maxWidth: max, maxLines: 1 })),
        );
      blocks.push(spacer(16), textBlock(await label(content.note, max, colors.muted)));
      anchor = 'centre';
      align = 'centre';
      accentBar = false;
      bare = true;
      rise = 0;
      break;
    }
  }
  const image = await panel(style, { blocks, align, pad: bare ? 0 : content.kind === 'contact' ? 36 : 26, accentBar, minWidth, bare });
  const position = place(style, image, anchor);
  return { buffer: image.buffer, width: image.width, height: image.height, rise, ...position };
}

/** The small agency mark kept in a corner during the video. */
export async function drawBrandBug(
  style: CardStyle,
  agency: string | null,
  logo: LogoImage | null,
): Promise<{ buffer: Buffer; x: number; y: number; width: number; height: number }> {
  let block: Block;
  if (logo !== null) block = logoBlock(logo, 8);
  else
    block = textBlock(
      await drawText(style, { text: agency ?? '', bold: true, size: 19, color: style.template.colors.text, maxWidth: 300, maxLines: 1 }),
    );
  const image = await panel(style, { blocks: [block], align: 'start', pad: logo !== null ? 0 : 12, accentBar: false, bare: logo !== null });
  return { buffer: image.buffer, width: image.width, height: image.height, ...place(style, image, 'upper_end') };
}

/** Draws every card of a timeline into `dir`; returns them placed, by card id. */
export async function drawTimelineCards(
  timeline: Timeline,
  style: CardStyle,
  dir: string,
  logo: LogoImage | null,
  signal?: AbortSignal,
): Promise<{ cards: Map<string, PlacedImage>; brandBug: PlacedImage | null }> {
  const cards = new Map<string, PlacedImage>();
  const all: Card[] = timeline.shots.flatMap((shot) => shot.cards);
  for (const card of all) {
    signal?.throwIfAborted();
    const drawn = await drawCard(style, card.content, card.content.kind === 'contact' && card.content.logo ? logo : null);
    const file = join(dir, `card-${card.id}.png`);
    await writeFile(file, drawn.buffer, { mode: PRIVATE_FILE_MODE });
    cards.set(card.id, { file, x: drawn.x, y: drawn.y, width: drawn.width, height: drawn.height, rise: drawn.rise });
  }
  let brandBug: PlacedImage | null = null;
  if (timeline.brandBug !== null) {
    const drawn = await drawBrandBug(style, timeline.brandBug.agency, timeline.brandBug.logo ? logo : null);
    const file = join(dir, 'brand-bug.png');
    await writeFile(file, drawn.buffer, { mode: PRIVATE_FILE_MODE });
    brandBug = { file, x: drawn.x, y: drawn.y, width: drawn.width, height: drawn.height };
  }
  return { cards, brandBug };
}
