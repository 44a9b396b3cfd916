import { Piscina, workerData } from 'piscina';
import { isAppError } from '../core/errors.js';
import { requestFingerprint } from '../core/hash.js';
import { joinChunks, parseJsonBody } from '../core/json-body.js';
import { yieldToEventLoop } from '../core/thread-priority.js';
import type { Property } from '../core/types.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { validateAnalyzeRequest, type ValidAnalyzeRequest } from '../core/analyze-rules.js';
import { analyzeCheckedListing, analyzeListing, type AnalyzeDeps } from './analyze.js';
import { linkAsUrl } from './portals/index.js';

/**
 * The body of an analysis worker thread (docs/security.md): the page is already fetched, so the
 * thread only parses and reads text. Errors cross the thread boundary as plain data — an
 * AppError's code, reason and details would not survive structured cloning of the Error.
 *
 * Large request bodies arrive here as the chunks the server received, moved rather than copied (`analyzeJsonBody`,
 * `fingerprintJsonBody`): parsing and checking them is CPU work the server's event loop never does.
 */

// Analysis threads give way to the server's event loop when the cores are busy (docs/security.md "Measured").
yieldToEventLoop();

type ErrorAnswer = { ok: false; error: { code: string; message: string; reason?: string; details: { field: string; message: string }[] } };

export type WorkerAnswer = { ok: true; property: Property } | ErrorAnswer;

/** A body naming a URL and no page: the server fetches the page (network I/O), then analyses it here. */
export type JsonBodyAnswer = WorkerAnswer | { ok: 'fetch'; request: ValidAnalyzeRequest };

/** What every analysis thread is started with (Piscina's `workerData`): the configuration it needs. */
export interface AnalysisWorkerData {
  eurToMad?: number;
}

export type FingerprintAnswer = { ok: true; fingerprint: string; bytes: Uint8Array } | ErrorAnswer;

/** What a worker is given to analyse: the checked request, its page included when it had a URL. */
export function analysisTask(valid: ValidAnalyzeRequest, html: string | null): AnalyzeRequest {
  return {
    ...(valid.url !== null ? { url: valid.url } : {}),
    ...(html !== null ? { html } : {}),
    ...(valid.description !== null ? { description: valid.description } : {}),
    language: valid.language,
    target_audience: valid.target_audience,
    ...(valid.confirmed_facts.length > 0 ? { confirmed_facts: valid.confirmed_facts } : {}),
  };
}

function failure(error: unknown): ErrorAnswer {
  if (isAppError(error)) return { ok: false, error: error.toJSON() };
  throw error;
}

/** What an analysis in here is given: nothing is fetched in a worker, the request carries its page (`html`) when it had a URL. */
function workerDeps(): AnalyzeDeps {
  const { eurToMad } = (workerData ?? {}) as AnalysisWorkerData;
  return {
    fetch: () => Promise.reject(new Error('analysis workers never fetch')),
    ...(eurToMad === undefined ? {} : { eurToMad }),
  };
}

async function answerOf(analysis: () => Promise<Property>): Promise<WorkerAnswer> {
  try {
    return { ok: true, property: await analysis() };
  } catch (error) {
    return failure(error);
  }
}

export default async function analyzeInWorker(request: AnalyzeRequest): Promise<WorkerAnswer> {
  return answerOf(() => analyzeListing(request, workerDeps()));
}

/** Parses and checks an analysis body: the same 400 answers as the server's schema check. */
function checkedBody(bytes: Uint8Array): { body: unknown; valid: ValidAnalyzeRequest } {
  const body = parseJsonBody(bytes);
  return { body, valid: validateAnalyzeRequest(body) };
}

/** Parses, checks and analyses a large JSON body. */
export async function analyzeJsonBody(task: { chunks: Uint8Array[] }): Promise<JsonBodyAnswer> {
  let valid: ValidAnalyzeRequest;
  try {
    // A description that is only a portal's address is fetched like a url, by the server (never in here).
    valid = linkAsUrl(checkedBody(joinChunks(task.chunks)).valid);
  } catch (error) {
    return failure(error);
  }
  if (valid.html === null && valid.url !== null) return { ok: 'fetch', request: valid };
  // Checked just above: analysed without a second check.
  return answerOf(() => analyzeCheckedListing(valid, workerDeps()));
}

/**
 * Parses and checks a large JSON body and returns its idempotency fingerprint (the same as for a
 * body parsed by the server) with the bytes, moved back for the analysis that follows.
 */
export function fingerprintJsonBody(task: { chunks: Uint8Array[]; route: string }): FingerprintAnswer | ReturnType<typeof Piscina.move> {
  const bytes = joinChunks(task.chunks);
  let fingerprint: string;
  try {
    fingerprint = requestFingerprint(task.route, checkedBody(bytes).body);
  } catch (error) {
    return failure(error);
  }
  // Joined here, once: the analysis that follows gets one buffer.
  const answer: FingerprintAnswer = { ok: true, fingerprint, bytes };
  // Piscina's transferable shape: its symbols are typed plain `symbol`, so TypeScript cannot see the object fits.
  const moved = { [Piscina.transferableSymbol]: bytes.buffer, [Piscina.valueSymbol]: answer };
  return Piscina.move(moved as unknown as Parameters<typeof Piscina.move>[0]);
}
