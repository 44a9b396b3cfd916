/**
 * The page's only way to the server: API v1 (plus the sign-in plumbing under /studio/).
 * The API key never reaches this code: the browser sends the HttpOnly session cookie, and every
 * request that changes something carries the CSRF token the server derived from it.
 */

export interface ErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly reason: string | null = null,
    readonly details: ErrorDetail[] = [],
    readonly retryAfterS: number | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export interface Session {
  signed_in: boolean;
  tenant?: string;
  masked_key?: string;
  csrf_token?: string;
}

interface Envelope {
  error?: { code?: string; message?: string; reason?: string; details?: ErrorDetail[]; request_id?: string };
}

function retryAfter(response: Response): number | null {
  const value = Number(response.headers.get('Retry-After'));
  return Number.isFinite(value) && value > 0 ? value : null;
}

export interface ApiResponse<T> {
  data: T;
  retryAfterS: number | null;
}

/** One request; an error answer or a network failure becomes an ApiError the page can explain. */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json', ...headers } };
  if (method !== 'GET' && method !== 'HEAD') (init.headers as Record<string, string>)['X-CSRF-Token'] = csrfToken;
  if (body instanceof Blob) {
    init.body = body;
    (init.headers as Record<string, string>)['Content-Type'] = body.type || 'application/octet-stream';
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError('NETWORK', (error as Error).message);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const problem = (parsed as Envelope | null)?.error;
    throw new ApiError(
      problem?.code ?? (response.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'),
      problem?.message ?? `HTTP ${response.status}`,
      problem?.reason ?? null,
      problem?.details ?? [],
      retryAfter(response),
      problem?.request_id ?? response.headers.get('X-Request-Id'),
    );
  }
  return { data: parsed as T, retryAfterS: retryAfter(response) };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Uploads one file as an asset (`POST /api/v1/assets`) and gives its `asset:` ref. */
export async function uploadAsset(file: Blob & { name?: string }): Promise<string> {
  // A HEIC photo often comes without a type (browsers other than Safari do not know it): named here.
  const typed = file.type === '' && /\.hei[cf]$/i.test(file.name ?? '') ? new Blob([file], { type: 'image/heic' }) : file;
  const { data } = await request<{ asset: { ref: string } }>('POST', '/api/v1/assets', typed);
  return data.asset.ref;
}
