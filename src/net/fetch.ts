import { request } from 'undici';
import { AppError } from '../core/errors.js';

/**
 * Every outgoing HTTP request of immoreel (listing pages, photos, logos, webhooks) goes through
 * here: timeouts, bounded redirects, a size limit, and (server side) a refusal of private addresses.
 * FIRST VERSION: the portal work (issue 3) adds retries, Retry-After, per-host pacing and the
 * address guard; callers keep this signature.
 */
export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest body accepted, in bytes (default 10 MB). */
  maxBytes?: number;
  /** Time to get response headers, and then between body chunks (default 15 s). */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface FetchResult {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export async function fetchBuffer(url: string, options: FetchOptions = {}): Promise<FetchResult> {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;
  let current = url;
  for (let redirects = 0; ; redirects += 1) {
    let response;
    try {
      response = await request(current, {
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      throw new AppError('UPSTREAM_ERROR', `Could not reach ${new URL(current).host}: ${(error as Error).message}.`, { cause: error });
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (response.statusCode >= 300 && response.statusCode < 400 && headers.location) {
      await response.body.dump();
      if (redirects >= (options.maxRedirects ?? 5)) {
        throw new AppError('UPSTREAM_ERROR', `Too many redirects from ${url}.`);
      }
      current = new URL(headers.location, current).toString();
      continue;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new AppError('UPSTREAM_ERROR', `${current} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: response.statusCode, url: current, headers, body: Buffer.concat(chunks) };
  }
}
