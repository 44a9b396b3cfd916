import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { FfmpegSettings } from '../../config/config-schema.js';
import { AppError, isAppError } from '../../core/errors.js';
import { missingFontFiles } from '../../render/fonts.js';
import { MUSIC_TRACKS } from '../../render/music-tracks.js';
import { FONTS_DIR, MUSIC_DIR } from '../../render/package-files.js';
import { listTemplates, loadTemplate } from '../../render/templates.js';
import { contextFor, type CommandContext } from '../command-context.js';

/**
 * `immoreel doctor`: is this machine able to render? ffmpeg/ffprobe ≥ 5.1, libx264, the AAC
 * encoder, the filters the plan uses, the shipped fonts, music and templates, and sharp's text
 * renderer. Prints what is missing and how to install it; exit 1 when a required piece is missing.
 */

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix it, when not ok. */
  hint?: string;
}

const MIN_VERSION: [number, number] = [5, 1];
const FILTERS = [
  'scale',
  'crop',
  'overlay',
  'fade',
  'loop',
  'concat',
  'split',
  'setpts',
  'settb',
  'trim',
  'xfade',
  'anullsrc',
  'atrim',
  'apad',
  'afade',
  'loudnorm',
  'aresample',
];
const INSTALL =
  'Debian/Ubuntu: sudo apt-get install ffmpeg · Fedora: sudo dnf install ffmpeg · macOS: brew install ffmpeg · Windows: winget install ffmpeg';

/** "5.1.9-0+deb12u1", "n6.1", "7.0.2-static" → [major, minor]; null for git builds ("N-112345-g…"). */
export function parseFfmpegVersion(firstLine: string): [number, number] | null {
  const match = /version\s+n?(\d+)\.(\d+)/i.exec(firstLine);
  return match === null ? null : [Number(match[1]), Number(match[2])];
}

async function binaryChecks(ffmpeg: FfmpegSettings): Promise<Check[]> {
  // Loaded here: fluent-ffmpeg is only needed by the commands that run ffmpeg.
  const { ffmpegInfo, resolveBinaries } = await import('../../render/ffmpeg/runner.js');
  let binaries;
  try {
    binaries = resolveBinaries(ffmpeg);
  } catch (error) {
    if (!isAppError(error)) throw error;
    const which = error.reason === 'ffprobe_missing' ? 'ffprobe' : 'ffmpeg';
    return [{ name: which, ok: false, detail: error.message.split('. ')[0] ?? error.message, hint: INSTALL }];
  }
  const checks: Check[] = [];
  for (const [name, binary] of [
    ['ffmpeg', binaries.ffmpeg],
    ['ffprobe', binaries.ffprobe],
  ] as const) {
    try {
      const first = (await ffmpegInfo(binary, ['-version'])).split('\n')[0] ?? '';
      const version = parseFfmpegVersion(first);
      const recent = version === null || version[0] > MIN_VERSION[0] || (version[0] === MIN_VERSION[0] && version[1] >= MIN_VERSION[1]);
      checks.push({
        name,
        ok: recent,
        detail: `${binary}: ${first.replace(/ Copyright.*/, '')}${version === null ? ' (version not recognised; assumed recent)' : ''}`,
        ...(recent ? {} : { hint: `immoreel needs ${name} ${MIN_VERSION.join('.')} or newer. ${INSTALL}` }),
      });
    } catch (error) {
      checks.push({ name, ok: false, detail: `${binary} does not run: ${(error as Error).message.split('\n')[0]}`, hint: INSTALL });
    }
  }
  try {
    const encoders = await ffmpegInfo(binaries.ffmpeg, ['-encoders']);
    const has = (codec: string): boolean => new RegExp(`^\\s*\\S+\\s+${codec}\\s`, 'm').test(encoders);
    checks.push(
      has('libx264')
        ? { name: 'libx264', ok: true, detail: 'H.264 encoder present' }
        : {
            name: 'libx264',
            ok: false,
            detail: 'this ffmpeg has no libx264 encoder',
            hint: `Install an ffmpeg built with --enable-gpl --enable-libx264 (distribution packages are). ${INSTALL}`,
          },
    );
    checks.push(
      has('aac')
        ? { name: 'aac', ok: true, detail: 'AAC-LC encoder present' }
        : { name: 'aac', ok: false, detail: 'this ffmpeg has no native aac encoder', hint: INSTALL },
    );
    const filters = await ffmpegInfo(binaries.ffmpeg, ['-filters']);
    const missing = FILTERS.filter((f) => !new RegExp(`^\\s*\\S+\\s+${f}\\s`, 'm').test(filters));
    checks.push(
      missing.length === 0
        ? { name: 'filters', ok: true, detail: `${FILTERS.length} filters the renderer uses are present` }
        : { name: 'filters', ok: false, detail: `missing filters: ${missing.join(', ')}`, hint: INSTALL },
    );
  } catch (error) {
    checks.push({
      name: 'encoders',
      ok: false,
      detail: `could not list encoders: ${(error as Error).message.split('\n')[0]}`,
      hint: INSTALL,
    });
  }
  return checks;
}

