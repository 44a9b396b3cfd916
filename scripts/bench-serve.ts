/**
 * What the server benchmarks share: their command-line numbers, percentiles, and the built
 * `immoreel serve` started in its own process on a fresh data directory with one key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openServerStore } from '../src/records/sqlite/server-records.js';
import type { AttackResult, LoadTask, ProbeResult } from './bench-load.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/**
 * `--serve-from DIR`: the built server of another checkout (its `npm run build` done), e.g. the
 * commit before a change, to compare both in turns under the same load.
 */
const SERVE_FROM = process.argv.includes('--serve-from') ? process.argv[process.argv.indexOf('--serve-from') + 1]! : ROOT;
const BIN = join(SERVE_FROM, 'bin/immoreel.js');
/** `--node-arg X` (repeatable): an option for the server's `node`, e.g. `--cpu-prof` or `--trace-gc` to see where its time goes. */
const SERVE_NODE_ARGS = process.argv.flatMap((arg, at) => (arg === '--node-arg' ? [process.argv[at + 1]!] : []));

/** `--name N` from the command line, or `fallback`. */
export function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

export interface BuiltServer {
  url: string;
  apiKey: string;
  /** Keys of other tenants (`otherKeys`). */
  otherKeys: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `immoreel serve` from dist/ with `args`, on a fresh data directory holding one key. */
export async function startBuiltServe(args: string[], options: { otherKeys?: number } = {}): Promise<BuiltServer> {
  if (!existsSync(join(SERVE_FROM, 'dist/cli/main.js')))
    throw new Error('Run `npm run build` first: the benchmark starts the built `immoreel serve`.');
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-'));
  const store = openServerStore(dataDir);
  const { apiKey } = store.keys.create({ tenant: 'bench', monthlyQuota: 100_000_000 });
  // Keys of other tenants, for attacks by several callers at once.
  const otherKeys = Array.from(
    { length: options.otherKeys ?? 0 },
    (_, i) => store.keys.create({ tenant: `bench-${i}`, monthlyQuota: 100_000_000 }).apiKey,
  );
  store.close();
  const child = spawn(process.execPath, [...SERVE_NODE_ARGS, BIN, '--data-dir', dataDir, 'serve', '--port', '0', ...args], {
    // stdout carries what --trace-gc prints: shown when asked for.
    stdio: ['ignore', SERVE_NODE_ARGS.length > 0 ? 'inherit' : 'ignore', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const match = /"event":"listening","url":"([^"]+)"/.exec(buffer);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${buffer}`)));
    });
    return { url, apiKey, otherKeys, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Requests an attacker process sends over and over (scripts/bench-load.ts). */
export interface Attack {
  label: string;
  path: string;
  headers: Record<string, string>;
  bodies: Buffer[];
  concurrency: number;
}

export interface LoadOutcome {
  /** Health latencies (ms, sorted) while the attacks ran, and before, with nothing in flight. */
  latencies: number[];
  quiet: number[];
  answers: Record<string, number>;
  retryAfter: number;
  /** The 1-minute load average when the load started, and when it ended. */
  loadAverage: [number, number];
  /** What the attack cost the server's threads (Linux), when its pid was given; and the probe alone before it. */
  server: ThreadTimes | null;
  quietServer: ThreadTimes | null;
}

/** Nice value of the attacker processes: below the server (0), as an attacker on another machine takes none of its cores. */
export const ATTACKER_NICE = flag('attacker-nice', 10);

/**
 * Attacks and the health probe, each in a process of its own (docs/security.md "How the benchmark
 * measures"): the attackers under `nice`, the prober at normal priority. For `quietMs` the probe
 * runs alone; then the attacks run with it for `durationS`.
 */
export async function underLoad(
  url: string,
  attacks: Attack[],
  options: { durationS: number; quietMs?: number; serverPid?: number; probe?: boolean },
): Promise<LoadOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-bench-load-'));
  const children: ChildProcess[] = [];
  try {
    const tasks: LoadTask[] = attacks.map((attack, a) => ({
      kind: 'attack',
      url,
      label: attack.label,
      method: 'POST',
      path: attack.path,
      headers: attack.headers,
      concurrency: attack.concurrency,
      bodyFiles: attack.bodies.map((body, b) => {
        const file = join(dir, `${a}-${b}.body`);
        writeFileSync(file, body);
        return file;
      }),
    }));
    if (options.probe !== false) tasks.push({ kind: 'probe', url, path: '/api/v1/health', intervalMs: 10, quietMs: options.quietMs ?? 0 });
    const results = tasks.map((task) => {
      const script = join(ROOT, 'scripts/bench-load.ts');
      const nodeArgs = [...process.execArgv, script];
      const child =
        task.kind === 'attack'
          ? spawn('nice', ['-n', String(ATTACKER_NICE), process.execPath, ...nodeArgs], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
          : spawn(process.execPath, nodeArgs, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      const ready = new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`a load process exited with ${code} before it was ready`)));
      });
      const result = ready.then(
        () =>
          new Promise<AttackResult | ProbeResult>((resolve, reject) => {
            child.once('message', (message: { result: AttackResult | ProbeResult }) => resolve(message.result));
            child.once('exit', (code) => reject(new Error(`a load process exited with ${code} without its result`)));
          }),
      );
      child.send({ task });
      return { child, ready, result };
    });
    await Promise.all(results.map((r) => r.ready));
    const quietUntil = Date.now() + (options.quietMs ?? 0);
    const until = quietUntil + options.durationS * 1000;
    const startLoad = loadavg()[0]!;
    for (const { child } of results) child.send({ go: true, quietUntil, until });
    const outcome: LoadOutcome = {
      latencies: [],
      quiet: [],
      answers: {},
      retryAfter: 0,
      loadAverage: [startLoad, 0],
      server: null,
      quietServer: null,
    };
    const pid = options.serverPid;
    let before: ThreadTimes | null = null;
    if (pid !== undefined) {
      const quietStart = threadTimes(pid);
      await new Promise((resolve) => setTimeout(resolve, quietUntil - Date.now()));
      before = threadTimes(pid);
      outcome.quietServer = timesSince(quietStart, before);
    }
    const ended = await Promise.all(results.map((r) => r.result));
    if (pid !== undefined) outcome.server = timesSince(before, threadTimes(pid));
    for (const result of ended) {
      if (result.kind === 'probe') {
        outcome.latencies = result.latencies.sort((a, b) => a - b);
        outcome.quiet = result.quiet.sort((a, b) => a - b);
      } else {
        for (const [key, count] of Object.entries(result.answers)) outcome.answers[key] = (outcome.answers[key] ?? 0) + count;
        outcome.retryAfter += result.retryAfter;
      }
    }
    outcome.loadAverage[1] = loadavg()[0]!;
    return outcome;
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `p50 … ms, p99 … ms, max … ms` of sorted latencies. */
export function latencySummary(sorted: number[]): string {
  return `${sorted.length} requests, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`;
}

