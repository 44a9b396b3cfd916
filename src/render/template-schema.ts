import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { VIDEO_FORMATS } from '../core/types.js';
import { FONT_FAMILIES } from './fonts.js';
import { MAX_DURATION_S, MIN_DURATION_S } from './formats.js';
import { MUSIC_MOODS } from './music-tracks.js';

/**
 * The template file format (templates/<name>/template.json) as one TypeBox schema: the JSON Schema
 * that checks a file and the TypeScript type of a loaded template come from the same object. Each
 * node carries the sentence a template author reads when the value is wrong (`errorMessage`);
 * the rules that span fields are in templates.ts. Format described in docs/rendering.md.
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
export const BUILTIN_TRANSITIONS = [
  'cut',
  'fade',
  'fade_black',
  'fade_white',
  'slide_left',
  'slide_right',
  'slide_up',
  'slide_down',
] as const;
export type BuiltinTransition = (typeof BUILTIN_TRANSITIONS)[number];
/** xfade transitions of ffmpeg 5.1 (`ffmpeg -h filter=xfade`), minus `custom`. */
export const XFADE_TRANSITIONS = [
  'fade',
  'wipeleft',
  'wiperight',
  'wipeup',
  'wipedown',
  'slideleft',
  'slideright',
  'slideup',
  'slidedown',
  'circlecrop',
  'rectcrop',
  'distance',
  'fadeblack',
  'fadewhite',
  'radial',
  'smoothleft',
  'smoothright',
  'smoothup',
  'smoothdown',
  'circleopen',
  'circleclose',
  'vertopen',
  'vertclose',
  'horzopen',
  'horzclose',
  'dissolve',
  'pixelize',
  'diagtl',
  'diagtr',
  'diagbl',
  'diagbr',
  'hlslice',
  'hrslice',
  'vuslice',
  'vdslice',
  'hblur',
  'fadegrays',
  'wipetl',
  'wipetr',
  'wipebl',
  'wipebr',
  'squeezeh',
  'squeezev',
  'zoomin',
] as const;
export type TransitionKind = BuiltinTransition | `xfade:${(typeof XFADE_TRANSITIONS)[number]}`;
const TRANSITION_NAMES: readonly TransitionKind[] = [...BUILTIN_TRANSITIONS, ...XFADE_TRANSITIONS.map((name) => `xfade:${name}` as const)];

// ---------------------------------------------------------------------------------------------
// Building blocks, each with the sentence shown when a value is wrong

const between = (minimum: number, maximum: number, description?: string) =>
  Type.Number({ minimum, maximum, description, errorMessage: `must be a number from ${minimum} to ${maximum}` });
const wholeBetween = (minimum: number, maximum: number) =>
  Type.Integer({ minimum, maximum, errorMessage: `must be a whole number from ${minimum} to ${maximum}` });
const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description, errorMessage: `must be one of ${values.join(', ')}` },
  );
const flag = (description?: string) => Type.Boolean({ description, errorMessage: 'must be true or false' });
const colour = (description?: string) =>
  Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description, errorMessage: 'must be a colour like #1A2B3C' });
const section = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { errorMessage: 'must be an object' });
const sceneSeconds = between(1, 20);

/** One schema per scene kind (a union would only say "no kind matched"). */
export const SCENE_SCHEMAS = {
  intro: Type.Object({ kind: Type.Literal('intro'), duration_s: sceneSeconds }),
  photos: Type.Object({ kind: Type.Literal('photos'), share: between(0.1, 10), callouts: flag() }),
  features: Type.Object({ kind: Type.Literal('features'), duration_s: sceneSeconds, max_items: wholeBetween(1, 8) }),
  stats: Type.Object({ kind: Type.Literal('stats'), duration_s: sceneSeconds }),
  price: Type.Object({ kind: Type.Literal('price'), duration_s: sceneSeconds }),
  angles: Type.Object({ kind: Type.Literal('angles'), duration_s: sceneSeconds, count: wholeBetween(1, 4) }),
  outro: Type.Object({ kind: Type.Literal('outro'), duration_s: sceneSeconds }),
} as const satisfies Record<SceneKind, TSchema>;

