import type { JobPatch, JobRow, NewJob, Owner } from './job-rows.js';
import type { JobQueue, JobRecords, QueueMessage, QueueSettings } from './job-rows.js';
import type { StoredAnswer } from './idempotency.js';
import type { ApiKeyRecord, CreatedKey, CreateKeyOptions } from './api-keys.js';
import type { BillableRoute, Charge, QuotaState, ReconcileRow, UsageRow } from './quota.js';
import type { RateDecision, RatePolicy } from './rate-limit.js';
import type { DeliveryRow, DeliveryState } from './webhook-outbox.js';
import type { SessionLifetime, StudioSession } from './studio-sessions.js';
import type { ShareRecords } from './shares.js';

/**
 * The record store: every piece of shared state (docs/scaling.md "Record store"), behind
 * asynchronous interfaces with two implementations — SQLite (the embedded default, adapting the
 * existing synchronous stores without changing their behaviour) and PostgreSQL (several machines).
 * The rest of the code must not know which one runs.
 */

export type { JobPatch, JobRow, NewJob, Owner, JobQueue, JobRecords, QueueMessage, QueueSettings };
export type { StoredAnswer, ApiKeyRecord, CreatedKey, CreateKeyOptions, BillableRoute, Charge, QuotaState, ReconcileRow, UsageRow };
export type { RateDecision, RatePolicy, DeliveryRow, DeliveryState, SessionLifetime, StudioSession };

