/**
 * `npm run contact-sheets`: the contact sheets of docs/rendering.md ("Contact sheets"), one per
 * template × language, a row per format, a frame per shot of the bundled demo (the moment its
 * card is fully shown: the still framed as at the middle of its motion, its cards and the corner
 * mark laid over it), drawn by the renderer's own storyboard, stills and cards without encoding a
 * video. Also the before/after frames of docs/rendering.md "Framing". Offline; a few seconds a sheet.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { analyzeListing } from '../src/analysis/analyze.js';
import type { Language, Property, VideoFormat } from '../src/core/types.js';
import { normalizePhoto, prepareLogo, prepareShotSource, type MasterPhoto } from '../src/render/assets/photos.js';
import { drawTimelineCards, type CardStyle, type LogoImage } from '../src/render/cards.js';
import { demoBranding, demoListingText, demoPhotos } from '../src/render/demo.js';
import { shippedFontsConfig } from '../src/render/fonts.js';
import { FORMAT_SIZES } from '../src/render/formats.js';
import { buildStoryboard, type Shot, type Timeline } from '../src/render/storyboard.js';
import { listTemplates, loadTemplate, stillBackground, type Template } from '../src/render/templates.js';
import { openFetch } from '../src/net/fetch.js';
import { readFile } from 'node:fs/promises';
import { photoWithSubject } from '../test/helpers/subject-photos.js';

process.env.FONTCONFIG_FILE = shippedFontsConfig();
const OUT = join(import.meta.dirname, '..', 'docs', 'contact-sheets');
const FORMATS: VideoFormat[] = ['landscape', 'portrait', 'square'];
const LANGUAGES: Language[] = ['fr', 'en', 'ar'];
/** Height of a frame on a sheet. */
const ROW_HEIGHT = 200;
const GAP = 6;
const work = mkdtempSync(join(tmpdir(), 'immoreel-sheets-'));
const cacheDir = join(work, 'cache');

/** A frame of a shot: its still cut to the frame as at `t` of its motion (0 first frame, 1 last). */
async function frameOf(still: string, shot: Shot, frame: { width: number; height: number }, t: number): Promise<Buffer> {
  const { motion, source } = shot;
  if (motion.type === 'pan') {
    const along = motion.from + (motion.to - motion.from) * t;
    const left = motion.axis === 'x' ? Math.round((source.width - frame.width) * along) : Math.round((source.width - frame.width) / 2);
    const top = motion.axis === 'y' ? Math.round((source.height - frame.height) * along) : Math.round((source.height - frame.height) / 2);
    return sharp(still).extract({ left, top, width: frame.width, height: frame.height }).toBuffer();
  }
  const scale = motion.from + (motion.to - motion.from) * t;
  const width = 2 * Math.round((frame.width * scale) / 2);
  const height = 2 * Math.round((frame.height * scale) / 2);
  const scaled = await sharp(still).resize(width, height, { fit: 'fill' }).toBuffer();
  return sharp(scaled)
    .extract({
      left: Math.round((width - frame.width) * motion.anchor.x),
      top: Math.round((height - frame.height) * motion.anchor.y),
      width: frame.width,
      height: frame.height,
    })
    .toBuffer();
}

/** One frame per shot of a timeline, cards and corner mark on it, each `ROW_HEIGHT` high. */
async function shotFrames(
  timeline: Timeline,
  template: Template,
  photos: MasterPhoto[],
  logo: LogoImage | null,
  dir: string,
  accent: string,
): Promise<Buffer[]> {
  const frame = { width: timeline.width, height: timeline.height };
  const style: CardStyle = { template, accent, direction: timeline.direction, width: frame.width, height: frame.height };
  mkdirSync(dir, { recursive: true });
  const drawn = await drawTimelineCards(timeline, style, dir, logo);
  const frames: Buffer[] = [];
  for (const shot of timeline.shots) {
    const still = await prepareShotSource(photos[shot.photo] as MasterPhoto, shot, cacheDir, stillBackground(template));
    const base = await frameOf(still, shot, frame, 0.5);
    const layers = shot.cards.flatMap((card) => {
      const placed = drawn.cards.get(card.id);
      return placed === undefined ? [] : [{ input: placed.file, left: placed.x, top: placed.y }];
    });
    if (drawn.brandBug !== null && shot.scene !== 'outro')
      layers.push({ input: drawn.brandBug.file, left: drawn.brandBug.x, top: drawn.brandBug.y });
    const composed = await sharp(base).composite(layers).toBuffer();
    frames.push(await sharp(composed).resize({ height: ROW_HEIGHT }).toBuffer());
  }
  return frames;
}

