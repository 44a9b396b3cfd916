import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import type { Language, Property } from '../core/types.js';
import { drawCard } from './cards.js';
import { analyzeListing } from '../analysis/analyze.js';
import { demoBranding, demoListingText, demoPhotos } from './demo.js';
import { FORMAT_SIZES } from './formats.js';
import { buildStoryboard } from './storyboard.js';
import { loadTemplate, type Template } from './templates.js';

/**
 * A template's still (docs/studio.md "Templates and formats"): its title card over the intro's
 * photo, drawn by the renderer's own code (storyboard for the card's words, cards.ts for the card)
 * from the bundled demo listing, so the Studio's template picker shows each template as its videos
 * look. Drawn once per template, language and template file, then read from the cache directory.
 */

/** The still's size: a landscape frame at half the video's width (what a picker tile shows, with room for a 2× screen). */
export const STILL_WIDTH = 640;
export const STILL_HEIGHT = 360;

/** Bumped when the drawing changes, so cached stills of the old drawing are not served. */
const DRAWING_VERSION = 1;

/** The bundled demo listing analysed once per language and process (a known text: no network, a few ms). */
const demoListings = new Map<Language, Promise<Property>>();
function demoListing(language: Language): Promise<Property> {
  let listing = demoListings.get(language);
  if (listing === undefined) {
    listing = analyzeListing({ description: demoListingText(), language });
    listing.catch(() => demoListings.delete(language));
    demoListings.set(language, listing);
  }
  return listing;
}

/** Draws in progress, by cache file: requests for one still at once (a picker asks for three) share one draw. */
const drawing = new Map<string, Promise<Buffer>>();

/**
 * The JPEG still of template `name` with its title card in `language`, kept in `cacheDir`
 * (`<data dir>/cache/stills`). The template must exist (`templateExists`).
 */
export async function templateStill(name: string, language: Language, cacheDir: string): Promise<Buffer> {
  const template = loadTemplate(name);
  const version = createHash('sha256').update(JSON.stringify({ template, language, DRAWING_VERSION })).digest('hex').slice(0, 16);
  const file = join(cacheDir, `${name}-${language}-${version}.jpg`);
  const cached = await readFile(file).catch(() => null);
  if (cached !== null) return cached;
  let draw = drawing.get(file);
  if (draw === undefined) {
    draw = drawStill(template, language, cacheDir, file).finally(() => drawing.delete(file));
    drawing.set(file, draw);
  }
  return draw;
}

async function drawStill(template: Template, language: Language, cacheDir: string, file: string): Promise<Buffer> {
  const listing = await demoListing(language);
  const photo = demoPhotos()[0];
  if (photo === undefined) throw new Error('the bundled demo photos are missing (assets/demo/photos)');
  const { width, height } = FORMAT_SIZES.landscape;
  const source = sharp(photo).rotate();
  const meta = await source.metadata();
  const timeline = buildStoryboard({
    template,
    listing,
    photos: [{ width: meta.width ?? width, height: meta.height ?? height }],
    format: 'landscape',
    durationS: template.default_duration_s,
    language,
    branding: { ...demoBranding(), logo_url: undefined },
    hasLogo: false,
  });
  const title = timeline.shots.flatMap((shot) => shot.cards).find((card) => card.content.kind === 'title');
  const overlays: sharp.OverlayOptions[] = [];
  if (title !== undefined) {
    const style = { template, accent: template.colors.accent, direction: timeline.direction, width, height };
    const card = await drawCard(style, title.content, null);
    overlays.push({ input: card.buffer, left: card.x, top: card.y });
  }
  const frame = await source.resize(width, height, { fit: 'cover' }).composite(overlays).png().toBuffer();
  const still = await sharp(frame).resize(STILL_WIDTH, STILL_HEIGHT).jpeg({ quality: 78, mozjpeg: true }).toBuffer();
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // Written aside, then renamed: two first requests at once never serve half a file.
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, still, { mode: PRIVATE_FILE_MODE });
  await rename(temp, file);
  return still;
}
