import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal inputs always hash the same. Iterative:
 * a deeply nested value (a hostile body) cannot overflow the stack (docs/security.md).
 */
export function stableStringify(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or a literal piece of text (brackets, commas, keys).
  const work: ({ text: string } | { value: unknown })[] = [{ value }];
  while (work.length > 0) {
    const item = work.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const current = item.value;
    if (current === undefined) out.push('null');
    else if (current === null || typeof current !== 'object') out.push(JSON.stringify(current));
    else {
      const pieces: ({ text: string } | { value: unknown })[] = [];
      if (Array.isArray(current)) {
        pieces.push({ text: '[' });
        current.forEach((v, i) => pieces.push(...(i > 0 ? [{ text: ',' }] : []), { value: v }));
        pieces.push({ text: ']' });
      } else {
        const entries = Object.entries(current as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        pieces.push({ text: '{' });
        entries.forEach(([k, v], i) => pieces.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` }, { value: v }));
        pieces.push({ text: '}' });
      }
      for (let i = pieces.length - 1; i >= 0; i -= 1) work.push(pieces[i]!);
    }
  }
  return out.join('');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `sha256:` + the hash of the stable JSON of `value`. */
export function hashInputs(value: unknown): string {
  return `sha256:${sha256Hex(stableStringify(value))}`;
}

/**
 * A request body already fingerprinted where it was parsed: a large analysis body is parsed in an
 * analysis worker, never on the server's event loop (docs/security.md "Measured").
 */
export class BodyFingerprint {
  constructor(
    readonly route: string,
    readonly hex: string,
  ) {}
}

/**
 * The fingerprint of an idempotent request (docs/api.md "Idempotency-Key"): its route and the stable
 * JSON of its body, so key order and spacing do not make two equal bodies differ.
 */
export function requestFingerprint(route: string, body: unknown): string {
  if (body instanceof BodyFingerprint && body.route === route) return body.hex;
  return sha256Hex(`${route}\n${stableStringify(body)}`);
}
