import {
  fingerprint,
  IDEMPOTENCY_TTL_MS,
  storedAnswerFor,
  type IdempotentRequest,
  type StoredAnswer,
  type StoredAnswerRow,
} from '../idempotency.js';
import { JOB_CHARGE_ROUTE } from '../job-rows.js';
import { randomId } from '../../core/random-ids.js';
import {
  activeKeyOf,
  API_KEY_PATTERN,
  hashApiKey,
  keyRowToRecord,
  prepareKey,
  unknownKeyError,
  type ApiKeyRecord,
  type CreatedKey,
  type CreateKeyOptions,
  type KeyRow,
} from '../api-keys.js';
import {
  checkQuota,
  periodOf,
  periodResetAt,
  reconcileRows,
  type Charge,
  type QuotaState,
  type ReconcileRow,
  type UsageRow,
} from '../quota.js';
import { bucketDecision, type RateDecision, type RatePolicy } from '../rate-limit.js';
import type { DeliveryRow, DeliveryState } from '../webhook-outbox.js';
import {
  hashSessionToken,
  liveSessionOf,
  prepareSession,
  SESSION_TOKEN_PATTERN,
  sessionRowToRecord,
  touchedIdleExpiry,
  unknownSessionError,
  type SessionLifetime,
  type SessionRow,
  type StudioSession,
} from '../studio-sessions.js';
import type {
  AssetRecords,
  AssetRow,
  IdempotencyRecords,
  KeyRecords,
  RateLimitRecords,
  SessionRecords,
  UsageRecords,
  WebhookRecords,
} from '../types.js';
import { withTransaction, type Client, type Pool } from './connection.js';

/**
 * The server's records in PostgreSQL, with the semantics of the SQLite stores in src/records/sqlite/.
 * Where SQLite relies on its single writer (check-then-write in one IMMEDIATE transaction), these
 * take a transaction-scoped advisory lock on the one thing being checked (a key's quota, an
 * idempotency key) or update its one row atomically (a rate-limit bucket), so API nodes on
 * different machines serialise exactly there.
 */

/** `pg_advisory_xact_lock(hashtextextended(name, 0))`: held until the transaction ends. */
async function lockName(client: Client, name: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
}

/**
 * Takes `charge.units` of a key's quota in the caller's transaction, under the lock of that key's
 * month (API nodes on different machines check and write one after the other); throws when they
 * do not fit. The render dispatch calls it in the transaction that inserts the job.
 */
export async function takeUnits(client: Client, charge: Charge): Promise<void> {
  await lockName(client, `usage:${charge.keyId}:${charge.period}`);
  const { rows } = await client.query<{ used: number }>(
    'SELECT COALESCE(SUM(count), 0)::bigint AS used FROM server_usage WHERE key_id = $1 AND period = $2',
    [charge.keyId, charge.period],
  );
  checkQuota(rows[0]!.used, charge);
  await client.query(
    `INSERT INTO server_usage (key_id, period, route, count) VALUES ($1, $2, $3, $4)
     ON CONFLICT (key_id, period, route) DO UPDATE SET count = server_usage.count + EXCLUDED.count`,
    [charge.keyId, charge.period, charge.route, charge.units],
  );
}

/** Gives a job's units back, in the transaction that ends the job. */
export async function returnUnits(client: Client, row: { charge_key_id: string; charge_period: string; units: number }): Promise<void> {
  await client.query('UPDATE server_usage SET count = GREATEST(0, count - $1) WHERE key_id = $2 AND period = $3 AND route = $4', [
    row.units,
    row.charge_key_id,
    row.charge_period,
    JOB_CHARGE_ROUTE,
  ]);
}

/**
 * The live answer for (API key, Idempotency-Key), read under the key's advisory lock (held to the
 * end of the caller's transaction: a duplicate on another node waits, then finds the answer);
 * null when there is none (an expired one is deleted). Throws `reusedError` for another route or body.
 */
export async function lockedAnswer(client: Client, request: IdempotentRequest, now: number): Promise<StoredAnswer | null> {
  await lockName(client, `idempotency:${request.keyId}\n${request.key}`);
  const { rows } = await client.query<StoredAnswerRow>(
    'SELECT route, fingerprint, status_code, body, job_id, created_at FROM server_idempotency WHERE key_id = $1 AND idempotency_key = $2',
    [request.keyId, request.key],
  );
  if (rows[0] === undefined) return null;
  const answer = storedAnswerFor(rows[0], request, now);
  if (answer !== 'expired') return answer;
  await client.query('DELETE FROM server_idempotency WHERE key_id = $1 AND idempotency_key = $2', [request.keyId, request.key]);
  return null;
}

