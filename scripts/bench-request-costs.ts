/**
 * Part 5 of `npm run bench:adversarial` (`--only costs`): what single hostile requests cost the
 * built server (docs/security.md "Measured"), each scenario on a fresh `immoreel serve`:
 *
 *   a. `{"formats":[1,1,…]}` bodies of 64 KB (event loop) and 1 MB (a render-body thread): the
 *      answer's status, time and size, and health while four are always in flight. Target: 400
 *      within 2 s, health p99 < 100 ms.
 *   b. 16 keyless clients sending gzip bombs to a retired route: each one's answer time, and the
 *      server's CPU time from the first request to 5 s after the last. Targets: each < 1 s, CPU < 2 s.
 *   c. A gzip body inflating to 50 MB, with a key: the time to its 413. Target: < 5 s.
 *   d. 50 bodies of 5.5 MB from 50 tenants, each sent but for its last bytes and left stalled:
 *      RSS growth and health meanwhile. Targets: growth < 300 MB, health p99 < 50 ms.
 *   e. 10 uploads at once of a progressive 7 000 × 7 000 JPEG: peak RSS, and RSS 10 s later.
 *      Targets: peak < 800 MB, < 500 MB 10 s later.
 * `--parts bde` runs some of them (a server from before these bounds never finishes part a).
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { flag, latencySummary, percentile, startBuiltServe, threadTimes, underLoad } from './bench-serve.js';

const DURATION_S = flag('duration', 10);
const QUIET_MS = flag('quiet', 3) * 1000;
/** `--tries N`: timed requests per body size in 5a (default 3, after one untimed); 1 = no warm-up. */
const TRIES = flag('tries', 3);
/** An answer slower than this is given up on (the server before these bounds took minutes). */
const ANSWER_TIMEOUT_MS = 30_000;

interface Answer {
  status: number;
  ms: number;
  bytes: number;
}

/** One POST, timed from its first byte sent to its answer's last byte. */
function post(url: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-length': String(body.length), ...headers } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, bytes: 0 }));
    req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy());
    req.end(body);
  });
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

const cpuMs = (pid: number): number => {
  const times = threadTimes(pid);
  return times === null ? Number.NaN : times.mainCpuMs + times.otherCpuMs;
};

const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
const formatsBody = (bytes: number): Buffer => Buffer.from(`{"formats":[${'1,'.repeat(Math.floor(bytes / 2) - 8)}1]}`);

