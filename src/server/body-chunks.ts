import { errorCodes } from 'fastify';
import { bodyBudgetExceeded, type BodyHold } from './body-budget.js';

/** A request body as it came off the socket: its chunks, never joined here (docs/security.md "Large bodies off the event loop"). */
export interface ReceivedBody {
  chunks: Buffer[];
  length: number;
}

/** What fastify hands a content-type parser: the request's stream, or a decompressing one (which counts what it read). */
type Payload = NodeJS.ReadableStream & { receivedEncodedLength?: number };

/**
 * Reads a body with fastify's own rules and answers (its `rawBody`, which we replace so that a
 * large body is never joined on the event loop): 413 `FST_ERR_CTP_BODY_TOO_LARGE` past `limit`,
 * before reading when `Content-Length` says so, and counted as it arrives (a decompressed body
 * too); 400 `FST_ERR_CTP_INVALID_CONTENT_LENGTH` when fewer or more bytes came than announced;
 * a stream error as 400. Past the limit nothing more is read or inflated: a gzip body that would
 * inflate to gigabytes costs what its first `limit` bytes cost (docs/security.md "Bodies").
 * `raw` is the request itself when `payload` is a decompressing stream fed by it. `hold` counts
 * what the body holds against the process's budget (./body-budget.ts): a body announced larger
 * than what is left is refused before it is read, one that grows past it as soon as it does.
 */
export function receiveBody(
  headers: Record<string, string | string[] | undefined>,
  payload: Payload,
  limit: number,
  done: (error: Error | null, body?: ReceivedBody) => void,
  raw?: NodeJS.ReadableStream,
  hold?: BodyHold,
): void {
  const contentLength = Number(headers['content-length']);
  if (contentLength > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  // What the body is known to hold: its announced length, when it arrives as sent.
  let taken = 0;
  if (hold !== undefined && contentLength > 0 && raw === payload) {
    if (!hold.take(contentLength)) {
      done(bodyBudgetExceeded());
      return;
    }
    taken = contentLength;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  const stop = (): void => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer | string): void {
    // A preParsing stream may emit strings.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    // The decoded length counts (a zip bomb), and so does what a decompressing stream read.
    if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop();
      stopInflating();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    if (hold !== undefined && length > taken) {
      if (!hold.take(length - taken)) {
        stop();
        stopInflating();
        done(bodyBudgetExceeded());
        return;
      }
      taken = length;
    }
    chunks.push(bytes);
  }
  /**
   * A decompressing stream left flowing would go on inflating what still arrives, for nobody: it
   * is cut from the request and paused. The rest of the request is never read: the 413 closes
   * the connection (src/server/errors.ts).
   */
  function stopInflating(): void {
    if (raw !== undefined && raw !== payload) raw.unpipe(payload as NodeJS.WritableStream & NodeJS.ReadableStream);
    payload.pause();
  }
  function onEnd(error?: Error & { statusCode?: number }): void {
    stop();
    if (error !== undefined && error !== null) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      done(error);
      return;
    }
    if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || length) !== contentLength) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    done(null, { chunks, length });
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
