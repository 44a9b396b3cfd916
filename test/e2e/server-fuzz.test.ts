import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, freshDataDir, startServe, type CreatedKey, type ServeProcess } from '../helpers/serve-process.js';
import { seededRandom } from '../../scripts/prng.js';
import { PATHOLOGICAL, pageWith } from '../../scripts/adversarial.js';

/**
 * A few thousand malformed requests against the real server: every answer must be a 4xx with
 * the error envelope, and the server must still be healthy afterwards. The generator is seeded,
 * so a failure names a case that reproduces.
 */

const SEED = 20_260_501;

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (max: number): number => Math.floor(random() * max);

function randomString(max: number): string {
  const alphabets = [
    'abcdefghijklmnopqrstuvwxyz',
    '0123456789',
    ' \t\n"\\/{}[]:,',
    'éàçâ€²ـمبروك',
    '\u0000\u0001\u001f\u007f',
    '%2e%2f..//',
  ];
  let out = '';
  const length = int(max);
  for (let i = 0; i < length; i += 1) out += pick(pick(alphabets).split(''));
  return out;
}

function randomJson(depth = 0): unknown {
  switch (int(depth > 2 ? 4 : 6)) {
    case 0:
      return random() * 1e6 - 5e5;
    case 1:
      return randomString(30);
    case 2:
      return pick([true, false, null]);
    case 3:
      return int(1000);
    case 4:
      return Array.from({ length: int(4) }, () => randomJson(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [randomString(8), randomJson(depth + 1)]));
  }
}

const FIELDS = [
  'url',
  'html',
  'description',
  'language',
  'target_audience',
  'photos',
  'template',
  'format',
  'formats',
  'duration_s',
  'music',
  'branding',
  'webhook_url',
  'metadata',
  'listing',
];

/** A body that is invalid by construction: each carries at least one violation the schema catches. */
function invalidBody(): { payload: string; contentType: string } {
  const base: Record<string, unknown> = {};
  for (let i = int(4); i > 0; i -= 1) base[pick(FIELDS)] = randomJson(1);
  switch (int(7)) {
    case 0: // an unknown field
      base[`x_${randomString(10)}`] = randomJson();
      return { payload: JSON.stringify(base), contentType: 'application/json' };
    case 1: // a known field of the wrong type
      base[pick(['description', 'language', 'url', 'target_audience'])] = pick([42, true, [], {}, null, 3.5]);
      return { payload: JSON.stringify(base), contentType: 'application/json' };
    case 2: // an enum value outside the list
      base.language = pick(['de', 'FR ', '', 'english', randomString(5)]);
      base.description = 'Villa 300 m² à Marrakech, 5 chambres, piscine, 4 500 000 DH';
      return { payload: JSON.stringify(base), contentType: 'application/json' };
    case 3: // broken JSON
      return { payload: JSON.stringify(base).slice(0, -1 - int(3)) + randomString(5), contentType: 'application/json' };
    case 4: // not an object
      return { payload: JSON.stringify(pick([[1, 2], 'text', 12, null, [base]])), contentType: 'application/json' };
    case 5: // a huge string over the field limit
      return { payload: JSON.stringify({ description: 'a'.repeat(50_001 + int(20_000)) }), contentType: 'application/json' };
    default: // a content type the route does not take
      return {
        payload: JSON.stringify(base),
        contentType: pick([
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/xml',
          'image/png',
        ]),
      };
  }
}

let serve: ServeProcess;
let dataDir: string;
let key: CreatedKey;
let pool: Pool;

