import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import type { FfmpegSettings } from '../../config/config-schema.js';
import { AppError } from '../../core/errors.js';
import type { FfmpegCommandSpec } from './command.js';
import { tiedToThisProcess } from './tied-child.js';

/**
 * The only module that touches fluent-ffmpeg (archived upstream, so it stays behind this one small
 * module: docs/rendering.md). The run is data built by pure functions (ffmpeg/plan.ts, music.ts);
 * here it goes through fluent-ffmpeg's public builder (`input`, `inputOptions`, `complexFilter`,
 * `outputOptions`, `output`, `on('progress')`, `kill`). Progress is the `timemark` of fluent's
 * progress event against the planned duration (fluent's own percent is computed against the first
 * input, a still image, so it means nothing here: docs/rendering.md).
 */

export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
}

const INSTALL_HINT =
  'Install ffmpeg 5.1 or newer (it includes ffprobe): Debian/Ubuntu `sudo apt-get install ffmpeg`, ' +
  'Fedora `sudo dnf install ffmpeg`, macOS `brew install ffmpeg`, Windows `winget install ffmpeg`; ' +
  'or point FFMPEG_PATH and FFPROBE_PATH at the binaries. `immoreel doctor` checks the setup.';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string, searchPath: string): string | null {
  const dirs = searchPath.split(delimiter).filter((d) => d !== '');
  const names = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of dirs) {
    for (const candidate of names) {
      const file = join(dir, candidate);
      if (isExecutable(file)) return file;
    }
  }
  return null;
}

function resolveBinary(
  name: 'ffmpeg' | 'ffprobe',
  envVar: 'FFMPEG_PATH' | 'FFPROBE_PATH',
  override: string | undefined,
  searchPath: string,
): string {
  if (override !== undefined && override !== '') {
    const file = isAbsolute(override) || override.includes('/') || override.includes('\\') ? override : findOnPath(override, searchPath);
    if (file !== null && isExecutable(file)) return file;
    throw new AppError('DEPENDENCY_MISSING', `${envVar} is set to ${override}, which is not an executable file. ${INSTALL_HINT}`, {
      reason: `${name}_missing`,
    });
  }
  const found = findOnPath(name, searchPath);
  if (found === null) {
    throw new AppError('DEPENDENCY_MISSING', `${name} was not found on PATH. ${INSTALL_HINT}`, { reason: `${name}_missing` });
  }
  return found;
}

/** The binaries found last, and the settings they were found with. */
let found: { key: string; binaries: FfmpegBinaries } | null = null;

/**
 * ffmpeg and ffprobe, from the configured FFMPEG_PATH / FFPROBE_PATH or a search of PATH
 * (docs/configuration.md); DEPENDENCY_MISSING (exit 1) when absent. Looked up once per process:
 * again only when the settings change.
 */
export function resolveBinaries(settings: FfmpegSettings): FfmpegBinaries {
  const key = [settings.ffmpegPath, settings.ffprobePath, settings.searchPath].join('\0');
  if (found?.key !== key) {
    found = {
      key,
      binaries: {
        ffmpeg: resolveBinary('ffmpeg', 'FFMPEG_PATH', settings.ffmpegPath, settings.searchPath),
        ffprobe: resolveBinary('ffprobe', 'FFPROBE_PATH', settings.ffprobePath, settings.searchPath),
      },
    };
  }
  return found.binaries;
}

/** The ffmpeg runs in flight, killed if this process exits first. */
const running = new Set<ffmpeg.FfmpegCommand>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const command of running) command.kill('SIGKILL');
  });
}

export interface RunOptions {
  /** The binaries to run (`resolveBinaries`, from the run's configuration). */
  binaries: FfmpegBinaries;
  signal?: AbortSignal;
  /** Wall-clock limit of this ffmpeg run; past it the process group is killed and the run fails. */
  watchdogMs?: number;
  /** ffmpeg printed no progress for this long: it is stuck; killed (default 60 s). */
  stallMs?: number;
  /** Planned output duration: progress = out_time / this. */
  expectedDurationS?: number;
  onProgress?: (fraction: number) => void;
  /** Paths to hide from error messages (job and cache directories). */
  redact?: string[];
  /** What the run does, for error messages ("render the video"). */
  what?: string;
}