/** Rows of frames side by side on a dark sheet. */
async function sheet(rows: Buffer[][], file: string): Promise<void> {
  const sizes = await Promise.all(rows.map((row) => Promise.all(row.map(async (b) => (await sharp(b).metadata()).width ?? 0))));
  const width = Math.max(...sizes.map((row) => row.reduce((a, b) => a + b + GAP, GAP)));
  const height = rows.length * (ROW_HEIGHT + GAP) + GAP;
  const layers: sharp.OverlayOptions[] = [];
  rows.forEach((row, r) => {
    let x = GAP;
    row.forEach((input, i) => {
      layers.push({ input, left: x, top: GAP + r * (ROW_HEIGHT + GAP) });
      x += (sizes[r]?.[i] ?? 0) + GAP;
    });
  });
  await sharp({ create: { width, height, channels: 3, background: '#1B1B1F' } })
    .composite(layers)
    .jpeg({ quality: 78, mozjpeg: true })
    .toFile(file);
  console.log(`wrote ${file}`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const branding = demoBranding();
  const assets = { cacheDir, allowLocalFiles: true, fetch: openFetch };
  const photos = await Promise.all(demoPhotos().map(async (file, i) => normalizePhoto(await readFile(file), `demo-${i + 1}`, cacheDir)));
  const logo = branding.logo_url === undefined ? null : await prepareLogo(branding.logo_url, assets);
  const listings = new Map<Language, Property>();
  for (const language of LANGUAGES) listings.set(language, await analyzeListing({ description: demoListingText(), language }));
  for (const name of listTemplates()) {
    const template = loadTemplate(name);
    for (const language of LANGUAGES) {
      const rows: Buffer[][] = [];
      for (const format of FORMATS) {
        const timeline = buildStoryboard({
          template,
          listing: listings.get(language) as Property,
          photos,
          format,
          durationS: template.default_duration_s,
          language,
          branding,
          hasLogo: logo !== null,
        });
        rows.push(
          await shotFrames(
            timeline,
            template,
            photos,
            logo,
            join(work, `${name}-${language}-${format}`),
            branding.primary_color ?? template.colors.accent,
          ),
        );
      }
      await sheet(rows, join(OUT, `${name}-${language}.jpg`));
    }
  }
  await framingBeforeAfter();
}

/**
 * docs/rendering.md "Framing": a 3000 × 2000 photo whose subject is at 15 % of its width, its
 * portrait shots' first and last frames, framed around the photo's centre (as before) and around
 * its subject (now).
 */
async function framingBeforeAfter(): Promise<void> {
  const photo = await normalizePhoto(await photoWithSubject(3000, 2000, 0.15, 0.5), 'room.jpg', cacheDir);
  const template = loadTemplate('classic');
  const frame = FORMAT_SIZES.portrait;
  for (const [label, focus] of [
    ['before', { x: 0.5, y: 0.5 }],
    ['after', photo.focus],
  ] as const) {
    const framed = { ...photo, focus };
    const timeline = buildStoryboard({
      template,
      listing: listingsForFraming,
      photos: [framed, framed, framed],
      format: 'portrait',
      durationS: 16,
      language: 'en',
      branding: { unbranded: true },
      hasLogo: false,
    });
    const frames: Buffer[] = [];
    for (const shot of timeline.shots.filter((s) => s.look === 'plain').slice(0, 4)) {
      const still = await prepareShotSource(framed, shot, cacheDir, stillBackground(template));
      for (const t of [0, 1])
        frames.push(
          await sharp(await frameOf(still, shot, frame, t))
            .resize({ height: ROW_HEIGHT })
            .toBuffer(),
        );
    }
    await sheet([frames], join(OUT, `framing-${label}.jpg`));
  }
}

/** A listing with no facts: only photo shots, no cards over the frames. */
const listingsForFraming = (await analyzeListing({ description: 'Appartement à Casablanca.', language: 'en' })) as Property;

try {
  if (process.argv.includes('--framing-only')) await framingBeforeAfter();
  else await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
