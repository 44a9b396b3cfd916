import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { AppError, badRequest } from '../core/errors.js';
import { TEMPLATES_DIR } from './package-files.js';
import { schemaProblems, TemplateSchema, type Template } from './template-schema.js';

/**
 * Video templates: data in templates/<name>/template.json, checked on load against the template
 * schema (template-schema.ts) and the rules that span fields below, so that a broken template
 * fails with the field that is wrong, before any photo is fetched. Format: docs/rendering.md.
 */

export {
  BUILTIN_TRANSITIONS,
  MOTION_KINDS,
  SCENE_KINDS,
  XFADE_TRANSITIONS,
  type BuiltinTransition,
  type MotionKind,
  type SceneKind,
  type SceneSpec,
  type Template,
  type TransitionKind,
} from './template-schema.js';

/** The rules a schema cannot say: they compare fields with each other. */
function crossFieldProblems(template: Template): string[] {
  const problems: string[] = [];
  const { shots, transition, scenes } = template;
  if (!(shots.min_s <= shots.preferred_s && shots.preferred_s <= shots.max_s)) problems.push('shots must have min_s ≤ preferred_s ≤ max_s');
  if (transition.kind !== 'cut' && transition.duration_s * 2 >= shots.min_s) {
    problems.push(`transition.duration_s must be less than half of shots.min_s (${shots.min_s} s)`);
  }
  if (!scenes.some((s) => s.kind === 'photos')) problems.push('scenes must contain at least one "photos" scene');
  for (const single of ['intro', 'outro', 'stats', 'price', 'features', 'angles'] as const) {
    if (scenes.filter((s) => s.kind === single).length > 1) problems.push(`scenes may contain at most one "${single}" scene`);
  }
  return problems;
}

/** Checks a parsed template.json; every problem is reported at once, each with its field. Pure. */
export function validateTemplate(data: unknown, name: string): Template {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw brokenTemplate(name, ['the file must hold one JSON object']);
  const named = (data as { name?: unknown }).name;
  const problems = named === name ? [] : [`name must be ${JSON.stringify(name)}, the name of its folder (got ${JSON.stringify(named)})`];
  problems.push(...schemaProblems(TemplateSchema, data));
  // Fields compared with each other only once each of them is valid.
  const template = problems.length === 0 ? (Value.Clean(TemplateSchema, structuredClone(data)) as Template) : null;
  if (template !== null) problems.push(...crossFieldProblems(template));
  if (template === null || problems.length > 0) throw brokenTemplate(name, problems);
  const upper = (hex: string): string => hex.toUpperCase();
  const { colors } = template;
  return {
    ...template,
    colors: { ...colors, text: upper(colors.text), muted: upper(colors.muted), accent: upper(colors.accent), panel: upper(colors.panel) },
  };
}

function brokenTemplate(name: string, problems: string[]): AppError {
  return new AppError('INTERNAL_SERVER_ERROR', `Template "${name}" is broken (templates/${name}/template.json): ${problems.join('; ')}.`, {
    reason: 'broken_template',
    details: problems.map((message) => ({ field: `template.${name}`, message })),
  });
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

/**
 * What fills the transparent areas of a photo (a PNG cut-out, a logo given as a photo): the
 * template's muted text colour brought halfway to white, a light tone of its own palette, never
 * black (docs/rendering.md "Photos").
 */
export function stillBackground(template: Template): string {
  const hex = template.colors.muted.replace('#', '');
  const channel = (at: number): string =>
    Math.round((parseInt(hex.slice(at, at + 2), 16) + 255) / 2)
      .toString(16)
      .padStart(2, '0');
  return `#${channel(0)}${channel(2)}${channel(4)}`.toUpperCase();
}
