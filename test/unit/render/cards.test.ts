import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  drawBrandBug,
  drawCard,
  drawText,
  prepareText,
  readableOn,
  textMarkup,
  textOn,
  type CardStyle,
} from '../../../src/render/cards.js';
import { loadTemplate } from '../../../src/render/templates.js';
import { FONT_FAMILIES, familyCovers, shippedFontsConfig, type FontFamily } from '../../../src/render/fonts.js';

// As the CLI does at start-up (src/cli/main.ts): text is drawn with the shipped fonts only.
process.env.FONTCONFIG_FILE = shippedFontsConfig();

const template = loadTemplate('classic');
const ltr: CardStyle = { template, accent: template.colors.accent, direction: 'ltr', width: 1280, height: 720 };
const rtl: CardStyle = { ...ltr, direction: 'rtl' };

/** Columns of the image that hold visible ink, as [first, last]. */
async function inkColumns(buffer: Buffer): Promise<[number, number]> {
  const { data, info } = await sharp(buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let first = info.width;
  let last = -1;
  for (let x = 0; x < info.width; x += 1) {
    for (let y = 0; y < info.height; y += 1) {
      if ((data[(y * info.width + x) * 4 + 3] as number) > 128) {
        first = Math.min(first, x);
        last = Math.max(last, x);
        break;
      }
    }
  }
  return [first, last];
}

/** Opaque pixels in each column of a text image. */
async function columnInk(buffer: Buffer): Promise<number[]> {
  const { data, info } = await sharp(buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const ink = new Array<number>(info.width).fill(0);
  for (let y = 0; y < info.height; y += 1)
    for (let x = 0; x < info.width; x += 1) if ((data[(y * info.width + x) * 4 + 3] as number) > 128) ink[x] = (ink[x] as number) + 1;
  return ink;
}

/** Opaque pixels of a clearly coloured hue (text and panels are grey or the accent; an emoji is not). */
async function colourfulPixels(buffer: Buffer): Promise<number> {
  const { data, info } = await sharp(buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let i = 0; i < info.width * info.height * 4; i += 4) {
    const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]] as [number, number, number, number];
    if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 90) count += 1;
  }
  return count;
}