export interface KeyRecords {
  create(options: CreateKeyOptions): Promise<CreatedKey>;
  get(keyId: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  listForTenant(tenant: string): Promise<ApiKeyRecord[]>;
  /** Also ends every Studio session of the key (docs/security.md "Studio sessions"). */
  revoke(keyId: string): Promise<ApiKeyRecord>;
  authenticate(presented: string): Promise<ApiKeyRecord | null>;
  touch(keyId: string): Promise<void>;
  webhookSecret(tenant: string): Promise<string | null>;
}

/** Studio sign-in sessions (src/records/studio-sessions.ts): only the token's hash is stored. */
export interface SessionRecords {
  /** A new session of an active key; the token is returned once, for the cookie. */
  create(key: ApiKeyRecord, lifetime: SessionLifetime): Promise<{ token: string; session: StudioSession }>;
  /**
   * The live session a token names and its key, or null: unknown, malformed, expired (idle or
   * absolute) or of a revoked key. A use pushes the idle expiry on (written at most once a minute).
   */
  authenticate(token: string, lifetime: SessionLifetime): Promise<{ session: StudioSession; key: ApiKeyRecord } | null>;
  /** Sign-out: the token's session is deleted. True when there was one. */
  end(token: string): Promise<boolean>;
  /** Live sessions, oldest first. */
  list(): Promise<StudioSession[]>;
  /** Ends a session by its public id; NOT_FOUND when there is no live one. */
  revoke(sessionId: string): Promise<StudioSession>;
  /** Deletes ended sessions; how many. */
  purgeExpired(): Promise<number>;
}

/** Monthly quotas, per key across all nodes. */
export interface UsageRecords {
  used(keyId: string, period?: string): Promise<number>;
  state(keyId: string, limit: number): Promise<QuotaState>;
  /**
   * Charges a request that bought no job (an analysis without `Idempotency-Key`), in one
   * transaction, as its answer goes out; throws `QUOTA_EXCEEDED` when the units do not fit. A
   * render job is charged by the transaction that inserts it (`NewJob.charge`), an analysis with a
   * key by the one that stores its answer (`IdempotencyRecords.run`).
   */
  charge(charge: Charge): Promise<void>;
  byKey(keyIds: string[], period: string): Promise<UsageRow[]>;
  /** Render units the quota counts against units held by jobs, per key and month (`immoreel db reconcile`); every month for null. */
  reconcile(period: string | null): Promise<ReconcileRow[]>;
}

export interface IdempotencyRecords {
  /**
   * Runs `execute` once per (API key, Idempotency-Key) — across all nodes for PostgreSQL — and
   * writes its answer and `charge` in one transaction: neither is written when either fails.
   */
  run<T>(
    keyId: string,
    idempotencyKey: string,
    route: string,
    body: unknown,
    execute: () => Promise<{ value: T; store: StoredAnswer }>,
    charge?: Charge | null,
  ): Promise<{ replayed: false; value: T } | { replayed: true; stored: StoredAnswer }>;
  /** The live answer stored for this key and request, or null; a different route or body is a 400 `idempotency_key_reused`. */
  find(keyId: string, idempotencyKey: string, route: string, body: unknown): Promise<StoredAnswer | null>;
  /** True when a live answer is stored for this key: a retry of it will be a replay, never charged. */
  hasStored(keyId: string, idempotencyKey: string): Promise<boolean>;
  purgeExpired(): Promise<number>;
}

/** Metadata of an uploaded asset (docs/api.md "Assets"), the same row in both backends; its bytes live in the blob store. */
export interface AssetRow {
  asset_id: string;
  tenant: string;
  content_type: string;
  format: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  /** `<asset_id>.<ext>`: the blob key is `assetKey(file)` (`assets/<file>`), under the data directory or the bucket prefix. */
  file: string;
  created_at: number;
  expires_at: number;
}

/** Metadata of uploaded assets (src/records/assets.ts); the bytes live in the blob store under `assetKey(file)`. */
export interface AssetRecords {
  insert(row: AssetRow): Promise<void>;
  /** The asset if `tenant` owns it and it has not expired; null otherwise (no probing across tenants). */
  find(tenant: string, assetId: string): Promise<AssetRow | null>;
  /** Removes and returns the rows of expired assets, so their blobs can be deleted. */
  takeExpired(): Promise<Pick<AssetRow, 'asset_id' | 'file'>[]>;
}

/** The webhook outbox: deliveries survive restarts and go out from whichever node sees them due. */
export interface WebhookRecords {
  register(jobId: string, tenant: string, url: string): Promise<void>;
  enqueue(jobId: string, payload: string): Promise<boolean>;
  get(jobId: string): Promise<DeliveryRow | null>;
  waitingJobIds(): Promise<string[]>;
  /** Deliveries owed and not yet made (`pending`): the outbox backlog of docs/operations.md "Metrics". */
  backlog(): Promise<number>;
  due(limit?: number): Promise<DeliveryRow[]>;
  /**
   * Due deliveries taken for one sender: their next attempt moves `leaseMs` ahead, so another
   * node polling meanwhile does not send them too. The sender then `record`s the outcome; if it
   * dies first, the delivery is due again when the lease ends (at least once, never lost).
   * At most `perTenant` rows of one tenant are taken, so one tenant's backlog hides no other's.
   */
  claimDue(limit: number, leaseMs: number, perTenant?: number): Promise<DeliveryRow[]>;
  record(
    jobId: string,
    outcome: { state: DeliveryState; status: number | null; error: string | null; nextAttemptAt: number | null },
  ): Promise<void>;
}

/** Token-bucket rate limits, per key across all nodes (src/records/rate-limit.ts defines the semantics). */
export interface RateLimitRecords {
  take(policy: RatePolicy, partition: string): Promise<RateDecision>;
}

export interface RecordStore {
  /** `sqlite` (embedded default) or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  readonly jobs: JobRecords;
  readonly keys: KeyRecords;
  readonly sessions: SessionRecords;
  readonly usage: UsageRecords;
  readonly idempotency: IdempotencyRecords;
  readonly assets: AssetRecords;
  /** Share links (src/records/shares.ts). */
  readonly shares: ShareRecords;
  readonly webhooks: WebhookRecords;
  readonly rateLimits: RateLimitRecords;
  /** Throws when the database does not answer (`GET /health`). */
  ping(): Promise<void>;
  /** Throws when the render queue does not answer (`GET /api/v1/ready`): pg-boss's schema on PostgreSQL; the job table itself on SQLite. */
  pingQueue(): Promise<void>;
  close(): Promise<void>;
}
