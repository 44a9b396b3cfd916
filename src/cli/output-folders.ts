import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { badRequest } from '../core/errors.js';

/** The folder exists and this user may write in it, or a usage error naming the flag. */
export async function assertWritableFolder(dir: string, flag: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (info === null)
    throw badRequest(`${flag}: the folder ${dir} does not exist; create it first (mkdir -p ${dir}).`, {
      details: [{ field: flag.replace(/^--/, ''), message: 'folder does not exist' }],
    });
  if (!info.isDirectory())
    throw badRequest(`${flag}: ${dir} is a file, not a folder.`, {
      details: [{ field: flag.replace(/^--/, ''), message: 'not a folder' }],
    });
  try {
    await access(dir, constants.W_OK);
  } catch {
    throw badRequest(`${flag}: no permission to write in ${dir}; choose another folder.`, {
      details: [{ field: flag.replace(/^--/, ''), message: 'folder not writable' }],
    });
  }
}
