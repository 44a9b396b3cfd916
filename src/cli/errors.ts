import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, badRequest, isAppError } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import { RemoteError } from '../client/errors.js';

/*
 * What the CLI makes of anything thrown (docs/cli.md, "Errors"): our own errors pass through; a
 * file-system error becomes a usage error naming the path and what to do; anything else is a bug,
 * shown as one line with the file that holds its full trace.
 */

const FS_ADVICE: Record<string, (path: string) => string> = {
  ENOENT: (path) => `${path} does not exist: check the path (a folder in it may be missing).`,
  ENOTDIR: (path) => `${path} goes through something that is not a folder: check the path.`,
  EISDIR: (path) => `${path} is a folder, not a file: give a file name.`,
  EEXIST: (path) => `${path} already exists and is not a folder: choose another path or remove it.`,
  EACCES: (path) => `no permission to use ${path}: choose a path you can write to, or change its permissions.`,
  EPERM: (path) => `the system refused to use ${path}: choose another path.`,
  EROFS: (path) => `${path} is on a read-only file system: choose a writable path.`,
  ENOSPC: (path) => `no space left on the device of ${path}: free some space and run again.`,
  EMFILE: () => 'too many files open at once: lower --concurrency and run again.',
  ENAMETOOLONG: (path) => `the path ${path} is too long: choose a shorter one.`,
};

/** A file-system error (ENOENT, EISDIR, EACCES…) as a usage error naming the path; else null. */
export function fsError(error: unknown): AppError | null {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code !== 'string') return null;
  const advice = FS_ADVICE[errno.code];
  if (advice === undefined) return null;
  const path = errno.path ?? (errno as { dest?: string }).dest ?? '(a file)';
  return badRequest(`Cannot ${errno.syscall === undefined ? 'use' : verbOf(errno.syscall)} ${path}: ${advice(path)}`, {
    reason: errno.code.toLowerCase(),
    details: [{ field: 'path', message: `${path}: ${errno.code}` }],
  });
}

function verbOf(syscall: string): string {
  if (/^(open|read|scandir|stat|lstat|access)$/.test(syscall)) return 'open';
  if (/^(mkdir)$/.test(syscall)) return 'create the folder';
  if (/^(rename|copyfile|write|unlink|rm)$/.test(syscall)) return 'write';
  return 'use';
}

/** Writes the trace of an unexpected error to a file and returns its path (null if that fails too). */
async function saveTrace(error: unknown): Promise<string | null> {
  const file = join(tmpdir(), `immoreel-error-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
  const trace = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  // The command line may carry a database URL with its password, or an API key.
  const text = redactSecrets(
    `immoreel ${process.argv.slice(2).join(' ')}\nnode ${process.version} ${process.platform}-${process.arch}\n\n${trace}\n`,
  );
  try {
    await writeFile(file, text, { mode: 0o600 });
    return file;
  } catch {
    return null;
  }
}

/**
 * Exit-1 findings a command reports in full, on purpose: an inconsistency it found in the data
 * (`db reconcile`: the books differ), not a bug of this run.
 */
const FINDINGS = new Set(['books_differ']);

/** Anything thrown by a command, as the one AppError the CLI reports. */
export async function cliError(error: unknown): Promise<AppError> {
  if (isAppError(error)) {
    // A server's own 500 (remote mode) is reported as the server said it, with its request id: not a bug here.
    if (error.code !== 'INTERNAL_SERVER_ERROR' || error instanceof RemoteError) return error;
    if (error.reason !== undefined && FINDINGS.has(error.reason)) return error;
    const mapped = fsError(error.cause);
    if (mapped !== null) return mapped;
    return unexpected(error.cause ?? error);
  }
  return fsError(error) ?? unexpected(error);
}

async function unexpected(error: unknown): Promise<AppError> {
  const file = await saveTrace(error);
  const where = file === null ? 'run again with NODE_OPTIONS=--enable-source-maps to see more' : `the full trace is in ${file}`;
  const summary = redactSecrets(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
  return new AppError(
    'INTERNAL_SERVER_ERROR',
    `Unexpected error (${summary}); this is a bug in immoreel: ${where}. Please report it with the command you ran.`,
    {
      cause: error,
    },
  );
}