/** Stores an answer; the primary key (API key, Idempotency-Key) refuses a second one. */
export async function storeAnswer(client: Client, request: IdempotentRequest, store: StoredAnswer, now: number): Promise<void> {
  await client.query(
    `INSERT INTO server_idempotency (key_id, idempotency_key, route, fingerprint, status_code, body, job_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [request.keyId, request.key, request.route, request.fingerprint, store.statusCode, store.body, store.jobId, now],
  );
}

/** Writes a job's outbox row (`waiting`); the render dispatch calls it in the transaction that inserts the job. */
export async function registerWebhook(
  client: Pick<Pool, 'query'> | Client,
  jobId: string,
  tenant: string,
  url: string,
  now: number,
): Promise<void> {
  await client.query(
    `INSERT INTO server_webhooks (job_id, tenant, url, message_id, state, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'waiting', $5, $5) ON CONFLICT (job_id) DO NOTHING`,
    [jobId, tenant, url, randomId('msg', 24), now],
  );
}

export class PostgresKeyRecords implements KeyRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async create(options: CreateKeyOptions): Promise<CreatedKey> {
    const prepared = prepareKey(options, this.now());
    const { row } = prepared;
    await withTransaction(this.pool, async (client) => {
      await client.query(
        'INSERT INTO server_tenants (tenant, webhook_secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (tenant) DO NOTHING',
        [row.tenant, prepared.newTenantSecret, row.created_at],
      );
      await client.query(
        `INSERT INTO server_api_keys (key_id, tenant, key_hash, hint, scopes, plan, monthly_quota, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [row.key_id, row.tenant, row.key_hash, row.hint, row.scopes, row.plan, row.monthly_quota, row.created_at],
      );
    });
    return { record: (await this.get(row.key_id))!, apiKey: prepared.apiKey, webhookSecret: (await this.webhookSecret(row.tenant))! };
  }

  async get(keyId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query<KeyRow>('SELECT * FROM server_api_keys WHERE key_id = $1', [keyId]);
    return rows[0] === undefined ? null : keyRowToRecord(rows[0]);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.pool.query<KeyRow>('SELECT * FROM server_api_keys ORDER BY created_at COLLATE "C", key_id COLLATE "C"')).rows.map(
      keyRowToRecord,
    );
  }

  async listForTenant(tenant: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>(
      'SELECT * FROM server_api_keys WHERE tenant = $1 ORDER BY created_at COLLATE "C", key_id COLLATE "C"',
      [tenant],
    );
    return rows.map(keyRowToRecord);
  }

  /** The key's Studio sessions end with it, in the same transaction (docs/security.md "Studio sessions"). */
  async revoke(keyId: string): Promise<ApiKeyRecord> {
    const existing = await this.get(keyId);
    if (existing === null) throw unknownKeyError(keyId);
    await withTransaction(this.pool, async (client) => {
      await client.query('UPDATE server_api_keys SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL', [
        new Date(this.now()).toISOString(),
        keyId,
      ]);
      await client.query('DELETE FROM server_studio_sessions WHERE key_id = $1', [keyId]);
    });
    return (await this.get(keyId))!;
  }

  async authenticate(presented: string): Promise<ApiKeyRecord | null> {
    if (!API_KEY_PATTERN.test(presented)) return null;
    const hash = hashApiKey(presented);
    const { rows } = await this.pool.query<KeyRow>('SELECT * FROM server_api_keys WHERE key_hash = $1', [hash]);
    return activeKeyOf(rows[0], hash);
  }

  async touch(keyId: string): Promise<void> {
    await this.pool.query('UPDATE server_api_keys SET last_used_at = $1 WHERE key_id = $2', [new Date(this.now()).toISOString(), keyId]);
  }

  async webhookSecret(tenant: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ webhook_secret: string }>('SELECT webhook_secret FROM server_tenants WHERE tenant = $1', [
      tenant,
    ]);
    return rows[0]?.webhook_secret ?? null;
  }
}