const SceneSchema = Type.Union(Object.values(SCENE_SCHEMAS), {
  errorMessage: `must be a scene: an object with a kind (${SCENE_KINDS.join(', ')})`,
});

export const TemplateSchema = Type.Object({
  name: Type.String({ description: 'The name of its folder.' }),
  description: Type.String({ minLength: 1, pattern: '\\S', errorMessage: 'must be a non-empty string' }),
  default_duration_s: between(MIN_DURATION_S, MAX_DURATION_S),
  recommended_format: oneOf(VIDEO_FORMATS),
  fonts: section({
    heading: oneOf(FONT_FAMILIES),
    body: oneOf(FONT_FAMILIES),
    arabic_heading: oneOf(FONT_FAMILIES),
    arabic_body: oneOf(FONT_FAMILIES),
  }),
  colors: section({
    text: colour('Main text colour on panels.'),
    muted: colour('Secondary lines (place, labels).'),
    accent: colour("Badges, bars, highlights; replaced by the agency's `primary_color` when given."),
    panel: colour('Background of text panels, drawn at `panel_opacity` so any photo behind stays readable.'),
    panel_opacity: between(0.3, 1),
  }),
  style: section({
    type_scale: between(0.7, 1.6, 'Multiplies every font size: `social` uses big type.'),
    corner_radius: between(0, 40),
    uppercase_labels: flag('Upper-case badges and small labels (Latin scripts only).'),
    brand_bug: flag('Keep the agency logo or name in a corner during the video (never when unbranded).'),
  }),
  transition: section({
    kind: Type.Union(
      TRANSITION_NAMES.map((name) => Type.Literal(name)),
      { errorMessage: `must be one of ${BUILTIN_TRANSITIONS.join(', ')} or xfade:<name> with an ffmpeg 5.1 xfade name` },
    ),
    duration_s: between(0, 1.5),
  }),
  motion: section({
    zoom: between(0, 0.3, 'Ken Burns zoom amount: 0.12 = the picture grows by 12 % over a shot.'),
    pan: between(0, 0.3, 'Pan travel as a share of the frame, for photos that fit the frame.'),
    max_pan_px_per_s: between(10, 600, 'Speed limit of a pan, in output pixels per second, so that long travels stay calm.'),
    sequence: Type.Array(oneOf(MOTION_KINDS), {
      minItems: 1,
      description: 'Motions given to successive shots, repeated as needed.',
      errorMessage: `must be a non-empty list of ${MOTION_KINDS.join(', ')}`,
    }),
  }),
  shots: section({ min_s: between(1, 10), preferred_s: between(1, 15), max_s: between(1, 20) }),
  music: section({ mood: oneOf(MUSIC_MOODS) }),
  fade_in_s: between(0, 2),
  fade_out_s: between(0, 3),
  scenes: Type.Array(SceneSchema, { minItems: 1, errorMessage: 'must be a non-empty list' }),
});

export type Template = Static<typeof TemplateSchema>;
export type SceneSpec = Static<typeof SceneSchema>;

/** `/motion/sequence/0` → `motion.sequence[0]`. */
function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

/**
 * Every problem of `value` against `schema`, one per field, as "<field> <sentence> (got <value>)".
 * A scene is checked against the schema of its own kind, so its messages name the field.
 */
export function schemaProblems(schema: TSchema, value: unknown, prefix = ''): string[] {
  const problems: string[] = [];
  const reported: string[] = [];
  for (const error of Value.Errors(schema, value)) {
    const pointer = prefix + error.path;
    // One problem per field; a field whose parent is already wrong adds nothing.
    if (reported.some((done) => pointer === done || pointer.startsWith(`${done}/`))) continue;
    reported.push(pointer);
    const kind = (error.value as { kind?: unknown } | null | undefined)?.kind;
    if (error.schema === SceneSchema && typeof kind === 'string' && kind in SCENE_SCHEMAS) {
      problems.push(...schemaProblems(SCENE_SCHEMAS[kind as SceneKind], error.value, pointer));
      continue;
    }
    const sentence = (error.schema as { errorMessage?: string }).errorMessage ?? error.message.toLowerCase();
    problems.push(`${fieldOf(pointer)} ${sentence} (got ${error.value === undefined ? 'nothing' : JSON.stringify(error.value)})`);
  }
  return problems;
}
