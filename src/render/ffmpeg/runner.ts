import { execFile, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import { AppError } from '../../core/errors.js';

/**
 * The only module that touches fluent-ffmpeg (DESIGN §1: archived upstream, kept behind one small
 * module so it can be swapped for a plain spawn). fluent-ffmpeg spawns the binaries and keeps the
 * stderr ring buffer; the argument list is ours (ffmpeg/plan.ts), and so is the progress, read from
 * `-progress pipe:1` against the planned duration (fluent's own percent is unreliable with many
 * inputs, research/video.md §4.9). ffmpeg runs in its own process group: a cancel or the watchdog
 * kills the whole group at once.
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

function findOnPath(name: string): string | null {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  const names = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of dirs) {
    for (const candidate of names) {
      const file = join(dir, candidate);
      if (isExecutable(file)) return file;
    }
  }
  return null;
}

function resolveBinary(name: 'ffmpeg' | 'ffprobe', envVar: 'FFMPEG_PATH' | 'FFPROBE_PATH'): string {
  const override = process.env[envVar];
  if (override !== undefined && override !== '') {
    const file = isAbsolute(override) || override.includes('/') || override.includes('\\') ? override : findOnPath(override);
    if (file !== null && isExecutable(file)) return file;
    throw new AppError('DEPENDENCY_MISSING', `${envVar} is set to ${override}, which is not an executable file. ${INSTALL_HINT}`, {
      reason: `${name}_missing`,
    });
  }
  const found = findOnPath(name);
  if (found === null) {
    throw new AppError('DEPENDENCY_MISSING', `${name} was not found on PATH. ${INSTALL_HINT}`, { reason: `${name}_missing` });
  }
  return found;
}

/** ffmpeg and ffprobe, from FFMPEG_PATH / FFPROBE_PATH or PATH; DEPENDENCY_MISSING (exit 1) when absent. */
export function resolveBinaries(): FfmpegBinaries {
  return { ffmpeg: resolveBinary('ffmpeg', 'FFMPEG_PATH'), ffprobe: resolveBinary('ffprobe', 'FFPROBE_PATH') };
}

/** What fluent-ffmpeg's (untyped, internal) spawner hands back. */
interface LinesRing {
  get(): string;
}
interface FluentSpawner {
  _spawnFfmpeg(
    args: string[],
    options: Record<string, unknown>,
    processCB: (child: ChildProcess, stdoutRing: LinesRing, stderrRing: LinesRing) => void,
    endCB: (error: Error | null, stdoutRing?: LinesRing, stderrRing?: LinesRing) => void,
  ): void;
}

/** Process groups of the ffmpeg runs in flight, killed if this process exits first. */
const running = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of running) killGroup(pid);
  });
}

export interface RunOptions {
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

/** Reads `-progress pipe:1` key=value blocks and reports out_time as a fraction of the plan. */
export function progressParser(expectedDurationS: number, report: (fraction: number) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const [key, value] = line.trim().split('=', 2);
      // out_time_ms carries microseconds too (ffmpeg quirk, research/video.md §4.10).
      if ((key === 'out_time_us' || key === 'out_time_ms') && value !== undefined && /^\d+$/.test(value)) {
        if (expectedDurationS > 0) report(Math.min(1, Math.max(0, Number(value) / 1e6 / expectedDurationS)));
      } else if (key === 'progress' && value === 'end') {
        report(1);
      }
    }
  };
}

