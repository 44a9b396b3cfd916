import { isAppError } from '../core/errors.js';
import type { Property } from '../core/types.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { analyzeListing } from './analyze.js';

/**
 * The body of an analysis worker thread (docs/security.md): the page is already fetched, so the
 * thread only parses and reads text. Errors cross the thread boundary as plain data — an
 * AppError's code, reason and details would not survive structured cloning of the Error.
 */

export type WorkerAnswer =
  | { ok: true; property: Property }
  | { ok: false; error: { code: string; message: string; reason?: string; details: { field: string; message: string }[] } };

export default async function analyzeInWorker(request: AnalyzeRequest): Promise<WorkerAnswer> {
  try {
    // Nothing is fetched in here: the request carries its page (`html`) when it had a URL.
    const property = await analyzeListing(request, {
      fetch: () => Promise.reject(new Error('analysis workers never fetch')),
    });
    return { ok: true, property };
  } catch (error) {
    if (isAppError(error)) return { ok: false, error: error.toJSON() };
    throw error;
  }
}