/** Studio sessions, as the SQLite store keeps them (src/records/sqlite/studio-sessions.ts). */
export class PostgresSessionRecords implements SessionRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async create(key: ApiKeyRecord, lifetime: SessionLifetime): Promise<{ token: string; session: StudioSession }> {
    const { row, token } = prepareSession(key, lifetime, this.now());
    await this.pool.query(
      `INSERT INTO server_studio_sessions (session_id, token_hash, key_id, tenant, created_at, last_used_at, idle_expires_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [row.session_id, row.token_hash, row.key_id, row.tenant, row.created_at, row.last_used_at, row.idle_expires_at, row.expires_at],
    );
    return { token, session: sessionRowToRecord(row) };
  }

  async authenticate(token: string, lifetime: SessionLifetime): Promise<{ session: StudioSession; key: ApiKeyRecord } | null> {
    if (!SESSION_TOKEN_PATTERN.test(token)) return null;
    const hash = hashSessionToken(token);
    const now = this.now();
    const found = await this.pool.query<SessionRow>('SELECT * FROM server_studio_sessions WHERE token_hash = $1', [hash]);
    const row = liveSessionOf(found.rows[0], hash, now);
    if (row === null) return null;
    const keys = await this.pool.query<KeyRow>('SELECT * FROM server_api_keys WHERE key_id = $1', [row.key_id]);
    const keyRow = keys.rows[0];
    if (keyRow === undefined || keyRow.revoked_at !== null) return null;
    const idleExpiresAt = touchedIdleExpiry(row, lifetime, now);
    if (idleExpiresAt !== null) {
      await this.pool.query('UPDATE server_studio_sessions SET last_used_at = $1, idle_expires_at = $2 WHERE session_id = $3', [
        now,
        idleExpiresAt,
        row.session_id,
      ]);
      row.last_used_at = now;
      row.idle_expires_at = idleExpiresAt;
    }
    return { session: sessionRowToRecord(row), key: keyRowToRecord(keyRow) };
  }

  async end(token: string): Promise<boolean> {
    if (!SESSION_TOKEN_PATTERN.test(token)) return false;
    const { rowCount } = await this.pool.query('DELETE FROM server_studio_sessions WHERE token_hash = $1', [hashSessionToken(token)]);
    return (rowCount ?? 0) > 0;
  }

  async list(): Promise<StudioSession[]> {
    const now = this.now();
    const { rows } = await this.pool.query<SessionRow>(
      'SELECT * FROM server_studio_sessions WHERE idle_expires_at > $1 AND expires_at > $1 ORDER BY created_at, session_id COLLATE "C"',
      [now],
    );
    return rows.map(sessionRowToRecord);
  }

  async revoke(sessionId: string): Promise<StudioSession> {
    const now = this.now();
    const { rows } = await this.pool.query<SessionRow>('DELETE FROM server_studio_sessions WHERE session_id = $1 RETURNING *', [sessionId]);
    const row = rows[0];
    if (row === undefined || row.idle_expires_at <= now || row.expires_at <= now) throw unknownSessionError(sessionId);
    return sessionRowToRecord(row);
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM server_studio_sessions WHERE idle_expires_at <= $1 OR expires_at <= $1', [
      this.now(),
    ]);
    return rowCount ?? 0;
  }
}

export class PostgresUsageRecords implements UsageRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async used(keyId: string, period = periodOf(this.now())): Promise<number> {
    const { rows } = await this.pool.query<{ used: number }>(
      'SELECT COALESCE(SUM(count), 0)::bigint AS used FROM server_usage WHERE key_id = $1 AND period = $2',
      [keyId, period],
    );
    return rows[0]!.used;
  }

  async state(keyId: string, limit: number): Promise<QuotaState> {
    const now = this.now();
    const used = await this.used(keyId, periodOf(now));
    return { period: periodOf(now), used, limit, remaining: Math.max(0, limit - used), resets_at: periodResetAt(now) };
  }

  async charge(charge: Charge): Promise<void> {
    await withTransaction(this.pool, (client) => takeUnits(client, charge));
  }

  async reconcile(period: string | null): Promise<ReconcileRow[]> {
    const used = await this.pool.query<{ key_id: string; period: string; count: number }>(
      `SELECT key_id, period, count FROM server_usage WHERE route = $1${period === null ? '' : ' AND period = $2'}`,
      period === null ? [JOB_CHARGE_ROUTE] : [JOB_CHARGE_ROUTE, period],
    );
    const charged = await this.pool.query<{ key_id: string; period: string; units: number }>(
      `SELECT charge_key_id AS key_id, charge_period AS period, SUM(units)::bigint AS units FROM jobs
       WHERE charge_key_id IS NOT NULL AND refunded_at IS NULL${period === null ? '' : ' AND charge_period = $1'}
       GROUP BY charge_key_id, charge_period`,
      period === null ? [] : [period],
    );
    return reconcileRows(used.rows, charged.rows);
  }

  async byKey(keyIds: string[], period: string): Promise<UsageRow[]> {
    if (keyIds.length === 0) return [];
    const { rows } = await this.pool.query<UsageRow>(
      'SELECT key_id, route, count FROM server_usage WHERE period = $1 AND key_id = ANY($2::text[]) ORDER BY key_id COLLATE "C", route COLLATE "C"',
      [period, keyIds],
    );
    return rows;
  }
}

/**
 * Idempotency across nodes: the first request holds a transaction-scoped advisory lock on
 * (API key, Idempotency-Key) while it runs, so a duplicate arriving at another node waits for it
 * and then replays its stored answer — what the SQLite store does with an in-process map. The
 * answer and the request's charge commit together, or neither does.
 */
export class PostgresIdempotencyRecords implements IdempotencyRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async hasStored(keyId: string, idempotencyKey: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      'SELECT 1 FROM server_idempotency WHERE key_id = $1 AND idempotency_key = $2 AND created_at > $3',
      [keyId, idempotencyKey, this.now() - IDEMPOTENCY_TTL_MS],
    );
    return rows.length > 0;
  }

  async find(keyId: string, idempotencyKey: string, route: string, body: unknown): Promise<StoredAnswer | null> {
    const { rows } = await this.pool.query<StoredAnswerRow>(
      'SELECT route, fingerprint, status_code, body, job_id, created_at FROM server_idempotency WHERE key_id = $1 AND idempotency_key = $2',
      [keyId, idempotencyKey],
    );
    if (rows[0] === undefined) return null;
    const answer = storedAnswerFor(rows[0], { route, fingerprint: fingerprint(route, body) }, this.now());
    return answer === 'expired' ? null : answer;
  }

  run<T>(
    keyId: string,
    idempotencyKey: string,
    route: string,
    body: unknown,
    execute: () => Promise<{ value: T; store: StoredAnswer }>,
    charge: Charge | null = null,
  ): Promise<{ replayed: false; value: T } | { replayed: true; stored: StoredAnswer }> {
    const request: IdempotentRequest = { keyId, key: idempotencyKey, route, fingerprint: fingerprint(route, body) };
    return withTransaction(this.pool, async (client) => {
      const existing = await lockedAnswer(client, request, this.now());
      if (existing !== null) return { replayed: true as const, stored: existing };
      // A failure here rolls back: nothing is stored nor charged, so a retry runs again (as with SQLite).
      const { value, store } = await execute();
      if (charge !== null) await takeUnits(client, charge);
      await storeAnswer(client, request, store, this.now());
      return { replayed: false as const, value };
    });
  }

  async purgeExpired(): Promise<number> {
    return (
      (await this.pool.query('DELETE FROM server_idempotency WHERE created_at <= $1', [this.now() - IDEMPOTENCY_TTL_MS])).rowCount ?? 0
    );
  }
}

export class PostgresAssetRecords implements AssetRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async insert(row: AssetRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO server_assets (asset_id, tenant, content_type, format, width, height, size_bytes, sha256, file, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.asset_id,
        row.tenant,
        row.content_type,
        row.format,
        row.width,
        row.height,
        row.size_bytes,
        row.sha256,
        row.file,
        row.created_at,
        row.expires_at,
      ],
    );
  }

  async find(tenant: string, assetId: string): Promise<AssetRow | null> {
    const { rows } = await this.pool.query<AssetRow>('SELECT * FROM server_assets WHERE asset_id = $1', [assetId]);
    const row = rows[0];
    return row === undefined || row.tenant !== tenant || row.expires_at <= this.now() ? null : row;
  }

  async takeExpired(): Promise<Pick<AssetRow, 'asset_id' | 'file'>[]> {
    const { rows } = await this.pool.query<Pick<AssetRow, 'asset_id' | 'file'>>(
      'DELETE FROM server_assets WHERE expires_at <= $1 RETURNING asset_id, file',
      [this.now()],
    );
    return rows.sort((a, b) => (a.asset_id < b.asset_id ? -1 : 1));
  }
}

export class PostgresWebhookRecords implements WebhookRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async register(jobId: string, tenant: string, url: string): Promise<void> {
    await registerWebhook(this.pool, jobId, tenant, url, this.now());
  }

  async enqueue(jobId: string, payload: string): Promise<boolean> {
    const now = this.now();
    const result = await this.pool.query(
      `UPDATE server_webhooks SET state = 'pending', payload = $1, next_attempt_at = $2, updated_at = $2 WHERE job_id = $3 AND state = 'waiting'`,
      [payload, now, jobId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async get(jobId: string): Promise<DeliveryRow | null> {
    const { rows } = await this.pool.query<DeliveryRow>(
      'SELECT job_id, tenant, url, message_id, state, payload, attempts, next_attempt_at, last_status, last_error FROM server_webhooks WHERE job_id = $1',
      [jobId],
    );
    return rows[0] ?? null;
  }

  async waitingJobIds(): Promise<string[]> {
    return (await this.pool.query<{ job_id: string }>(`SELECT job_id FROM server_webhooks WHERE state = 'waiting'`)).rows.map(
      (r) => r.job_id,
    );
  }

  async backlog(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM server_webhooks WHERE state = 'pending'`);
    return Number(rows[0]!.n);
  }

  async due(limit = 20): Promise<DeliveryRow[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT job_id, tenant, url, message_id, state, payload, attempts, next_attempt_at, last_status, last_error
       FROM server_webhooks WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2`,
      [this.now(), limit],
    );
    return rows;
  }

  async claimDue(limit: number, leaseMs: number, perTenant = limit): Promise<DeliveryRow[]> {
    const now = this.now();
    // SKIP LOCKED: two nodes claiming at once take disjoint rows; at most `perTenant` per tenant,
    // as the SQLite outbox does. RETURNING gives the new next_attempt_at, so the rows are re-read
    // as they were due, like `due`.
    const { rows } = await this.pool.query<DeliveryRow & { due_at: number }>(
      `WITH ranked AS (
         SELECT job_id, ROW_NUMBER() OVER (PARTITION BY tenant ORDER BY next_attempt_at) AS tenant_rank
         FROM server_webhooks WHERE state = 'pending' AND next_attempt_at <= $1
       ), taken AS (
         SELECT w.job_id, w.next_attempt_at AS due_at FROM server_webhooks w JOIN ranked r ON r.job_id = w.job_id
         WHERE r.tenant_rank <= $4 AND w.state = 'pending' AND w.next_attempt_at <= $1
         ORDER BY w.next_attempt_at LIMIT $2 FOR UPDATE OF w SKIP LOCKED
       )
       UPDATE server_webhooks w SET next_attempt_at = $3 FROM taken WHERE w.job_id = taken.job_id
       RETURNING w.job_id, w.tenant, w.url, w.message_id, w.state, w.payload, w.attempts, taken.due_at, w.last_status, w.last_error`,
      [now, limit, now + leaseMs, perTenant],
    );
    return rows
      .map(({ due_at, ...row }) => ({ ...row, next_attempt_at: due_at }))
      .sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0));
  }

  async record(
    jobId: string,
    outcome: { state: DeliveryState; status: number | null; error: string | null; nextAttemptAt: number | null },
  ): Promise<void> {
    await this.pool.query(
      `UPDATE server_webhooks SET state = $1, attempts = attempts + 1, last_status = $2, last_error = $3, next_attempt_at = $4, updated_at = $5 WHERE job_id = $6`,
      [outcome.state, outcome.status, outcome.error, outcome.nextAttemptAt, this.now(), jobId],
    );
  }
}

/**
 * The token bucket of src/records/rate-limit.ts (`TokenBucketLimiter`, docs/api.md "Rate limits"),
 * shared by all nodes: one row per (policy, key) with the tokens left and when they were counted.
 * One statement refills, takes and answers: `INSERT … ON CONFLICT DO UPDATE` locks the row, so
 * concurrent requests from any node queue on it and each sees the tokens the previous one left
 * (a missing row is a full bucket). The refill is the limiter's arithmetic, in the same order on
 * the same doubles (`float8`), so both backends give the same decisions to the token.
 */
export class PostgresRateLimitRecords implements RateLimitRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async take(policy: RatePolicy, partition: string): Promise<RateDecision> {
    const now = this.now();
    const perMs = policy.limit / policy.windowMs;
    const { rows } = await this.pool.query<{ tokens: number; last_taken: boolean }>(
      `INSERT INTO server_rate_buckets AS b (policy, partition, tokens, counted_at, last_taken)
       SELECT $1, $2, CASE WHEN fresh.tokens >= 1 THEN fresh.tokens - 1 ELSE fresh.tokens END, $4::float8, fresh.tokens >= 1
       FROM (SELECT $3::float8 AS tokens) fresh
       ON CONFLICT (policy, partition) DO UPDATE SET (tokens, counted_at, last_taken) = (
         SELECT CASE WHEN r.tokens >= 1 THEN r.tokens - 1 ELSE r.tokens END, $4::float8, r.tokens >= 1
         FROM (SELECT LEAST($3::float8, b.tokens + ($4::float8 - b.counted_at) * $5::float8) AS tokens) r
       )
       RETURNING tokens, last_taken`,
      [policy.name, partition, policy.limit, now, perMs],
    );
    return bucketDecision(policy, rows[0]!.tokens, rows[0]!.last_taken);
  }
}