/** Runs ffmpeg with `args` (from the plan builder); resolves when it exits 0. */
export function runFfmpeg(args: string[], options: RunOptions = {}): Promise<void> {
  const binaries = resolveBinaries();
  const what = options.what ?? 'run ffmpeg';
  const command = ffmpeg().setFfmpegPath(binaries.ffmpeg) as unknown as FluentSpawner;
  installExitHook();
  return new Promise<void>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason ?? new Error('aborted'));
      return;
    }
    let child: ChildProcess | null = null;
    let failure: unknown = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = (reason: unknown): void => {
      if (failure === null) failure = reason;
      killGroup(child?.pid);
    };
    const onAbort = (): void => stop(options.signal?.reason ?? new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.watchdogMs !== undefined && options.watchdogMs > 0) {
      timers.push(
        setTimeout(() => {
          stop(new AppError('RENDER_FAILED', `ffmpeg did not finish within ${Math.round((options.watchdogMs as number) / 1000)} s and was stopped (${what}).`, { reason: 'watchdog' }));
        }, options.watchdogMs),
      );
    }
    const stallMs = options.stallMs ?? 60_000;
    let stallTimer: NodeJS.Timeout | null = null;
    const armStall = (): void => {
      if (stallTimer !== null) clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        stop(new AppError('RENDER_FAILED', `ffmpeg made no progress for ${Math.round(stallMs / 1000)} s and was stopped (${what}).`, { reason: 'stalled' }));
      }, stallMs);
    };
    const finish = (error: unknown): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (stallTimer !== null) clearTimeout(stallTimer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child?.pid !== undefined) running.delete(child.pid);
      if (error === null) resolve();
      else reject(error);
    };
    const parse = progressParser(options.expectedDurationS ?? 0, (fraction) => {
      armStall();
      options.onProgress?.(fraction);
    });
    command._spawnFfmpeg(
      args,
      { captureStdout: false, detached: true, windowsHide: true, stdoutLines: 60 },
      (proc) => {
        child = proc;
        if (proc.pid !== undefined) running.add(proc.pid);
        proc.stdout?.setEncoding('utf8');
        proc.stdout?.on('data', (data: string) => parse(data));
        armStall();
        // A cancel that arrived while ffmpeg was being located.
        if (failure !== null) killGroup(proc.pid);
      },
      (error, _stdout, stderr) => {
        if (failure !== null) {
          finish(failure);
          return;
        }
        if (error === null || error === undefined) {
          finish(null);
          return;
        }
        const tail = stderrTail(stderr?.get() ?? '', options.redact);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES') {
          finish(new AppError('DEPENDENCY_MISSING', `ffmpeg could not be started (${code}). ${INSTALL_HINT}`, { reason: 'ffmpeg_missing' }));
          return;
        }
        finish(new AppError('RENDER_FAILED', `ffmpeg failed to ${what}: ${error.message}${tail === '' ? '' : ` — ${tail}`}`, { reason: 'ffmpeg_failed' }));
      },
    );
  });
}

/** Runs ffprobe and returns its stdout. */
export function runFfprobe(args: string[], options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
  const binaries = resolveBinaries();
  return new Promise((resolve, reject) => {
    execFile(
      binaries.ffprobe,
      args,
      { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 60_000, signal: options.signal, windowsHide: true },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(new AppError('RENDER_FAILED', `ffprobe failed: ${stderrTail(String(stderr)) || error.message}`, { reason: 'ffprobe_failed', cause: error }));
          return;
        }
        resolve(String(stdout));
      },
    );
  });
}

export type ProbeData = ffmpeg.FfprobeData;
export type ProbeStream = ffmpeg.FfprobeStream;

/** Streams and format of a media file, parsed by fluent-ffmpeg's ffprobe wrapper. */
export function probe(file: string): Promise<ProbeData> {
  const binaries = resolveBinaries();
  return new Promise((resolve, reject) => {
    ffmpeg(file)
      .setFfprobePath(binaries.ffprobe)
      .ffprobe((error: unknown, data: ProbeData) => {
        if (error) reject(new AppError('RENDER_FAILED', `ffprobe could not read the video: ${(error as Error).message}`, { reason: 'ffprobe_failed' }));
        else resolve(data);
      });
  });
}

/** `ffmpeg -version`'s first line, and the encoders/filters lists, for `immoreel doctor`. */
export function ffmpegInfo(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['-hide_banner', ...args], { maxBuffer: 16 * 1024 * 1024, timeout: 20_000, windowsHide: true }, (error, stdout) => {
      if (error !== null) reject(error);
      else resolve(String(stdout));
    });
  });
}
