import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Which data directory is chosen (--data-dir, IMMOREEL_DATA_DIR, the platform's default) is the
// configuration's to say: `Config.dataDir`, docs/configuration.md.

/** Modes of everything immoreel keeps in its data directory: readable by its owner only. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Where a video's poster sits next to it: `x.mp4` → `x-poster.jpg` — files (the CLI's `--poster`,
 * a job's directory) and blob keys alike (docs/api.md "The poster"). Null for a name not ending in .mp4.
 */
export function posterPathOf(videoPath: string): string | null {
  return videoPath.toLowerCase().endsWith('.mp4') ? `${videoPath.slice(0, -'.mp4'.length)}-poster.jpg` : null;
}

/**
 * The name of a pack's output in `format` beside the video `videoPath`: `x.mp4` → `x-portrait.mp4`
 * (its poster then `x-portrait-poster.jpg`) — the CLI's files and, for every output but the
 * primary, a job's files and blob keys (docs/jobs.md "Outputs"). Null for a name not ending in .mp4.
 */
export function formatPathOf(videoPath: string, format: string): string | null {
  return videoPath.toLowerCase().endsWith('.mp4') ? `${videoPath.slice(0, -'.mp4'.length)}-${format}.mp4` : null;
}

/** What immoreel owns inside a data directory; nothing else there is touched. */
const OWNED_ENTRIES = ['immoreel.db', 'immoreel.db-wal', 'immoreel.db-shm', 'immoreel.db-journal', 'jobs', 'assets', 'cache'];

/**
 * Creates the data directory readable by its owner only, whatever the umask, and tightens what
 * an earlier version left readable by others (the database holds each tenant's webhook signing
 * secret; docs/security.md). Returns the paths whose mode was changed. Symbolic links are left
 * alone; only immoreel's own entries are walked, so a data directory shared with other files
 * keeps those as they are.
 */
export function securePrivateDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const tightened: string[] = [];
  const tighten = (path: string, mode: number): void => {
    const current = lstatSync(path, { throwIfNoEntry: false });
    if (current === undefined || current.isSymbolicLink()) return;
    if ((current.mode & 0o077) !== 0) {
      chmodSync(path, mode);
      tightened.push(path);
    }
  };
  tighten(dir, PRIVATE_DIR_MODE);
  const pending = OWNED_ENTRIES.map((name) => join(dir, name));
  while (pending.length > 0) {
    const path = pending.pop()!;
    const entry = lstatSync(path, { throwIfNoEntry: false });
    if (entry === undefined || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      tighten(path, PRIVATE_DIR_MODE);
      for (const child of readdirSync(path)) pending.push(join(path, child));
    } else {
      tighten(path, PRIVATE_FILE_MODE);
    }
  }
  return tightened;
}