async function assetChecks(): Promise<Check[]> {
  const checks: Check[] = [];
  const fonts = missingFontFiles();
  checks.push(
    fonts.length === 0
      ? { name: 'fonts', ok: true, detail: `Latin, Arabic and colour emoji fonts shipped in ${FONTS_DIR}` }
      : {
          name: 'fonts',
          ok: false,
          detail: `missing in ${FONTS_DIR}: ${fonts.join(', ')}`,
          hint: 'Reinstall immoreel (the fonts ship with the package).',
        },
  );
  const music = MUSIC_TRACKS.filter((t) => !existsSync(join(MUSIC_DIR, t.file))).map((t) => t.file);
  checks.push(
    music.length === 0
      ? { name: 'music', ok: true, detail: `${MUSIC_TRACKS.length} music beds in ${MUSIC_DIR}` }
      : {
          name: 'music',
          ok: false,
          detail: `missing in ${MUSIC_DIR}: ${music.join(', ')}`,
          hint: 'Reinstall immoreel, or render with --music none.',
        },
  );
  for (const name of listTemplates()) {
    try {
      loadTemplate(name);
      checks.push({ name: `template ${name}`, ok: true, detail: 'valid' });
    } catch (error) {
      checks.push({
        name: `template ${name}`,
        ok: false,
        detail: (error as Error).message,
        hint: `Fix templates/${name}/template.json or reinstall immoreel.`,
      });
    }
  }
  try {
    const { drawText } = await import('../../render/cards.js');
    const template = loadTemplate(listTemplates()[0] ?? 'classic');
    const image = await drawText(
      { template, accent: '#FFFFFF', direction: 'rtl', width: 1280, height: 720 },
      { text: 'شقة — 120 m²', size: 32, color: '#FFFFFF', maxWidth: 600 },
    );
    checks.push({
      name: 'text rendering',
      ok: image.width > 0,
      detail: `sharp draws shaped Arabic and Latin text (${image.width}x${image.height} px sample)`,
    });
  } catch (error) {
    checks.push({
      name: 'text rendering',
      ok: false,
      detail: `sharp could not draw text: ${(error as Error).message}`,
      hint: "Reinstall dependencies (npm ci) so that sharp's prebuilt libvips with Pango is present.",
    });
  }
  try {
    const { heicDecoderDescription, loadHeicDecoder } = await import('../../render/image-decode.js');
    loadHeicDecoder();
    checks.push({ name: 'HEIC photos', ok: true, detail: `iPhone HEIC photos are decoded by ${heicDecoderDescription()}` });
  } catch (error) {
    checks.push({
      name: 'HEIC photos',
      ok: false,
      detail: `the HEIC decoder could not be loaded: ${(error as Error).message}`,
      hint: 'Reinstall dependencies (npm ci): the heic-decode package and its libheif-js WebAssembly are missing.',
    });
  }
  return checks;
}

/** The Node lines package.json "engines" declares and `.ci/run` tests (docs/scaling.md "Testing on Node 22 and 24"). */
export function nodeCheck(version: string, usesS3: boolean): Check {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
  if (!supported) {
    return {
      name: 'node',
      ok: false,
      detail: `Node ${version} is not one of the tested lines`,
      hint: 'Install Node 20.19+, 22.12+ or 24+.',
    };
  }
  // The SDK's own warning is silenced on every run (src/cli/main.ts): this is where it is said.
  const sdk = usesS3 && major < 22 ? '; note: the AWS SDK releases after January 2027 need Node 22, plan the upgrade' : '';
  return { name: 'node', ok: true, detail: `Node ${version}${sdk}` };
}

/** A failed check from a configuration error: its message (no secrets: docs/scaling.md) and what to do. */
function failedCheck(name: string, error: unknown, hint: string): Check {
  if (!isAppError(error)) return { name, ok: false, detail: (error as Error).message ?? String(error), hint };
  return { name, ok: false, detail: error.message, hint: `${hint} (${error.reason ?? error.code}, exit ${error.exitCode} at start)` };
}

/**
 * The database and the bucket, when configured (`--database-url`, `--storage-url`): reachable,
 * credentials accepted, schema current, bucket present, listable and writable (a probe object is
 * written, read back and deleted). The embedded default has nothing to check here.
 */
