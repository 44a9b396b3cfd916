import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, badRequest } from '../core/errors.js';
import { VIDEO_FORMATS, type VideoFormat } from '../core/types.js';
import { FONT_FAMILIES, type FontFamily } from './fonts.js';
import { MAX_DURATION_S, MIN_DURATION_S } from './formats.js';
import { MUSIC_MOODS, type MusicMood } from './music-tracks.js';
import { TEMPLATES_DIR } from './paths.js';

/**
 * Video templates (DESIGN §3): data in templates/<name>/template.json, validated on load so that
 * a broken template fails with the field that is wrong, before any photo is fetched.
 */

export const SCENE_KINDS = ['intro', 'photos', 'features', 'stats', 'price', 'angles', 'outro'] as const;
export type SceneKind = (typeof SCENE_KINDS)[number];

export const MOTION_KINDS = ['zoom_in', 'zoom_out', 'pan_left', 'pan_right', 'pan_up', 'pan_down'] as const;
export type MotionKind = (typeof MOTION_KINDS)[number];

/**
 * Transitions drawn with overlay/fade (cheap: about 1.5 ms a frame on 2 cores), plus any of
 * ffmpeg 5.1's xfade transitions as `xfade:<name>` (about 7 ms a frame, measured; see
 * docs/rendering.md). Names are checked here because ffmpeg only fails at render time.
 */
export const BUILTIN_TRANSITIONS = ['cut', 'fade', 'fade_black', 'fade_white', 'slide_left', 'slide_right', 'slide_up', 'slide_down'] as const;
export type BuiltinTransition = (typeof BUILTIN_TRANSITIONS)[number];
/** xfade transitions of ffmpeg 5.1 (`ffmpeg -h filter=xfade`), minus `custom`. */
export const XFADE_TRANSITIONS = [
  'fade', 'wipeleft', 'wiperight', 'wipeup', 'wipedown', 'slideleft', 'slideright', 'slideup', 'slidedown',
  'circlecrop', 'rectcrop', 'distance', 'fadeblack', 'fadewhite', 'radial', 'smoothleft', 'smoothright',
  'smoothup', 'smoothdown', 'circleopen', 'circleclose', 'vertopen', 'vertclose', 'horzopen', 'horzclose',
  'dissolve', 'pixelize', 'diagtl', 'diagtr', 'diagbl', 'diagbr', 'hlslice', 'hrslice', 'vuslice', 'vdslice',
  'hblur', 'fadegrays', 'wipetl', 'wipetr', 'wipebl', 'wipebr', 'squeezeh', 'squeezev', 'zoomin',
] as const;
export type TransitionKind = BuiltinTransition | `xfade:${(typeof XFADE_TRANSITIONS)[number]}`;

export type SceneSpec =
  | { kind: 'intro'; duration_s: number }
  | { kind: 'photos'; share: number; callouts: boolean }
  | { kind: 'features'; duration_s: number; max_items: number }
  | { kind: 'stats'; duration_s: number }
  | { kind: 'price'; duration_s: number }
  | { kind: 'angles'; duration_s: number; count: number }
  | { kind: 'outro'; duration_s: number };

export interface Template {
  name: string;
  description: string;
  default_duration_s: number;
  recommended_format: VideoFormat;
  fonts: {
    heading: FontFamily;
    body: FontFamily;
    arabic_heading: FontFamily;
    arabic_body: FontFamily;
  };
  colors: {
    /** Main text colour on panels. */
    text: string;
    /** Secondary lines (place, labels). */
    muted: string;
    /** Badges, bars, highlights; replaced by the agency's `primary_color` when given. */
    accent: string;
    /** Background of text panels, drawn at `panel_opacity` so any photo behind stays readable. */
    panel: string;
    panel_opacity: number;
  };
  style: {
    /** Multiplies every font size: `social` uses big type. */
    type_scale: number;
    corner_radius: number;
    /** Upper-case badges and small labels (Latin scripts only). */
    uppercase_labels: boolean;
    /** Keep the agency logo or name in a corner during the video (never when unbranded). */
    brand_bug: boolean;
  };
  transition: { kind: TransitionKind; duration_s: number };
  motion: {
    /** Ken Burns zoom amount: 0.12 = the picture grows by 12 % over a shot. */
    zoom: number;
    /** Pan travel as a share of the frame, for photos that fit the frame. */
    pan: number;
    /** Speed limit of a pan, in output pixels per second, so that long travels stay calm. */
    max_pan_px_per_s: number;
    /** Motions given to successive shots, repeated as needed. */
    sequence: MotionKind[];
  };
  shots: { min_s: number; preferred_s: number; max_s: number };
  music: { mood: MusicMood };
  fade_in_s: number;
  fade_out_s: number;
  scenes: SceneSpec[];
}

class TemplateErrors {
  readonly errors: string[] = [];
  add(field: string, message: string): void {
    this.errors.push(`${field} ${message}`);
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(errors: TemplateErrors, obj: Json, key: string, path: string, min: number, max: number): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    errors.add(`${path}${key}`, `must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`);
    return min;
  }
  return value;
}

