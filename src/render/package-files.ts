import { fileURLToPath } from 'node:url';

/**
 * Where the files shipped with the package live. This module sits at src/render/ (dist/render/
 * once built), two levels below the package root, so the same relative URL works from both.
 */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));
export const FONTS_DIR = fileURLToPath(new URL('../../assets/fonts/', import.meta.url));
export const MUSIC_DIR = fileURLToPath(new URL('../../assets/music/', import.meta.url));
export const DEMO_DIR = fileURLToPath(new URL('../../assets/demo/', import.meta.url));
