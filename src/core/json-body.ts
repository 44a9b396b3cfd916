import { AppError } from './errors.js';

/**
 * A JSON request body kept as bytes (docs/security.md "Large bodies off the event loop"): parsing
 * a 5 MB page on the server's event loop takes 10–15 ms, and even joining its chunks into one
 * buffer is a 5 MB copy there, during which every other request waits. So a route that parses its
 * body in a worker thread gets the chunks as they came off the socket, and moves them (not copies)
 * to the worker, which joins, parses and checks them with the same schema and answers the same
 * errors as the server would have.
 */

/** Bodies from this size on are parsed off the event loop; smaller ones parse in well under a millisecond. */
export const OFF_THREAD_JSON_MIN_BYTES = 64 * 1024;

/** True when `bytes` is the whole of its buffer, so moving that buffer to a thread detaches nothing else. */
function ownsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
}

export class RawJsonBody {
  readonly byteLength: number;

  /** Each chunk must own its whole buffer, and no two share one: they are transferred (moved, not copied) to a worker thread. */
  private constructor(readonly chunks: Uint8Array[]) {
    this.byteLength = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  }

  /**
   * The body as received. The HTTP parser gives each chunk a buffer of its own (taken as is); a
   * chunk over a shared buffer (`Buffer`'s pool, a decompressing stream's output) is copied once.
   */
  static of(chunks: readonly Uint8Array[]): RawJsonBody {
    const seen = new Set<ArrayBufferLike>();
    return new RawJsonBody(
      chunks.map((chunk) => {
        if (ownsBuffer(chunk) && !seen.has(chunk.buffer)) {
          seen.add(chunk.buffer);
          return chunk;
        }
        return new Uint8Array(chunk);
      }),
    );
  }

  /** The buffers to move with the chunks (`postMessage`'s transfer list). */
  transferList(): ArrayBuffer[] {
    return this.chunks.map((chunk) => chunk.buffer as ArrayBuffer);
  }
}

/** The chunks as one run of bytes: in a worker thread, never on the event loop. */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

export function emptyJsonBody(): AppError {
  return new AppError('BAD_REQUEST', 'The body is empty: send a JSON object.', {
    reason: 'invalid_json',
    details: [{ field: 'body', message: 'is empty' }],
  });
}

export function invalidJsonBody(): AppError {
  return new AppError('BAD_REQUEST', 'The body is not valid JSON.', {
    reason: 'invalid_json',
    details: [{ field: 'body', message: 'is not valid JSON' }],
  });
}

/** Either key, spelt plainly or with `\u` escapes, as JSON allows. */
const PROTOTYPE_KEY =
  /(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])|(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)/;

/** True when some object in `value` has a `__proto__` key, or a `constructor` holding a `prototype`. Iterative: deep bodies cannot overflow the stack. */
function reachesPrototype(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Object.hasOwn(current, '__proto__')) return true;
    const constructor: unknown = Object.hasOwn(current, 'constructor') ? (current as { constructor: unknown }).constructor : undefined;
    if (constructor !== null && typeof constructor === 'object' && Object.hasOwn(constructor, 'prototype')) return true;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return false;
}

/** The body parsed as the server's JSON parser would: the same answers for empty, broken or poisoned JSON. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) throw emptyJsonBody();
  const text = new TextDecoder('utf-8').decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJsonBody();
  }
  // Keys that could reach an object's prototype are refused, as the server's JSON parser does.
  if (PROTOTYPE_KEY.test(text) && reachesPrototype(value)) throw invalidJsonBody();
  return value;
}