beforeAll(async () => {
  dataDir = freshDataDir();
  key = await createKey(dataDir, ['--tenant', 'fuzz', '--monthly-quota', '1000000']);
  // Limits raised so that the requests reach validation instead of stopping at 429.
  serve = await startServe(dataDir, [
    '--analyze-rate',
    '100000',
    '--render-rate',
    '100000',
    '--job-read-rate',
    '100000',
    '--log-level',
    'warn',
  ]);
  pool = new Pool(serve.url, { connections: 8 });
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await serve?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Case {
  label: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** A valid request (adversarial text): any answer but a 5xx. */
  mayPass?: boolean;
}

/** JSON nested `depth` levels, built as text (the generator itself must not recurse that deep). */
function deeplyNested(depth: number): string {
  const open = pick(['{"a":', '[']);
  const close = open === '[' ? ']' : '}';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

function makeCase(n: number): Case {
  const auth = bearer(key);
  switch (n % 8) {
    case 6: {
      // Deep nesting where free-form JSON is allowed (metadata, listing objects) and where it is not.
      const deep = deeplyNested(500 + int(8000));
      const payload = pick([
        `{"description":"Villa 300 m² à Marrakech","photos":["https://cdn.example.com/a.jpg"],"metadata":{"x":${deep}}}`,
        `{"listing":{"title":"Villa","photos":["https://cdn.example.com/a.jpg"],"market":${deep}}}`,
        `{"listing":{"title":"Villa","photos":["https://cdn.example.com/a.jpg"],"target_buyer":{"primary":"family","segments":${deep}}}}`,
        `{"description":${deep}}`,
      ]);
      const headers: Record<string, string> = { ...auth, 'content-type': 'application/json' };
      if (random() < 0.5) headers['idempotency-key'] = `fuzz-deep-${n}`;
      return { label: `deep#${n}`, method: 'POST', path: pick(['/api/v1/render-video', '/api/v1/analyze']), headers, body: payload };
    }
    case 7: {
      // Adversarial texts: valid requests that must be answered (2xx or 4xx), never with a 5xx.
      const text = pick(PATHOLOGICAL).make(1000 + int(48_000));
      const body = random() < 0.7 ? { description: `Villa 300 m² à Marrakech ${text}` } : { html: pageWith(text) };
      return {
        label: `adversarial#${n}`,
        method: 'POST',
        path: '/api/v1/analyze',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        mayPass: true,
      };
    }
    case 0:
    case 1: {
      const { payload, contentType } = invalidBody();
      const path = pick(['/api/v1/analyze', '/api/v1/render-video']);
      const headers: Record<string, string> = { ...auth, 'content-type': contentType };
      if (random() < 0.2) headers['idempotency-key'] = `fuzz-${n}`;
      return { label: `body#${n}`, method: 'POST', path, headers, body: payload };
    }
    case 2: {
      const junk = pick([
        '../../../../etc/passwd',
        '..%2F..%2Fimmoreel.db',
        `job_${encodeURIComponent(randomString(26))}`,
        `job_${'z'.repeat(26)}%00`,
        encodeURIComponent(randomString(40)),
        'job_01JABCDEFGHJKMNPQRSTVWXYZ0',
        `%2e%2e%2f${'a'.repeat(int(300))}`,
      ]);
      const suffix = pick(['', '/video', '/cancel']);
      return { label: `id#${n}`, method: suffix === '/cancel' ? 'POST' : 'GET', path: `/api/v1/jobs/${junk}${suffix}`, headers: auth };
    }
    case 3: {
      const authorization = pick([
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${randomString(20).replace(/[^\x21-\x7e]/g, 'x')}`,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `bearer imk_${'A'.repeat(43)}`,
        `Bearer ${key.api_key}x`,
        'Token abc',
      ]);
      return {
        label: `auth#${n}`,
        method: pick(['GET', 'POST'] as const),
        path: pick(['/api/v1/me', '/api/v1/analyze', '/api/v1/jobs', '/api/v1/usage']),
        headers: { authorization },
      };
    }
    case 4:
      return {
        label: `query#${n}`,
        method: 'GET',
        path: `/api/v1/jobs?${pick(['limit=0', 'limit=-1', 'limit=abc', 'limit=1000', 'state=done', 'cursor=', `cursor=${'c'.repeat(500)}`, `x=${int(9)}`])}`,
        headers: auth,
      };
    default:
      return {
        label: `route#${n}`,
        method: pick(['PUT', 'DELETE', 'PATCH', 'GET'] as const),
        path: pick([
          '/api/v1/analyze',
          '/api/v1/render-video',
          '/api/v2/analyze',
          `/api/v1/${randomString(12).replace(/[^a-z]/g, '')}`,
          '/index.php',
          '/api/v1/jobs/job_01jabcdefghjkmnpqrstvwxyz0/delete',
        ]),
        headers: { ...auth, 'x-garbage': randomString(50).replace(/[^\x20-\x7e]/g, '?') },
      };
  }
}

async function send(c: Case) {
  const response = await pool.request({ method: c.method, path: c.path, headers: c.headers, body: c.body });
  return { status: response.statusCode, text: await response.body.text() };
}

function isEnvelope(text: string): boolean {
  try {
    const body = JSON.parse(text) as {
      ok?: unknown;
      status?: unknown;
      error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
    };
    return (
      body.ok === false &&
      body.status === 'error' &&
      typeof body.error?.code === 'string' &&
      typeof body.error.message === 'string' &&
      typeof body.error.request_id === 'string' &&
      Array.isArray(body.error.details)
    );
  } catch {
    return false;
  }
}

/** Bytes no HTTP client library would send: the server must still answer with the envelope. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  });
}

describe('immoreel serve under malformed input', () => {
  it('answers 4000 malformed, deeply nested or adversarial requests without a 5xx, and stays up', async () => {
    const cases = Array.from({ length: 4000 }, (_, n) => makeCase(n));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < cases.length; i += 16) {
      const batch = cases.slice(i, i + 16);
      const answers = await Promise.all(batch.map((c) => send(c)));
      answers.forEach((answer, j) => {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const c = batch[j]!;
        const acceptable =
          (c.mayPass === true && answer.status < 300) || (answer.status >= 400 && answer.status < 500 && isEnvelope(answer.text));
        if (!acceptable) {
          failures.push(`${c.label} ${c.method} ${c.path.slice(0, 80)} → ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      });
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(statuses.get(400)).toBeGreaterThan(1000);
    expect(statuses.get(401)).toBeGreaterThan(100);
    const health = await send({ label: 'health', method: 'GET', path: '/api/v1/health', headers: {} });
    expect(health.status).toBe(200);
    expect(serve.child.exitCode).toBeNull();
  }, 600_000);

  it('answers garbage at the HTTP level with an envelope too', async () => {
    const port = Number(new URL(serve.url).port);
    const garbage = [
      'GARBAGE\r\n\r\n',
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n',
      `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`,
      'POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'GET /api/v1/health HTTP/9.9\r\n\r\n',
      // Announces a body over the 6 MB limit: refused (413) from the headers, before any upload.
      `POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${7 * 1024 * 1024}\r\n\r\n{"html":"`,
    ];
    for (const bytes of garbage) {
      const answer = await rawExchange(port, bytes);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, bytes.slice(0, 60)).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(isEnvelope(body ?? ''), answer.slice(0, 300)).toBe(true);
    }
    const health = await send({ label: 'health', method: 'GET', path: '/api/v1/health', headers: {} });
    expect(health.status).toBe(200);
  });
});