function int(errors: TemplateErrors, obj: Json, key: string, path: string, min: number, max: number): number {
  const value = num(errors, obj, key, path, min, max);
  if (!Number.isInteger(value)) errors.add(`${path}${key}`, 'must be a whole number');
  return Math.round(value);
}

function str(errors: TemplateErrors, obj: Json, key: string, path: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value.trim() === '') {
    errors.add(`${path}${key}`, 'must be a non-empty string');
    return '';
  }
  return value;
}

function bool(errors: TemplateErrors, obj: Json, key: string, path: string): boolean {
  const value = obj[key];
  if (typeof value !== 'boolean') {
    errors.add(`${path}${key}`, 'must be true or false');
    return false;
  }
  return value;
}

function oneOf<T extends string>(errors: TemplateErrors, obj: Json, key: string, path: string, allowed: readonly T[]): T {
  const value = obj[key];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    errors.add(`${path}${key}`, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
    return allowed[0] as T;
  }
  return value as T;
}

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

function color(errors: TemplateErrors, obj: Json, key: string, path: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || !HEX_COLOR.test(value)) {
    errors.add(`${path}${key}`, `must be a colour like #1A2B3C (got ${JSON.stringify(value)})`);
    return '#000000';
  }
  return value.toUpperCase();
}

function section(errors: TemplateErrors, obj: Json, key: string): Json {
  const value = obj[key];
  if (!isObject(value)) {
    errors.add(key, 'must be an object');
    return {};
  }
  return value;
}

export function isTransitionKind(value: unknown): value is TransitionKind {
  if (typeof value !== 'string') return false;
  if ((BUILTIN_TRANSITIONS as readonly string[]).includes(value)) return true;
  return value.startsWith('xfade:') && (XFADE_TRANSITIONS as readonly string[]).includes(value.slice('xfade:'.length));
}

function scene(errors: TemplateErrors, value: unknown, index: number): SceneSpec | null {
  const path = `scenes[${index}].`;
  if (!isObject(value)) {
    errors.add(`scenes[${index}]`, 'must be an object');
    return null;
  }
  const kind = oneOf(errors, value, 'kind', path, SCENE_KINDS);
  const duration = (): number => num(errors, value, 'duration_s', path, 1, 20);
  switch (kind) {
    case 'photos':
      return { kind, share: num(errors, value, 'share', path, 0.1, 10), callouts: bool(errors, value, 'callouts', path) };
    case 'features':
      return { kind, duration_s: duration(), max_items: int(errors, value, 'max_items', path, 1, 8) };
    case 'angles':
      return { kind, duration_s: duration(), count: int(errors, value, 'count', path, 1, 4) };
    default:
      return { kind, duration_s: duration() };
  }
}

