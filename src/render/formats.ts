import type { VideoFormat } from '../core/types.js';

/** Output frame sizes (docs/rendering.md): the contract's 1280x720, and the vertical and square variants. */
export const FORMAT_SIZES: Readonly<Record<VideoFormat, { width: number; height: number }>> = {
  landscape: { width: 1280, height: 720 },
  portrait: { width: 720, height: 1280 },
  square: { width: 720, height: 720 },
};

/** Constant output frame rate (docs/rendering.md). */
export const FPS = 60;
/** Audio of every video: AAC-LC, 48 kHz, stereo, 160 kbps (docs/rendering.md). */
export const AUDIO_RATE = 48_000;
export const AUDIO_BITRATE_KBPS = 160;
/** Longest gap between two keyframes (docs/rendering.md); the encoder is asked for one every second. */
export const MAX_KEYFRAME_INTERVAL_S = 2;
export { MAX_DURATION_S, MIN_DURATION_S } from '../core/requests.js';