/** CPU time of a process's threads (Linux `schedstat`), in ms: what a scenario cost the server, whatever else the machine ran. */
export interface ThreadTimes {
  /** The main thread (the event loop): time on a core, and time runnable but waiting for one. */
  mainCpuMs: number;
  mainWaitMs: number;
  /** Every other thread (workers, libuv, V8's): time on a core. */
  otherCpuMs: number;
}

export function threadTimes(pid: number): ThreadTimes | null {
  try {
    const times: ThreadTimes = { mainCpuMs: 0, mainWaitMs: 0, otherCpuMs: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let fields: number[];
      try {
        fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      } catch {
        continue; // the thread ended meanwhile
      }
      if (Number(tid) === pid) {
        times.mainCpuMs = fields[0]! / 1e6;
        times.mainWaitMs = fields[1]! / 1e6;
      } else {
        times.otherCpuMs += fields[0]! / 1e6;
      }
    }
    return times;
  } catch {
    return null;
  }
}

/** The difference of two readings (threads that ended in between are not counted). */
export function timesSince(before: ThreadTimes | null, after: ThreadTimes | null): ThreadTimes | null {
  if (before === null || after === null) return null;
  return {
    mainCpuMs: after.mainCpuMs - before.mainCpuMs,
    mainWaitMs: after.mainWaitMs - before.mainWaitMs,
    otherCpuMs: Math.max(0, after.otherCpuMs - before.otherCpuMs),
  };
}