describe('text cards', () => {
  it('draws an emoji in an agency name in colour, at the size of the text, not as a missing-glyph box', async () => {
    const agency = 'وكالة الأطلس العقارية';
    const plain = await drawBrandBug(rtl, agency, null);
    const emoji = await drawBrandBug(rtl, `${agency} 🏠`, null);
    // U+E000 (private use) is in no shipped font: the box every missing glyph is drawn as.
    const missing = await drawBrandBug(rtl, `${agency} \uE000`, null);
    const [emojiColour, missingColour, plainColour] = await Promise.all(
      [emoji, missing, plain].map((card) => colourfulPixels(card.buffer)),
    );
    expect(emojiColour - plainColour).toBeGreaterThan(40);
    expect(missingColour - plainColour).toBeLessThan(20);
    // Scaled to the 19 px line, not drawn at the font's 136 px bitmap size.
    expect(emoji.height).toBeLessThanOrEqual(plain.height + 8);
    expect(emoji.width - plain.width).toBeLessThan(40);
    // The contact card at the end shows the same name the same way.
    const contact = await drawCard(
      ltr,
      { kind: 'contact', heading: 'CONTACT', name: null, agency: `${agency} 🏠`, lines: [], logo: false },
      null,
    );
    const contactPlain = await drawCard(ltr, { kind: 'contact', heading: 'CONTACT', name: null, agency, lines: [], logo: false }, null);
    expect((await colourfulPixels(contact.buffer)) - (await colourfulPixels(contactPlain.buffer))).toBeGreaterThan(40);
  });

  it('keeps digit groups together and never lets user text break the markup', () => {
    expect(prepareText('1 850 000 درهم')).toBe('1\u202F850\u202F000\u00A0درهم');
    expect(prepareText('Terrasse de 15 m², au 3e étage')).toBe('Terrasse de 15\u00A0m², au 3e étage');
    expect(prepareText('  Villa\n<b>"Rêve"</b> & co  ')).toBe('Villa <b>"Rêve"</b> & co');
  });

  it('shapes Arabic: joined letters are narrower than the same letters kept apart', async () => {
    const joined = await drawText(rtl, { text: 'مطبخ مجهز', size: 40, color: '#FFFFFF', maxWidth: 800 });
    // U+200C (zero-width non-joiner) between letters forbids joining: isolated forms, wider.
    const apart = await drawText(rtl, { text: 'م\u200Cط\u200Cب\u200Cخ م\u200Cج\u200Cه\u200Cز', size: 40, color: '#FFFFFF', maxWidth: 800 });
    expect(joined.width).toBeGreaterThan(60);
    expect(joined.width).toBeLessThan(apart.width * 0.92);
  });

  it('draws an Arabic price line right to left with the number kept left to right', async () => {
    // "1 850 000 درهم" read right to left: the number first (rightmost, its digits still left to
    // right), then the currency word on its left. Without U+202F the groups would come out as "000 850 1".
    const line = await drawText(rtl, { text: '1 850 000 درهم', size: 40, color: '#FFFFFF', maxWidth: 800 });
    const digits = await drawText(rtl, { text: '1 850 000', size: 40, color: '#FFFFFF', maxWidth: 800 });
    const word = await drawText(rtl, { text: 'درهم', size: 40, color: '#FFFFFF', maxWidth: 800 });
    // Width of the whole ≈ parts + a space: nothing dropped or duplicated.
    expect(Math.abs(line.width - (digits.width + word.width))).toBeLessThan(40);
    // Ink per column: the line's right part looks like the number, its left part like the word.
    const [lineInk, digitsInk, wordInk] = await Promise.all([line, digits, word].map((t) => columnInk(t.buffer)));
    const distance = (a: number[], b: number[]): number =>
      a.reduce((sum, v, i) => sum + Math.abs(v - (b[i] ?? 0)), 0) /
      Math.max(
        1,
        b.reduce((x, y) => x + y, 0),
      );
    const numberRight = distance(lineInk.slice(lineInk.length - digitsInk.length), digitsInk);
    const numberLeft = distance(lineInk.slice(0, digitsInk.length), digitsInk);
    const wordLeft = distance(lineInk.slice(0, wordInk.length), wordInk);
    expect(numberRight).toBeLessThan(0.2);
    expect(wordLeft).toBeLessThan(0.2);
    expect(numberLeft).toBeGreaterThan(0.3);
    // The digit groups stay in order: the line's number part matches "1 850 000", not "000 850 1".
    const reversed = await drawText(ltr, { text: '000 850 1', size: 40, color: '#FFFFFF', maxWidth: 800 });
    expect(distance(lineInk.slice(lineInk.length - digitsInk.length), await columnInk(reversed.buffer))).toBeGreaterThan(0.3);
  });

  it('keeps a very long title inside the frame by shrinking it, then shortening it', async () => {
    const title =
      'Magnifique appartement de standing entièrement rénové avec grande terrasse, vue mer, piscine, garage, jardin privatif et concierge 24h/24 — Anfa, Casablanca';
    const card = await drawCard(ltr, { kind: 'title', badge: 'À VENDRE', heading: title, subheading: 'Anfa, Casablanca' }, null);
    expect(card.x).toBeGreaterThanOrEqual(0);
    expect(card.y).toBeGreaterThanOrEqual(0);
    expect(card.x + card.width).toBeLessThanOrEqual(1280 + 40);
    expect(card.y + card.height).toBeLessThanOrEqual(720 + 40);
    expect(card.height).toBeLessThan(360);
    const [first] = await inkColumns(card.buffer);
    expect(first).toBeGreaterThanOrEqual(0);
  });

  it('mirrors the layout right to left for Arabic', async () => {
    const fr = await drawCard(ltr, { kind: 'callout', text: 'Terrasse' }, null);
    const ar = await drawCard(rtl, { kind: 'callout', text: 'تراس' }, null);
    expect(fr.x).toBeLessThan(640);
    expect(ar.x + ar.width / 2).toBeGreaterThan(640);
  });

  it('picks readable colours on the panel and on accent badges', () => {
    expect(textOn('#FFE14D')).toBe('#111111');
    expect(textOn('#1F3A93')).toBe('#FFFFFF');
    expect(readableOn('#2F80ED', '#0D1B2A')).not.toBe('#2F80ED');
    expect(readableOn('#FFFFFF', '#0D1B2A')).toBe('#FFFFFF');
  });
});

