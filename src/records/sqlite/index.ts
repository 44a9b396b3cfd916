import { JobStore, sqliteJobRecords } from './jobs.js';
import { TokenBucketLimiter } from '../rate-limit.js';
import type { RecordStore } from '../types.js';
import { openServerStore, type ServerStore } from './server-records.js';

/**
 * The embedded default as a RecordStore: the existing synchronous SQLite stores, wrapped in
 * promises with no change of behaviour. SQLite answers in microseconds from the same process, so
 * the wrapping costs nothing measurable; it lets the rest of the code be written once for both
 * backends. Rate-limit windows stay in this process's memory: one machine, one process serving.
 */
export function openSqliteRecordStore(dataDir: string, options: { now?: () => number } = {}): RecordStore {
  const now = options.now ?? Date.now;
  const jobStore = JobStore.open(dataDir, { now });
  let server: ServerStore;
  try {
    server = openServerStore(dataDir, { now });
  } catch (error) {
    jobStore.close();
    throw error;
  }
  const limiter = new TokenBucketLimiter(now);
  const db = server.db;
  // Runs synchronous work as a promise, so a throw becomes a rejection exactly as in PostgreSQL.
  const later = <T>(work: () => T): Promise<T> => new Promise((resolve) => resolve(work()));

  return {
    kind: 'sqlite',
    jobs: sqliteJobRecords(jobStore),
    keys: {
      create: (keyOptions) => later(() => server.keys.create(keyOptions)),
      get: (keyId) => later(() => server.keys.get(keyId)),
      list: () => later(() => server.keys.list()),
      listForTenant: (tenant) => later(() => server.keys.listForTenant(tenant)),
      revoke: (keyId) => later(() => server.keys.revoke(keyId)),
      authenticate: (presented) => later(() => server.keys.authenticate(presented)),
      touch: (keyId) => later(() => server.keys.touch(keyId)),
      webhookSecret: (tenant) => later(() => server.keys.webhookSecret(tenant)),
    },
    sessions: {
      create: (key, lifetime) => later(() => server.sessions.create(key, lifetime)),
      authenticate: (token, lifetime) => later(() => server.sessions.authenticate(token, lifetime)),
      end: (token) => later(() => server.sessions.end(token)),
      list: () => later(() => server.sessions.list()),
      revoke: (sessionId) => later(() => server.sessions.revoke(sessionId)),
      purgeExpired: () => later(() => server.sessions.purgeExpired()),
    },
    usage: {
      used: (keyId, period) => later(() => server.usage.used(keyId, period)),
      state: (keyId, limit) => later(() => server.usage.state(keyId, limit)),
      charge: (charge) => later(() => server.usage.charge(charge)),
      byKey: (keyIds, period) => later(() => server.usage.byKey(keyIds, period)),
      reconcile: (period) => later(() => server.usage.reconcile(period)),
    },
    idempotency: {
      run: (keyId, idempotencyKey, route, body, execute, charge) =>
        server.idempotency.run(keyId, idempotencyKey, route, body, execute, charge),
      find: (keyId, idempotencyKey, route, body) => later(() => server.idempotency.find(keyId, idempotencyKey, route, body)),
      hasStored: (keyId, idempotencyKey) => later(() => server.idempotency.hasStored(keyId, idempotencyKey)),
      purgeExpired: () => later(() => server.idempotency.purgeExpired()),
    },
    assets: server.assets,
    shares: server.shares,
    webhooks: {
      register: (jobId, tenant, url) => later(() => server.webhooks.register(jobId, tenant, url)),
      enqueue: (jobId, payload) => later(() => server.webhooks.enqueue(jobId, payload)),
      get: (jobId) => later(() => server.webhooks.get(jobId)),
      waitingJobIds: () => later(() => server.webhooks.waitingJobIds()),
      backlog: () => later(() => server.webhooks.backlog()),
      due: (limit) => later(() => server.webhooks.due(limit)),
      claimDue: (limit, leaseMs, perTenant) =>
        later(() =>
          db
            .transaction(() => {
              const rows = server.webhooks.due(limit, perTenant);
              const lease = db.prepare('UPDATE server_webhooks SET next_attempt_at = ? WHERE job_id = ?');
              for (const row of rows) lease.run(now() + leaseMs, row.job_id);
              return rows;
            })
            .immediate(),
        ),
      record: (jobId, outcome) => later(() => server.webhooks.record(jobId, outcome)),
    },
    rateLimits: {
      take: (policy, partition) => later(() => limiter.take(policy, partition)),
    },
    ping: () =>
      later(() => {
        db.prepare('SELECT 1').get();
      }),
    // The queue of the embedded default is the job table: a query on it is the check.
    pingQueue: () =>
      later(() => {
        jobStore.db.prepare('SELECT 1 FROM jobs LIMIT 1').get();
      }),
    async close() {
      server.close();
      jobStore.close();
    },
  };
}