async function backendChecks(ctx: CommandContext): Promise<Check[]> {
  const { dataDir, databaseUrl, storageUrl, env } = ctx.backendOptions();
  if (databaseUrl === undefined && storageUrl === undefined) return [];
  const { planBackends, checkBlobs } = await import('../../records/backends.js');
  const checks: Check[] = [];
  let plan;
  try {
    plan = planBackends({ dataDir, databaseUrl, storageUrl, env });
  } catch (error) {
    return [failedCheck('configuration', error, 'Fix --database-url / --storage-url (docs/scaling.md "Configuration").')];
  }
  for (const warning of plan.warnings) checks.push({ name: 'configuration', ok: true, detail: `note: ${warning}` });
  if (plan.database.kind === 'postgres') {
    try {
      const { databaseStatus, pendingVersions } = await import('../../records/migrations.js');
      const { JOB_MIGRATION_COUNT } = await import('../../records/sqlite/jobs.js');
      const { SERVER_MIGRATION_COUNT } = await import('../../records/sqlite/server-records.js');
      const status = await databaseStatus({
        dataDir,
        databaseUrl,
        sqliteMigrations: { jobs: JOB_MIGRATION_COUNT, server: SERVER_MIGRATION_COUNT },
      });
      checks.push({ name: 'database', ok: true, detail: `${plan.databaseLabel} answers` });
      const newer = status.components.filter((c) => c.applied > c.available);
      const pending = status.components.filter((c) => c.applied < c.available);
      checks.push(
        newer.length > 0
          ? {
              name: 'migrations',
              ok: false,
              detail: `migrated by a newer immoreel: ${newer.map((c) => `${c.component} ${c.applied} (this version knows ${c.available})`).join(', ')}`,
              hint: 'Upgrade immoreel on this machine.',
            }
          : {
              name: 'migrations',
              ok: true,
              detail:
                pending.length === 0
                  ? `up to date (${status.components.map((c) => `${c.component} ${c.applied}`).join(', ')})`
                  : `pending ${pending.map((c) => `${c.component} ${pendingVersions(c).join(',')}`).join('; ')}: applied by \`immoreel db migrate\` or at the next start`,
            },
      );
    } catch (error) {
      checks.push(failedCheck('database', error, 'Check the URL, that PostgreSQL runs and the role and database exist.'));
    }
  }
  if (storageUrl !== undefined) {
    const { openBlobStore } = await import('../../blobs/index.js');
    const blobs = openBlobStore({ url: storageUrl, dataDir, env });
    try {
      await checkBlobs(blobs, plan.storageLabel);
      checks.push({ name: 'storage', ok: true, detail: `${plan.storageLabel}: present and listable` });
      const probe = `doctor/probe-${process.pid}-${Date.now()}`;
      await blobs.put(probe, Buffer.from('immoreel doctor probe\n'), { contentType: 'text/plain' });
      const info = await blobs.head(probe);
      await blobs.delete(probe);
      checks.push(
        info === null
          ? {
              name: 'storage write',
              ok: false,
              detail: `a probe object written to ${plan.storageLabel} could not be read back`,
              hint: 'Check the bucket policy (PutObject, GetObject, DeleteObject).',
            }
          : { name: 'storage write', ok: true, detail: 'a probe object was written, read back and deleted' },
      );
    } catch (error) {
      checks.push(failedCheck('storage', error, 'Check the bucket, AWS_ENDPOINT_URL_S3 and the AWS_* credentials.'));
    } finally {
      await blobs.close();
    }
  }
  return checks;
}

/** `doctor`: can this machine render? Exit 1 when a required piece is missing. */
export async function doctor(_flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const usesS3 = /^s3:/i.test(ctx.backendOptions().storageUrl ?? '');
  const checks = [
    nodeCheck(process.version, usesS3),
    ...(await binaryChecks(ctx.config.ffmpeg)),
    ...(await assetChecks()),
    ...(await backendChecks(ctx)),
  ];
  const failed = checks.filter((c) => !c.ok);
  if (ctx.output.json) {
    // On failure the error envelope (printed by main) carries the failed checks; one JSON document either way.
    if (failed.length === 0) ctx.output.data({ ok: true, status: 'success', checks });
  } else {
    const { style } = ctx.output;
    const lines = checks.map(
      (c) =>
        `${c.ok ? style.green('✔') : style.red('✘')} ${c.name.padEnd(18)} ${c.detail}${c.ok || c.hint === undefined ? '' : `\n    → ${c.hint}`}`,
    );
    ctx.output.text(lines.join('\n'));
  }
  if (failed.length > 0) {
    throw new AppError(
      'DEPENDENCY_MISSING',
      `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((c) => c.name).join(', ')}.`,
      {
        reason: 'doctor',
        details: failed.map((c) => ({ field: c.name, message: `${c.detail}${c.hint === undefined ? '' : ` — ${c.hint}`}` })),
      },
    );
  }
}
