import { isAppError } from '../core/errors.js';
import { hashInputs, requestFingerprint } from '../core/hash.js';
import { joinChunks, parseJsonBody } from '../core/json-body.js';
import { yieldToEventLoop } from '../core/thread-priority.js';
import { validateRenderRequest } from '../render/render-rules.js';
import type { ValidRenderRequest } from '../render/types.js';

/**
 * The body of a render-body thread (docs/security.md "Measured"): a large `POST /render-video`
 * body (up to 6 MB, most of it a saved page) is parsed, checked, fingerprinted and serialised for
 * the job store here, never on the server's event loop. The event loop gets back the request
 * without its page (what the route's checks read), and the strings the job store writes.
 */

yieldToEventLoop();

export type RenderBodyAnswer =
  | {
      ok: true;
      /** The checked request without `input.html` (the page travels in `requestJson` only). */
      light: ValidRenderRequest;
      /** The whole checked request, as the job store keeps it. */
      requestJson: string;
      /** The job's input hash (src/jobs/manager.ts `submit`). */
      inputHash: string;
      /** The idempotency fingerprint of the body, as for a body the server parsed itself. */
      fingerprint: string;
    }
  | { ok: false; error: { code: string; message: string; reason?: string; details: { field: string; message: string }[] } };

export default function checkRenderBody(task: { chunks: Uint8Array[]; route: string }): RenderBodyAnswer {
  try {
    const body = parseJsonBody(joinChunks(task.chunks));
    const valid = validateRenderRequest(body, 'server');
    const { metadata: _metadata, webhook_url: _webhook, ...inputs } = valid;
    const { html: _html, ...lightInput } = valid.input;
    return {
      ok: true,
      light: { ...valid, input: lightInput },
      requestJson: JSON.stringify(valid),
      inputHash: hashInputs(inputs),
      fingerprint: requestFingerprint(task.route, body),
    };
  } catch (error) {
    if (isAppError(error)) return { ok: false, error: error.toJSON() };
    throw error;
  }
}
