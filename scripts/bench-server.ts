/**
 * `npm run bench:server`: latency and throughput of POST /api/v1/analyze (text input) on
 * loopback, with rate limits raised so that the limiter never answers instead of the engine.
 *
 * The server is the built CLI (`immoreel serve`, run `npm run build` first) in its own process;
 * the load comes from here, so on a 2-core machine each side gets a core. Runs:
 *   1. paced: one request every 5 ms (200 requests/s) for 15 s, open loop, latency measured from
 *      the moment each request was due (no coordinated omission). This is the target: p99 ≤ 50 ms.
 *   2. autocannon at overallRate 200: autocannon sends each connection's quota at the start of
 *      every second, i.e. 200-request bursts; shown for comparison, it is harsher than 200 req/s.
 *   3. autocannon, as fast as 10 connections go for 10 s: the throughput ceiling.
 * Options: --rate N (default 200), --duration S (default 15), --connections N (default 10).
 */
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { flag, percentile, startBuiltServe } from './bench-serve.js';

const RATE = flag('rate', 200);
const DURATION_S = flag('duration', 15);
const CONNECTIONS = flag('connections', 10);

// Varied listings, so the engine's work is not one cached path (written for this benchmark).
const LISTINGS = [
  'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, 2 salles de bain, terrasse, ascenseur, parking. Prix : 1 850 000 DH.',
  'Villa 450 m² sur terrain de 1000 m² à la Palmeraie, Marrakech : 5 chambres, piscine, jardin, climatisation. 6 500 000 MAD.',
  'Studio meublé à louer à Agdal, Rabat, 45 m², cuisine équipée, proche tram. Loyer 4 500 DH/mois.',
  'For sale: 2-bedroom apartment in Gueliz, Marrakech, 85 sqm, balcony, elevator, 1,200,000 MAD.',
  'شقة للبيع في طنجة، 95 متر مربع، 2 غرف نوم، مصعد، موقف سيارات. الثمن 900000 درهم',
  'Duplex 180 m2 a vendre Hay Riad Rabat, 4 chambres, 3 sdb, terrasse 40 m2, garage, 3.2 MDH',
];

interface Summary {
  label: string;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

/** Open-loop paced load: request i is due at start + i × interval, whatever the previous ones did. */
async function paced(url: string, apiKey: string, label: string, rate: number, durationS: number): Promise<Summary> {
  const pool = new Pool(url, { connections: 64 });
  const interval = 1000 / rate;
  const total = Math.round(rate * durationS);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const body = JSON.stringify({ description: LISTINGS[i % LISTINGS.length], language: (['fr', 'en', 'ar'] as const)[i % 3] });
    inFlight.push(
      pool
        .request({
          method: 'POST',
          path: '/api/v1/analyze',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
        })
        .then(async (response) => {
          await response.body.dump();
          latencies.push(performance.now() - due);
          if (response.statusCode < 200 || response.statusCode >= 300) non2xx += 1;
        })
        .catch(() => {
          errors += 1;
        }),
    );
  }
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    label,
    requests: total,
    rps: total / elapsedS,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? 0,
    non2xx,
    errors,
  };
}

async function bench(url: string, apiKey: string, label: string, options: { rate?: number; durationS: number }): Promise<Summary> {
  let n = 0;
  const result = await autocannon({
    url: `${url}/api/v1/analyze`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: options.durationS,
    // autocannon's correction assumes its rate is per millisecond; with a per-second rate it would invent samples.
    ...(options.rate ? { overallRate: options.rate, ignoreCoordinatedOmission: true } : {}),
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          n += 1;
          return {
            ...request,
            body: JSON.stringify({ description: LISTINGS[n % LISTINGS.length], language: (['fr', 'en', 'ar'] as const)[n % 3] }),
          };
        },
      },
    ],
  });
  return {
    label,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const { url, apiKey, stop } = await startBuiltServe(['--analyze-rate', '100000000', '--log-level', 'warn']);
  try {
    // Warm-up: JIT, SQLite page cache, the engine's lazy tables.
    await bench(url, apiKey, 'warm-up', { rate: 100, durationS: 3 });
    const runs = [
      await paced(url, apiKey, `paced ${RATE} req/s`, RATE, DURATION_S),
      await bench(url, apiKey, `autocannon ${RATE}/s burst`, { rate: RATE, durationS: DURATION_S }),
      await bench(url, apiKey, `autocannon max (${CONNECTIONS}c)`, { durationS: 10 }),
    ];
    console.log(`\nPOST /api/v1/analyze, text input, loopback, ${CONNECTIONS} connections, Node ${process.version}\n`);
    console.log('run                      requests   req/s    p50 ms   p90 ms   p99 ms   max ms   non-2xx  errors');
    for (const r of runs) {
      console.log(
        `${r.label.padEnd(24)} ${String(r.requests).padStart(8)} ${r.rps.toFixed(0).padStart(7)} ${r.p50.toFixed(1).padStart(8)} ${r.p90.toFixed(1).padStart(8)} ` +
          `${r.p99.toFixed(1).padStart(8)} ${r.max.toFixed(1).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)}`,
      );
    }
    const fixed = runs[0]!;
    console.log(
      `\ntarget p99 ≤ 50 ms at ${RATE} req/s: ${fixed.p99 <= 50 && fixed.non2xx === 0 ? 'met' : 'NOT met'} (p99 ${fixed.p99.toFixed(1)} ms, ${fixed.non2xx} non-2xx)`,
    );
  } finally {
    await stop();
  }
}

await main();