/** Checks a parsed template.json; every problem is reported at once, each with its field. Pure. */
export function validateTemplate(data: unknown, name: string): Template {
  const errors = new TemplateErrors();
  if (!isObject(data)) {
    throw brokenTemplate(name, ['the file must hold one JSON object']);
  }
  if (data.name !== name) errors.add('name', `must be ${JSON.stringify(name)}, the name of its folder (got ${JSON.stringify(data.name)})`);
  const description = str(errors, data, 'description', '');
  const defaultDuration = num(errors, data, 'default_duration_s', '', MIN_DURATION_S, MAX_DURATION_S);
  const recommendedFormat = oneOf(errors, data, 'recommended_format', '', VIDEO_FORMATS);

  const fontsIn = section(errors, data, 'fonts');
  const fonts = {
    heading: oneOf(errors, fontsIn, 'heading', 'fonts.', FONT_FAMILIES),
    body: oneOf(errors, fontsIn, 'body', 'fonts.', FONT_FAMILIES),
    arabic_heading: oneOf(errors, fontsIn, 'arabic_heading', 'fonts.', FONT_FAMILIES),
    arabic_body: oneOf(errors, fontsIn, 'arabic_body', 'fonts.', FONT_FAMILIES),
  };

  const colorsIn = section(errors, data, 'colors');
  const colors = {
    text: color(errors, colorsIn, 'text', 'colors.'),
    muted: color(errors, colorsIn, 'muted', 'colors.'),
    accent: color(errors, colorsIn, 'accent', 'colors.'),
    panel: color(errors, colorsIn, 'panel', 'colors.'),
    panel_opacity: num(errors, colorsIn, 'panel_opacity', 'colors.', 0.3, 1),
  };

  const styleIn = section(errors, data, 'style');
  const style = {
    type_scale: num(errors, styleIn, 'type_scale', 'style.', 0.7, 1.6),
    corner_radius: num(errors, styleIn, 'corner_radius', 'style.', 0, 40),
    uppercase_labels: bool(errors, styleIn, 'uppercase_labels', 'style.'),
    brand_bug: bool(errors, styleIn, 'brand_bug', 'style.'),
  };

  const transitionIn = section(errors, data, 'transition');
  let transitionKind: TransitionKind = 'fade';
  if (isTransitionKind(transitionIn.kind)) transitionKind = transitionIn.kind;
  else {
    errors.add(
      'transition.kind',
      `must be one of ${BUILTIN_TRANSITIONS.join(', ')} or xfade:<name> with an ffmpeg 5.1 xfade name (got ${JSON.stringify(transitionIn.kind)})`,
    );
  }
  const transition = { kind: transitionKind, duration_s: num(errors, transitionIn, 'duration_s', 'transition.', 0, 1.5) };

  const motionIn = section(errors, data, 'motion');
  const sequenceIn = motionIn.sequence;
  const sequence: MotionKind[] = [];
  if (!Array.isArray(sequenceIn) || sequenceIn.length === 0) errors.add('motion.sequence', `must be a non-empty list of ${MOTION_KINDS.join(', ')}`);
  else {
    sequenceIn.forEach((item, i) => {
      if (typeof item === 'string' && (MOTION_KINDS as readonly string[]).includes(item)) sequence.push(item as MotionKind);
      else errors.add(`motion.sequence[${i}]`, `must be one of ${MOTION_KINDS.join(', ')} (got ${JSON.stringify(item)})`);
    });
  }
  const motion = {
    zoom: num(errors, motionIn, 'zoom', 'motion.', 0, 0.3),
    pan: num(errors, motionIn, 'pan', 'motion.', 0, 0.3),
    max_pan_px_per_s: num(errors, motionIn, 'max_pan_px_per_s', 'motion.', 10, 600),
    sequence,
  };

  const shotsIn = section(errors, data, 'shots');
  const shots = {
    min_s: num(errors, shotsIn, 'min_s', 'shots.', 1, 10),
    preferred_s: num(errors, shotsIn, 'preferred_s', 'shots.', 1, 15),
    max_s: num(errors, shotsIn, 'max_s', 'shots.', 1, 20),
  };
  if (!(shots.min_s <= shots.preferred_s && shots.preferred_s <= shots.max_s)) {
    errors.add('shots', 'must have min_s ≤ preferred_s ≤ max_s');
  }
  if (transition.kind !== 'cut' && transition.duration_s * 2 >= shots.min_s) {
    errors.add('transition.duration_s', `must be less than half of shots.min_s (${shots.min_s} s)`);
  }

  const musicIn = section(errors, data, 'music');
  const music = { mood: oneOf(errors, musicIn, 'mood', 'music.', MUSIC_MOODS) };

  const fadeIn = num(errors, data, 'fade_in_s', '', 0, 2);
  const fadeOut = num(errors, data, 'fade_out_s', '', 0, 3);

  const scenes: SceneSpec[] = [];
  if (!Array.isArray(data.scenes) || data.scenes.length === 0) errors.add('scenes', 'must be a non-empty list');
  else {
    data.scenes.forEach((value, i) => {
      const parsed = scene(errors, value, i);
      if (parsed !== null) scenes.push(parsed);
    });
    if (!scenes.some((s) => s.kind === 'photos')) errors.add('scenes', 'must contain at least one "photos" scene');
    for (const single of ['intro', 'outro', 'stats', 'price', 'features', 'angles'] as const) {
      if (scenes.filter((s) => s.kind === single).length > 1) errors.add('scenes', `may contain at most one "${single}" scene`);
    }
  }

  if (errors.errors.length > 0) throw brokenTemplate(name, errors.errors);
  return {
    name,
    description,
    default_duration_s: defaultDuration,
    recommended_format: recommendedFormat,
    fonts,
    colors,
    style,
    transition,
    motion,
    shots,
    music,
    fade_in_s: fadeIn,
    fade_out_s: fadeOut,
    scenes,
  };
}

function brokenTemplate(name: string, problems: string[]): AppError {
  return new AppError(
    'INTERNAL_SERVER_ERROR',
    `Template "${name}" is broken (templates/${name}/template.json): ${problems.join('; ')}.`,
    { reason: 'broken_template', details: problems.map((message) => ({ field: `template.${name}`, message })) },
  );
}

const TEMPLATE_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** Names of the templates shipped in templates/, sorted. */
export function listTemplates(dir: string = TEMPLATES_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && TEMPLATE_NAME.test(entry.name) && existsSync(join(dir, entry.name, 'template.json')))
    .map((entry) => entry.name)
    .sort();
}

export function templateExists(name: string, dir: string = TEMPLATES_DIR): boolean {
  return TEMPLATE_NAME.test(name) && existsSync(join(dir, name, 'template.json'));
}

export function unknownTemplate(name: string, dir: string = TEMPLATES_DIR): AppError {
  const available = listTemplates(dir);
  return badRequest(`Unknown template ${JSON.stringify(name)}: use one of ${available.join(', ')}.`, {
    reason: 'invalid_field',
    details: [{ field: 'template', message: `must be one of ${available.join(', ')}` }],
  });
}

/** Reads and validates templates/<name>/template.json. */
export function loadTemplate(name: string, dir: string = TEMPLATES_DIR): Template {
  if (!templateExists(name, dir)) throw unknownTemplate(name, dir);
  const file = join(dir, name, 'template.json');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw brokenTemplate(name, [`the file is not valid JSON (${(error as Error).message})`]);
  }
  return validateTemplate(data, name);
}