describe('Arabic text', () => {
  /** The last column with ink on each line of text (lines are bands of rows with ink, split by empty rows). */
  async function lineEnds(buffer: Buffer): Promise<{ start: number; end: number }[]> {
    const { data, info } = await sharp(buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const ink = (x: number, y: number): boolean => (data[(y * info.width + x) * 4 + 3] as number) > 128;
    const rows = Array.from({ length: info.height }, (_, y) => Array.from({ length: info.width }, (_, x) => ink(x, y)));
    const lines: { start: number; end: number; top: number }[] = [];
    let current: { start: number; end: number; top: number } | null = null;
    rows.forEach((row, y) => {
      const first = row.indexOf(true);
      if (first === -1) {
        current = null;
        return;
      }
      if (current === null) {
        current = { start: first, end: row.lastIndexOf(true), top: y };
        lines.push(current);
      } else {
        current.start = Math.min(current.start, first);
        current.end = Math.max(current.end, row.lastIndexOf(true));
      }
    });
    return lines.map(({ start, end }) => ({ start, end }));
  }

  it('puts every line of a wrapped Arabic title against the right edge, one starting with a number too', async () => {
    for (const text of ['شقة 3 غرف نوم للبيع في المعاريف الدار البيضاء مع مسبح', '120 م² في المعاريف، الدار البيضاء وسط المدينة']) {
      const image = await drawText(rtl, { text, size: 40, color: '#FFFFFF', maxWidth: 360, maxLines: 4 });
      const lines = await lineEnds(image.buffer);
      expect(lines.length, text).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(image.width - 1 - line.end, text).toBeLessThan(8);
      // Ragged on the left: not every line fills the width.
      expect(Math.max(...lines.map((l) => l.start)), text).toBeGreaterThan(20);
    }
  });

  /** Each character of a text's markup with the family that draws it: its span's `font_family`, else the first family of the font description. */
  function charsWithFamily(markup: string, font: string): { char: string; family: string; superscript: boolean }[] {
    const base = font.split(',')[0] as string;
    const stack: { family: string; superscript: boolean }[] = [{ family: base, superscript: false }];
    const out: { char: string; family: string; superscript: boolean }[] = [];
    const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    for (const token of markup.match(/<\/?span[^>]*>|&\w+;|[^<&]/gsu) ?? []) {
      const top = stack[stack.length - 1] as { family: string; superscript: boolean };
      if (token.startsWith('</')) stack.pop();
      else if (token.startsWith('<')) {
        stack.push({
          family: /font_family="([^"]+)"/.exec(token)?.[1] ?? top.family,
          superscript: top.superscript || token.includes('baseline_shift="superscript"'),
        });
      } else out.push({ char: token.startsWith('&') ? (entities[token.slice(1, -1)] as string) : token, ...top });
    }
    return out;
  }

  it('draws every character of an Arabic unit, price or percentage with the font the card asks for: "م²" with a superscript of the Arabic font', () => {
    const texts = ['120 م²', '85,5 م²', '15 417 درهم/م²', '1 850 000 درهم', 'أقل بـ 8% من متوسط الحي'];
    for (const name of ['classic', 'luxury', 'social']) {
      const style: CardStyle = { ...rtl, template: loadTemplate(name) };
      for (const body of [false, true])
        for (const text of texts) {
          const spec = { text, size: 42, color: '#FFFFFF', maxWidth: 600, body };
          const { markup, font } = textMarkup(style, spec, prepareText(text), 42);
          const chars = charsWithFamily(markup, font);
          for (const { char, family } of chars) {
            if (/[\s\p{Cf}]/u.test(char)) continue; // spaces and bidi marks have no ink
            expect(FONT_FAMILIES as readonly string[], `${name} ${text}`).toContain(family);
            expect(
              familyCovers(family as FontFamily, char),
              `${name} "${text}": "${char}" (U+${char.codePointAt(0)?.toString(16)}) in ${family}`,
            ).toBe(true);
          }
          if (text.includes('م²')) {
            // Read in order: the number, the no-break space, "م", then its raised "2" in the same font.
            const visible = chars.map((c) => c.char).join('');
            expect(visible).toMatch(/\d\u00A0(درهم\/)?م2$/u);
            const two = chars[chars.length - 1];
            expect(two).toMatchObject({ char: '2', superscript: true, family: font.split(',')[0] });
          }
        }
    }
  });

  it('raises the "2" of "م²" no higher than the digits and puts it after "م", on its left', async () => {
    const [unit, bare] = await Promise.all(
      ['120 م²', '120 م'].map((text) => drawText(rtl, { text, size: 42, bold: true, color: '#FFFFFF', maxWidth: 600 })),
    );
    expect(unit!.width - bare!.width).toBeGreaterThan(8);
    const ink = async (buffer: Buffer, columns: [number, number]): Promise<[number, number]> => {
      const { data, info } = await sharp(buffer).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      let top = info.height;
      let bottom = -1;
      for (let y = 0; y < info.height; y += 1)
        for (let x = columns[0]; x < columns[1]; x += 1)
          if ((data[(y * info.width + x) * 4 + 3] as number) > 128) {
            top = Math.min(top, y);
            bottom = Math.max(bottom, y);
          }
      return [top, bottom];
    };
    // The number is the right-hand part of both images: the same ink rows.
    const digits = await ink(bare!.buffer, [bare!.width - 40, bare!.width]);
    // The superscript is the left-hand extra part: raised (its foot in the digits' upper two
    // thirds, like the x-height of "m²"), not above them.
    const superscript = await ink(unit!.buffer, [0, unit!.width - bare!.width - 2]);
    expect(superscript[0]).toBeGreaterThanOrEqual(digits[0] - 1);
    expect(superscript[1]).toBeLessThan(digits[0] + ((digits[1] - digits[0]) * 2) / 3);
  });
});