/** Last meaningful lines of ffmpeg's stderr, paths redacted, for an error message. */
export function stderrTail(stderr: string, redact: string[] = [], lines = 4): string {
  let text = stderr;
  for (const path of redact.filter((p) => p !== '').sort((a, b) => b.length - a.length)) text = text.split(path).join('…');
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(frame|size)=/.test(l))
    .slice(-lines)
    .join(' | ')
    .slice(0, 600);
}

/** Seconds of an ffmpeg timemark (`00:01:02.50`), or null when it is not one (`N/A`). */
export function timemarkSeconds(timemark: string | undefined): number | null {
  const match = /^(-?)(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(timemark?.trim() ?? '');
  if (match === null) return null;
  const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
  return match[1] === '-' ? -seconds : seconds;
}

/** A progress report as a fraction of the planned duration (0 → 1), or null when it says nothing. */
export function progressFraction(timemark: string | undefined, expectedDurationS: number): number | null {
  const seconds = timemarkSeconds(timemark);
  if (seconds === null || expectedDurationS <= 0) return null;
  return Math.min(1, Math.max(0, seconds / expectedDurationS));
}

/** Builds the run with fluent-ffmpeg's public builder. */
function buildCommand(spec: FfmpegCommandSpec, binary: string): ffmpeg.FfmpegCommand {
  // Tied to this process: a worker killed with SIGKILL takes its ffmpeg along (./tied-child.ts).
  const command = ffmpeg().setFfmpegPath(tiedToThisProcess(binary));
  for (const input of spec.inputs) command.input(input.file).inputOptions(input.options);
  if (spec.complexFilter !== null) command.complexFilter(spec.complexFilter);
  return command.outputOptions(spec.outputOptions).output(spec.output);
}

/** By ffmpeg binary: fluent-ffmpeg's lists of its formats and encoders, asked for once. */
const capabilities = new Map<string, Promise<void>>();

/**
 * fluent-ffmpeg checks every command against ffmpeg's formats and encoders, which it lists by
 * running `ffmpeg -formats` and `ffmpeg -encoders` once per process, and again for each command
 * started before the first list is in: a fresh process starting a render's three runs at once paid
 * six runs of ffmpeg (0.8–1 s) before the first frame (docs/rendering.md "Where the time goes").
 * Asked once here, through fluent's own `availableFormats`/`availableEncoders`, so that its cache is
 * filled before any command runs; a render calls this first so that the lists are ready early. A
 * failure is left to the command itself, which then reports it.
 */
export function preloadCapabilities(binaries: FfmpegBinaries): Promise<void> {
  let loaded = capabilities.get(binaries.ffmpeg);
  if (loaded === undefined) {
    const lister = ffmpeg().setFfmpegPath(binaries.ffmpeg);
    const list = (ask: (callback: (error: Error | null) => void) => void): Promise<void> => new Promise((resolve) => ask(() => resolve()));
    loaded = Promise.all([
      list((callback) => lister.availableFormats(callback)),
      list((callback) => lister.availableEncoders(callback)),
    ]).then(() => undefined);
    capabilities.set(binaries.ffmpeg, loaded);
  }
  return loaded;
}

/** Runs one ffmpeg command (from the plan builders); resolves when it exits 0. */
export async function runFfmpeg(spec: FfmpegCommandSpec, options: RunOptions): Promise<void> {
  const { binaries } = options;
  const what = options.what ?? 'run ffmpeg';
  installExitHook();
  await preloadCapabilities(binaries);
  return new Promise<void>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason ?? new Error('aborted'));
      return;
    }
    const command = buildCommand(spec, binaries.ffmpeg);
    let failure: unknown = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = (reason: unknown): void => {
      if (failure === null) failure = reason;
      command.kill('SIGKILL');
    };
    const onAbort = (): void => stop(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.watchdogMs !== undefined && options.watchdogMs > 0) {
      timers.push(
        setTimeout(() => {
          stop(
            new AppError(
              'RENDER_FAILED',
              `ffmpeg did not finish within ${Math.round((options.watchdogMs as number) / 1000)} s and was stopped (${what}).`,
              { reason: 'watchdog' },
            ),
          );
        }, options.watchdogMs),
      );
    }
    const stallMs = options.stallMs ?? 60_000;
    let stallTimer: NodeJS.Timeout | null = null;
    const armStall = (): void => {
      if (stallTimer !== null) clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        stop(
          new AppError('RENDER_FAILED', `ffmpeg made no progress for ${Math.round(stallMs / 1000)} s and was stopped (${what}).`, {
            reason: 'stalled',
          }),
        );
      }, stallMs);
    };
    const finish = (error: unknown): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (stallTimer !== null) clearTimeout(stallTimer);
      options.signal?.removeEventListener('abort', onAbort);
      running.delete(command);
      if (error === null) resolve();
      else reject(error);
    };
    command
      .on('start', () => {
        running.add(command);
        armStall();
        // A cancel that arrived while fluent-ffmpeg was preparing the run.
        if (failure !== null) command.kill('SIGKILL');
      })
      // Progress from the `-stats` lines themselves: a 'progress' listener makes fluent-ffmpeg start an
      // ffprobe of the first input on every run, a process for a figure we do not use (docs/rendering.md
      // "Where the time goes").
      .on('stderr', (line: string) => {
        const timemark = /time=\s*(\S+)/.exec(line)?.[1];
        if (timemark === undefined) return;
        armStall();
        const fraction = progressFraction(timemark, options.expectedDurationS ?? 0);
        if (fraction !== null) options.onProgress?.(fraction);
      })
      .on('end', () => {
        if (failure !== null) finish(failure);
        else {
          options.onProgress?.(1);
          finish(null);
        }
      })
      .on('error', (error: Error & { code?: string }, _stdout: string | null, stderr: string | null) => {
        if (failure !== null) {
          finish(failure);
          return;
        }
        // 126/127: the shell of ./tied-child.ts could not run the binary (gone or not executable).
        if (error.code === 'ENOENT' || error.code === 'EACCES' || /^ffmpeg exited with code 12[67]\b/.test(error.message)) {
          finish(
            new AppError(
              'DEPENDENCY_MISSING',
              `ffmpeg could not be started (${error.code ?? error.message.replace(/^ffmpeg /, '')}). ${INSTALL_HINT}`,
              {
                reason: 'ffmpeg_missing',
              },
            ),
          );
          return;
        }
        const tail = stderrTail(stderr ?? '', options.redact);
        // fluent-ffmpeg appends its own excerpt of stderr after a colon: the tail says it better.
        const message = error.message.replace(/^(ffmpeg (?:exited with code \d+|was killed with signal \w+)):.*$/s, '$1');
        finish(
          new AppError('RENDER_FAILED', `ffmpeg failed to ${what}: ${message}${tail === '' ? '' : ` — ${tail}`}`, {
            reason: 'ffmpeg_failed',
          }),
        );
      })
      .run();
  });
}

/** Runs ffprobe and returns its stdout. */
export function runFfprobe(
  args: string[],
  options: { binaries: FfmpegBinaries; signal?: AbortSignal; timeoutMs?: number },
): Promise<string> {
  const { binaries } = options;
  return new Promise((resolve, reject) => {
    execFile(
      binaries.ffprobe,
      args,
      { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 60_000, signal: options.signal, windowsHide: true },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(
            new AppError('RENDER_FAILED', `ffprobe failed: ${stderrTail(String(stderr)) || error.message}`, {
              reason: 'ffprobe_failed',
              cause: error,
            }),
          );
          return;
        }
        resolve(String(stdout));
      },
    );
  });
}

export type ProbeData = ffmpeg.FfprobeData;

/** `ffmpeg -version`'s first line, and the encoders/filters lists, for `immoreel doctor`. */
export function ffmpegInfo(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['-hide_banner', ...args], { maxBuffer: 16 * 1024 * 1024, timeout: 20_000, windowsHide: true }, (error, stdout) => {
      if (error !== null) reject(error);
      else resolve(String(stdout));
    });
  });
}
