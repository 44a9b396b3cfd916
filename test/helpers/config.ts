import { loadConfig } from '../../src/config/index.js';
import { shippedFontsConfig } from '../../src/render/fonts.js';

/**
 * The configuration of the test process, read as the CLI reads it at start-up (docs/configuration.md):
 * the tests that run the engine in this process hand its parts down, as the entry points do.
 */
export const TEST_CONFIG = loadConfig({ env: process.env });
/** Where ffmpeg and ffprobe are for in-process renders (FFMPEG_PATH, FFPROBE_PATH, PATH of the test run). */
export const TEST_FFMPEG = TEST_CONFIG.ffmpeg;

// Text drawn in this process uses the shipped fonts, as in the CLI (src/cli/main.ts): fontconfig
// reads FONTCONFIG_FILE once, at the first text.
process.env.FONTCONFIG_FILE = shippedFontsConfig();
