/**
 * One process of a server benchmark's load (scripts/bench-serve.ts `underLoad`, docs/security.md
 * "How the benchmark measures"): either an attacker sending the same requests over and over, or
 * the health prober. Started by the benchmark with an IPC channel: it is given its task, says
 * `ready` once its bodies are read, starts on `go` and sends back what it counted.
 *
 * An attacker runs under `nice`, in a process of its own: on the one machine that runs server and
 * load, it must neither stall the prober (a prober sharing the attacker's event loop measures the
 * attacker) nor take a core from the server's event loop, as an attacker on another machine would not.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

export interface AttackTask {
  kind: 'attack';
  url: string;
  /** A name for the answers' counts, e.g. `analyze`. */
  label: string;
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  /** Files holding the bodies, sent in turn. */
  bodyFiles: string[];
  /** Requests always in flight. */
  concurrency: number;
}

export interface ProbeTask {
  kind: 'probe';
  url: string;
  path: string;
  /** Pause between the end of one probe and the next. */
  intervalMs: number;
  /** First probe with nothing else in flight for this long (what the machine's own load costs). */
  quietMs: number;
}

export type LoadTask = AttackTask | ProbeTask;

export interface AttackResult {
  kind: 'attack';
  /** `label status[ reason]` → count. */
  answers: Record<string, number>;
  retryAfter: number;
}

export interface ProbeResult {
  kind: 'probe';
  latencies: number[];
  quiet: number[];
}

/** `quietUntil`: the probe runs alone until then, and the attackers start then. */
type Message = { task: LoadTask } | { go: true; until: number; quietUntil?: number };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function attack(task: AttackTask, bodies: Buffer[], from: number, until: number): Promise<AttackResult> {
  await pause(from - Date.now());
  const pool = new Pool(task.url, { connections: task.concurrency });
  const answers: Record<string, number> = {};
  let retryAfter = 0;
  let sent = 0;
  const lane = async (): Promise<void> => {
    while (Date.now() < until) {
      const body = bodies[sent % bodies.length]!;
      sent += 1;
      const answer = await pool.request({ method: task.method, path: task.path, headers: task.headers, body });
      const text = await answer.body.text();
      let reason: string | undefined;
      if (answer.statusCode >= 400) {
        try {
          reason = (JSON.parse(text) as { error?: { reason?: string } }).error?.reason;
        } catch {
          reason = 'not json';
        }
      }
      if (answer.headers['retry-after'] !== undefined) retryAfter += 1;
      const key = `${task.label} ${answer.statusCode}${reason === undefined ? '' : ` ${reason}`}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: task.concurrency }, lane));
  await pool.close();
  return { kind: 'attack', answers, retryAfter };
}

async function probeUntil(pool: Pool, task: ProbeTask, until: number, into: number[]): Promise<void> {
  while (Date.now() < until) {
    const due = performance.now();
    const answer = await pool.request({ method: 'GET', path: task.path });
    await answer.body.dump();
    into.push(performance.now() - due);
    await pause(task.intervalMs);
  }
}

async function probe(task: ProbeTask, quietUntil: number, until: number): Promise<ProbeResult> {
  const pool = new Pool(task.url, { connections: 1 });
  const quiet: number[] = [];
  const latencies: number[] = [];
  await probeUntil(pool, task, quietUntil, quiet);
  await probeUntil(pool, task, until, latencies);
  await pool.close();
  return { kind: 'probe', latencies, quiet };
}

let task: LoadTask | undefined;
let bodies: Buffer[] = [];
process.on('message', (message: Message) => {
  if ('task' in message) {
    task = message.task;
    // Read (and encoded) once, before anything is measured.
    if (task.kind === 'attack') bodies = task.bodyFiles.map((file) => readFileSync(file));
    process.send!({ ready: true });
    return;
  }
  const current = task!;
  const start = message.quietUntil ?? Date.now();
  const run = current.kind === 'attack' ? attack(current, bodies, start, message.until) : probe(current, start, message.until);
  run.then(
    (result) => process.send!({ result }, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
