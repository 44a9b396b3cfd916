import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Branding } from '../core/requests.js';
import { DEMO_DIR } from './package-files.js';
import { isImageFileName } from '../core/images.js';

/**
 * The bundled demo (`immoreel render --demo`): the sample listing text, eight photos made for the
 * project (scripts/make-demo-photos.ts) and an agency branding sample with its logo. Offline.
 */

export function demoListingText(dir: string = DEMO_DIR): string {
  return readFileSync(join(dir, 'listing.txt'), 'utf8');
}

/** The demo photos, in order (file names start with their position). */
export function demoPhotos(dir: string = DEMO_DIR): string[] {
  const photos = join(dir, 'photos');
  if (!existsSync(photos)) return [];
  return readdirSync(photos)
    .filter((name) => isImageFileName(name))
    .sort()
    .map((name) => join(photos, name));
}

/** The demo agency: name, agent, contact and colour, plus the logo shipped beside it. */
export function demoBranding(dir: string = DEMO_DIR): Branding {
  const branding = JSON.parse(readFileSync(join(dir, 'branding.json'), 'utf8')) as Branding;
  const logo = join(dir, 'logo.png');
  return existsSync(logo) ? { ...branding, logo_url: logo } : branding;
}