async function validationCosts(): Promise<void> {
  console.log(`\n5a. {"formats":[1,1,…]} bodies (built server)\n`);
  const server = await startBuiltServe(['--render-rate', '100000000', '--log-level', 'warn']);
  try {
    const headers = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
    console.log(`load average (1 min): ${loadavg()[0]!.toFixed(2)}`);
    for (const size of [64 * 1024, 1024 * 1024, 6 * 1024 * 1024 - 1024]) {
      const body = formatsBody(size);
      // The first large body starts the render-body thread: not what a body costs.
      if (TRIES > 1) await post(server.url, '/api/v1/render-video', headers, body);
      const answers: Answer[] = [];
      for (let i = 0; i < TRIES; i++) answers.push(await post(server.url, '/api/v1/render-video', headers, body));
      const worst = answers.reduce((a, b) => (a.ms > b.ms ? a : b));
      console.log(
        `${(body.length / 1024).toFixed(0).padStart(5)} KB: ${worst.status === 0 ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` : worst.status}, slowest of ${TRIES} ${worst.ms.toFixed(0)} ms, answer ${worst.bytes} bytes — ` +
          `target 400 within 2 s: ${met(answers.every((a) => a.status === 400 && a.ms < 2000))}`,
      );
    }
    // One body at a time (the target: health while one is answered), then four always in flight.
    for (const concurrency of [1, 4]) {
      const load = await underLoad(
        server.url,
        [{ label: 'formats', path: '/api/v1/render-video', headers, bodies: [formatsBody(64 * 1024)], concurrency }],
        { durationS: DURATION_S, quietMs: QUIET_MS, serverPid: server.child.pid! },
      );
      const answered = Object.values(load.answers).reduce((sum, n) => sum + n, 0);
      const perAnswer = load.server === null ? 'unknown' : `${(load.server.mainCpuMs / Math.max(1, answered)).toFixed(2)} ms`;
      console.log(
        `${concurrency} ${concurrency === 1 ? 'body' : 'bodies'} of 64 KB always in flight (${answered} answered, event loop CPU ${perAnswer} each):`,
      );
      console.log(`  health with nothing in flight first: ${latencySummary(load.quiet)}`);
      console.log(`  health meanwhile: ${latencySummary(load.latencies)}`);
      if (concurrency === 1) console.log(`  target health p99 < 100 ms: ${met(percentile(load.latencies, 99) < 100)}`);
    }
  } finally {
    await server.stop();
  }
}

const GZIP_BOMB = gzipSync(Buffer.concat([Buffer.from('{"description":"'), Buffer.alloc(50 * 1024 * 1024, 0x20), Buffer.from('"}')]));

async function gzipCosts(): Promise<void> {
  console.log(`\n5b/c. gzip bodies inflating to 50 MB (${(GZIP_BOMB.length / 1024).toFixed(0)} KB sent; built server)\n`);
  const server = await startBuiltServe(['--log-level', 'warn']);
  try {
    const pid = server.child.pid!;
    const gzipJson = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const before = cpuMs(pid);
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => post(server.url, '/api/v1/campaigns/generate', gzipJson, GZIP_BOMB)),
    );
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const spent = cpuMs(pid) - before;
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(
      `16 keyless clients at once: ${[...new Set(answers.map((a) => a.status))].join(', ')}, slowest ${slowest.toFixed(0)} ms — target each < 1 s: ${met(slowest < 1000)}`,
    );
    console.log(
      `server CPU from the first request to 5 s after the last: ${(spent / 1000).toFixed(2)} s — target < 2 s: ${met(spent < 2000)}`,
    );
    const keyed = { ...gzipJson, authorization: `Bearer ${server.apiKey}` };
    for (const path of ['/api/v1/analyze', '/api/v1/render-video']) {
      const answer = await post(server.url, path, keyed, GZIP_BOMB);
      console.log(
        `${path} with a key: ${answer.status} in ${answer.ms.toFixed(0)} ms — target 413 within 5 s: ${met(answer.status === 413 && answer.ms < 5000)}`,
      );
    }
  } finally {
    await server.stop();
  }
}

async function stalledBodies(): Promise<void> {
  const count = 50;
  const size = 5.5 * 1024 * 1024;
  console.log(`\n5d. ${count} bodies of 5.5 MB from ${count} tenants, sent but for their last KB and left stalled (built server)\n`);
  const server = await startBuiltServe(['--log-level', 'warn'], { otherKeys: count });
  const sockets: ReturnType<typeof request>[] = [];
  try {
    const pid = server.child.pid!;
    const before = statusMb(pid, 'VmRSS');
    const body = Buffer.from(JSON.stringify({ description: 'x'.repeat(size - 20) }));
    const statuses: Record<string, number> = {};
    for (const key of server.otherKeys) {
      const req = request(`${server.url}/api/v1/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.length) },
      });
      req.on('response', (res) => {
        statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
        res.resume();
      });
      req.on('error', () => undefined);
      req.write(body.subarray(0, body.length - 1024));
      sockets.push(req);
    }
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, statusMb(pid, 'VmRSS'))), 50);
    const load = await underLoad(server.url, [], { durationS: DURATION_S, quietMs: 0, serverPid: pid });
    // The same probe once the bodies are gone: what the machine's own load costs it.
    for (const req of sockets) req.destroy();
    const alone = await underLoad(server.url, [], { durationS: QUIET_MS / 1000, quietMs: 0, serverPid: pid });
    clearInterval(sampler);
    const growth = peak - before;
    console.log(`answers while stalled: ${JSON.stringify(statuses)} (the others still waiting for their last bytes)`);
    console.log(
      `serve RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB: growth ${growth.toFixed(0)} MB — target < 300 MB: ${met(growth < 300)}`,
    );
    console.log(`health meanwhile: ${latencySummary(load.latencies)} — target p99 < 50 ms: ${met(percentile(load.latencies, 99) < 50)}`);
    console.log(`health afterwards, nothing in flight: ${latencySummary(alone.latencies)}; load average ${loadavg()[0]!.toFixed(2)}`);
  } finally {
    for (const req of sockets) req.destroy();
    await server.stop();
  }
}

async function progressiveUploads(): Promise<void> {
  const side = 7000;
  const gradient = Buffer.from(
    `<svg width="${side}" height="${side}"><defs><linearGradient id="g"><stop offset="0" stop-color="#c33"/><stop offset="1" stop-color="#33c"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  const jpeg = await sharp({ create: { width: side, height: side, channels: 3, background: '#808080' } })
    .composite([{ input: gradient }])
    .jpeg({ progressive: true, quality: 85 })
    .toBuffer();
  console.log(`\n5e. 10 uploads at once of a progressive ${side} × ${side} JPEG (${(jpeg.length / 1024).toFixed(0)} KB; built server)\n`);
  const server = await startBuiltServe(['--log-level', 'warn']);
  try {
    const pid = server.child.pid!;
    const before = statusMb(pid, 'VmRSS');
    const headers = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'image/jpeg' };
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(server.url, '/api/v1/assets', headers, jpeg)));
    const seconds = (performance.now() - started) / 1000;
    const peak = statusMb(pid, 'VmHWM');
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const after = statusMb(pid, 'VmRSS');
    const statuses = answers.map((a) => a.status).join(' ');
    console.log(`answers: ${statuses} in ${seconds.toFixed(1)} s (429 = decode queue full, retry later)`);
    console.log(`serve RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB — target < 800 MB: ${met(peak < 800)}`);
    console.log(`RSS 10 s later: ${after.toFixed(0)} MB — target < 500 MB: ${met(after < 500)}`);
  } finally {
    await server.stop();
  }
}

/** `--parts abde`: which scenarios (default all; c runs with b). */
const PARTS = process.argv.includes('--parts') ? process.argv[process.argv.indexOf('--parts') + 1]! : 'abcde';

export async function requestCosts(): Promise<void> {
  if (PARTS.includes('a')) await validationCosts();
  if (PARTS.includes('b') || PARTS.includes('c')) await gzipCosts();
  if (PARTS.includes('d')) await stalledBodies();
  if (PARTS.includes('e')) await progressiveUploads();
}
