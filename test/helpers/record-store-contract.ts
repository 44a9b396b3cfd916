import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { newJobId } from '../../src/core/job-ids.js';
import { IllegalTransitionError } from '../../src/core/job-state.js';
import type { NewJob, Owner } from '../../src/records/job-rows.js';
import { validateRenderRequest } from '../../src/render/render-rules.js';
import type { RecordStore } from '../../src/records/types.js';
import { prepareShare } from '../../src/records/shares.js';

/**
 * The record store contract (docs/scaling.md "Record store"), written once:
 * test/unit/records runs it on SQLite, test/integration/records on PostgreSQL and compares the two.
 */

/** How a test opens a fresh, empty store of one backend. */
export type OpenRecordStore = () => Promise<RecordStore>;

/** The clock both stores read: tests move it to cross quota months, TTLs and rate windows. */
let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
export const now = (): number => clock;

function newJob(tenant = 'acme', description = 'Appartement 120 m² à Maarif, Casablanca, 1 850 000 DH'): NewJob {
  return {
    jobId: newJobId(),
    tenant,
    // The stores never fetch photos: a URL makes the request valid (a description alone has none).
    request: validateRenderRequest(
      { description, photos: ['https://photos.example.com/salon.jpg'], metadata: { crm_id: 'A-1' } },
      'server',
    ),
    inputHash: 'h'.repeat(64),
    allowLocalFiles: false,
    linkBase: 'http://127.0.0.1:8787/api/v1',
  };
}

const owner = (id: string): Owner => ({ id, host: 'test-host', pid: 4242 });
const RESULT = JSON.stringify({ width: 1280, height: 720, fps: 60, duration_s: 12, size_bytes: 1000, sha256: 'a'.repeat(64) });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Every behaviour a record store promises, once per backend given. */
export function describeRecordStoreContract(implementations: [string, OpenRecordStore][]): void {
  describe.each(implementations)('record store contract: %s', (_name, open) => {
    it('stores a job and lists it newest first with cursors and state filters', async () => {
      const store = await open();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push((await store.jobs.insert(newJob())).job_id);
        await new Promise((r) => setTimeout(r, 2)); // ids sort by creation time
      }
      await store.jobs.insert(newJob('other'));
      const row = (await store.jobs.row(ids[0]!))!;
      expect(row).toMatchObject({
        job_id: ids[0],
        tenant: 'acme',
        state: 'queued',
        progress: 0,
        attempts: 0,
        allow_local_files: 0,
        lease_expires_at: null,
      });
      const record = store.jobs.toRecord(row);
      expect(record).toMatchObject({
        state: 'queued',
        metadata: { crm_id: 'A-1' },
        links: { self: `http://127.0.0.1:8787/api/v1/jobs/${ids[0]}`, video: null },
      });
      expect((await store.jobs.requestOf(ids[0]!)).metadata).toEqual({ crm_id: 'A-1' });

      const first = await store.jobs.list('acme', { limit: 2 });
      expect(first.jobs.map((j) => j.job_id)).toEqual([ids[4], ids[3]]);
      const second = await store.jobs.list('acme', { limit: 2, cursor: first.next_cursor! });
      expect(second.jobs.map((j) => j.job_id)).toEqual([ids[2], ids[1]]);
      const last = await store.jobs.list('acme', { limit: 2, cursor: second.next_cursor! });
      expect(last).toMatchObject({ next_cursor: null });
      expect(last.jobs.map((j) => j.job_id)).toEqual([ids[0]]);
      expect((await store.jobs.list('acme', { state: 'running' })).jobs).toEqual([]);
      expect(await store.jobs.count('acme', ['queued'])).toBe(5);
      expect(await store.jobs.count(null, ['queued', 'running'])).toBe(6);
      expect(await store.jobs.count(null, [])).toBe(0);

      for (const bad of [{ limit: 0 }, { limit: 101 }, { state: 'done' as never }, { cursor: 'nope' }]) {
        const error = (await rejection(store.jobs.list('acme', bad))) as AppError;
        expect(error).toBeInstanceOf(AppError);
        expect(error).toMatchObject({ code: 'BAD_REQUEST', reason: 'invalid_field' });
      }
      await store.close();
    });

    it('moves jobs along the state machine only, and refuses illegal edges', async () => {
      const store = await open();
      const job = await store.jobs.insert(newJob());
      const claimed = (await store.jobs.claimNext(owner('w1'), 60_000))!;
      expect(claimed).toMatchObject({
        job_id: job.job_id,
        state: 'running',
        stage: 'fetching_assets',
        attempts: 1,
        owner: 'w1',
        owner_pid: 4242,
      });
      expect(claimed.lease_expires_at).toBeGreaterThan(Date.now());
      expect(await store.jobs.claimNext(owner('w2'), 60_000)).toBeNull();

      await store.jobs.setProgress(job.job_id, owner('w1'), 'rendering', 0.4567);
      await store.jobs.setProgress(job.job_id, owner('intruder'), 'verifying', 0.9);
      expect(await store.jobs.row(job.job_id)).toMatchObject({ stage: 'rendering', progress: 0.457 });

      expect(await store.jobs.transition(job.job_id, 'succeeded', {}, (row) => row.owner === 'someone-else')).toBeNull();
      const done = (await store.jobs.transition(job.job_id, 'succeeded', {
        progress: 1,
        result_json: RESULT,
        finished_at: new Date().toISOString(),
        owner: null,
      }))!;
      expect(done.state).toBe('succeeded');
      const record = store.jobs.toRecord(done);
      expect(record.result).toMatchObject({ video_url: `http://127.0.0.1:8787/api/v1/jobs/${job.job_id}/video`, sha256: 'a'.repeat(64) });
      expect(record.links.cancel).toBeNull();

      const illegal = await rejection(store.jobs.transition(job.job_id, 'running'));
      expect(illegal).toBeInstanceOf(IllegalTransitionError);
      expect((await store.jobs.row(job.job_id))!.state).toBe('succeeded');
      expect(await store.jobs.transition(newJobId(), 'canceled')).toBeNull();

      const queued = await store.jobs.insert(newJob());
      expect((await store.jobs.transition(queued.job_id, 'canceled'))!.state).toBe('canceled');
      expect(await rejection(store.jobs.transition(queued.job_id, 'succeeded'))).toBeInstanceOf(IllegalTransitionError);
      await store.close();
    });

    it('keeps a pack\'s formats from submission and each output once succeeded (docs/jobs.md "Outputs")', async () => {
      const store = await open();
      const pack = newJob();
      pack.request = { ...pack.request, format: 'portrait', formats: ['portrait', 'square'] };
      const job = await store.jobs.insert(pack);
      expect((await store.jobs.requestOf(job.job_id)).formats).toEqual(['portrait', 'square']);
      expect(store.jobs.toRecord(job)).toMatchObject({ format: 'portrait', formats: ['portrait', 'square'], outputs: null });
      // A pack of two is two of a tenant's videos in flight (docs/api.md "Video packs").
      expect(await store.jobs.count('acme', ['queued'], 'outputs')).toBe(2);
      expect(await store.jobs.count('acme', ['queued'])).toBe(1);
      await store.jobs.claimNext(owner('w1'), 60_000);
      const output = (format: string, width: number) => ({ ...JSON.parse(RESULT), width, format, poster: format === 'portrait' });
      const done = (await store.jobs.transition(job.job_id, 'succeeded', {
        progress: 1,
        result_json: RESULT,
        outputs_json: JSON.stringify([output('portrait', 720), output('square', 721)]),
        finished_at: new Date().toISOString(),
      }))!;
      const self = `http://127.0.0.1:8787/api/v1/jobs/${job.job_id}`;
      expect(store.jobs.toRecord(done).outputs?.map((o) => [o.format, o.width, o.video_url, o.poster_url])).toEqual([
        ['portrait', 720, `${self}/video?format=portrait`, `${self}/poster?format=portrait`],
        ['square', 721, `${self}/video?format=square`, null],
      ]);
      await store.close();
    });

    it('never hands one queued job to two workers claiming at once', async () => {
      const store = await open();
      const ids = new Set<string>();
      for (let i = 0; i < 8; i += 1) ids.add((await store.jobs.insert(newJob())).job_id);
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => store.jobs.claimNext(owner(`w${i}`), 60_000)));
      const taken = claims.filter((c) => c !== null).map((c) => c!.job_id);
      expect(taken.length).toBe(8);
      expect(new Set(taken)).toEqual(ids);
      expect(await store.jobs.count(null, ['running'])).toBe(8);
      await store.close();
    });

    it('keeps leases, ownership, crash-recovery and expiry lists', async () => {
      const store = await open();
      const a = await store.jobs.insert(newJob());
      const b = await store.jobs.insert(newJob());
      expect(await store.jobs.claimNext(owner('w1'), 1_000, [b.job_id])).toMatchObject({ job_id: b.job_id });
      expect(await store.jobs.claimNext(owner('w1'), 1_000, [])).toBeNull();
      const before = (await store.jobs.row(b.job_id))!.lease_expires_at!;
      await store.jobs.renewLeases(owner('w1'), 120_000);
      expect((await store.jobs.row(b.job_id))!.lease_expires_at!).toBeGreaterThan(before + 100_000);
      expect(await store.jobs.stillOwned(owner('w1'), [a.job_id, b.job_id])).toEqual(new Set([b.job_id]));
      expect((await store.jobs.runningJobs()).map((r) => r.job_id)).toEqual([b.job_id]);
      // A dead worker's job goes back to the queue, then runs again: attempts count every try.
      await store.jobs.transition(b.job_id, 'queued', { owner: null, owner_host: null, owner_pid: null, lease_expires_at: null });
      expect(await store.jobs.claimNext(owner('w2'), 1_000, [b.job_id])).toMatchObject({ attempts: 2, owner: 'w2' });
      await store.jobs.transition(b.job_id, 'failed', {
        error_code: 'RENDER_FAILED',
        error_message: 'ffmpeg died',
        finished_at: '2026-01-01T00:00:00.000Z',
      });
      expect(store.jobs.toRecord((await store.jobs.row(b.job_id))!).error).toEqual({ code: 'RENDER_FAILED', message: 'ffmpeg died' });
      expect((await store.jobs.purgeable('2026-06-01T00:00:00.000Z')).map((r) => r.job_id)).toEqual([b.job_id]);
      await store.jobs.markExpired(b.job_id);
      await store.jobs.markExpired(a.job_id); // queued: not finished, not expired
      expect(await store.jobs.purgeable('2026-06-01T00:00:00.000Z')).toEqual([]);
      expect((await store.jobs.row(a.job_id))!.expired_at).toBeNull();
      await store.close();
    });

    it('creates, authenticates and revokes API keys; one webhook secret per tenant', async () => {
      const store = await open();
      const first = await store.keys.create({ tenant: 'acme' });
      const second = await store.keys.create({ tenant: 'acme', preview: true });
      expect(first.apiKey).toMatch(/^imk_[A-Za-z0-9_-]{43}$/);
      expect(first.record).toMatchObject({ tenant: 'acme', plan: 'standard', revoked_at: null });
      expect(second.record.plan).toBe('preview');
      expect(second.webhookSecret).toBe(first.webhookSecret);
      expect(await store.keys.webhookSecret('acme')).toBe(first.webhookSecret);
      expect(await store.keys.webhookSecret('nobody')).toBeNull();
      expect((await store.keys.authenticate(first.apiKey))!.key_id).toBe(first.record.key_id);
      expect(await store.keys.authenticate(`${first.apiKey.slice(0, -1)}x`)).toBeNull();
      expect(await store.keys.authenticate('not-a-key')).toBeNull();
      await store.keys.touch(first.record.key_id);
      expect((await store.keys.get(first.record.key_id))!.last_used_at).toBe(new Date(clock).toISOString());
      expect((await store.keys.revoke(first.record.key_id)).revoked_at).not.toBeNull();
      expect(await store.keys.authenticate(first.apiKey)).toBeNull();
      expect((await store.keys.list()).map((k) => k.key_id).sort()).toEqual([first.record.key_id, second.record.key_id].sort());
      expect(await store.keys.listForTenant('other')).toEqual([]);
      expect(await rejection(store.keys.revoke('key_nope'))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await rejection(store.keys.create({ tenant: 'bad tenant!' }))).toMatchObject({ code: 'BAD_REQUEST' });
      await store.close();
    });

    it('keeps Studio sessions hashed, live until idle, absolute end, sign-out or key revocation', async () => {
      const store = await open();
      const lifetime = { idleMs: 60 * 60_000, maxMs: 3 * 3600_000 };
      const { record: key } = await store.keys.create({ tenant: 'acme' });
      const { record: other } = await store.keys.create({ tenant: 'beta' });
      const first = await store.sessions.create(key, lifetime);
      const second = await store.sessions.create(key, lifetime);
      const third = await store.sessions.create(other, lifetime);
      expect(first.token).toMatch(/^ims_[A-Za-z0-9_-]{43}$/);
      expect(first.session).toMatchObject({ key_id: key.key_id, tenant: 'acme', created_at: new Date(clock).toISOString() });
      expect(JSON.stringify(await store.sessions.list())).not.toContain(first.token);
      expect((await store.sessions.authenticate(first.token, lifetime))?.key.key_id).toBe(key.key_id);
      expect(await store.sessions.authenticate(`${first.token.slice(0, -1)}x`, lifetime)).toBeNull();
      expect(await store.sessions.authenticate(first.session.session_id, lifetime)).toBeNull();
      // Used after 50 minutes: live for another hour; the two unused for an hour: over.
      clock += 50 * 60_000;
      expect((await store.sessions.authenticate(first.token, lifetime))?.session.expires_at).toBe(new Date(clock + 3600_000).toISOString());
      clock += 59 * 60_000;
      expect(await store.sessions.authenticate(third.token, lifetime)).toBeNull();
      expect((await store.sessions.list()).map((s) => s.session_id)).toEqual([first.session.session_id]);
      expect(await store.sessions.end(first.token)).toBe(true);
      expect(await store.sessions.end(first.token)).toBe(false);
      expect(await store.sessions.authenticate(first.token, lifetime)).toBeNull();
      expect(await store.sessions.purgeExpired()).toBe(2);
      clock -= 109 * 60_000;
      // Revoking a key ends its sessions; revoking a session by id ends that one only.
      const a = await store.sessions.create(key, lifetime);
      const b = await store.sessions.create(other, lifetime);
      const c = await store.sessions.create(other, lifetime);
      await store.keys.revoke(key.key_id);
      expect(await store.sessions.authenticate(a.token, lifetime)).toBeNull();
      expect((await store.sessions.revoke(b.session.session_id)).session_id).toBe(b.session.session_id);
      expect(await rejection(store.sessions.revoke(b.session.session_id))).toMatchObject({ code: 'NOT_FOUND' });
      expect((await store.sessions.list()).map((s) => s.session_id)).toEqual([c.session.session_id]);
      expect((await store.sessions.authenticate(c.token, lifetime))?.key.tenant).toBe('beta');
      expect(second.session.session_id).not.toBe(first.session.session_id);
      await store.close();
    });

    it('counts monthly quota per key, exactly, under concurrent charges', async () => {
      const store = await open();
      const charge = (keyId: string, route: 'render_video' | 'analyze', limit: number) =>
        store.usage.charge({ keyId, period: '2026-11', route, units: 1, limit });
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => charge('key_a', 'render_video', 5)));
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(5);
      const refused = results.find((r) => r.status === 'rejected')!;
      expect(refused.reason).toMatchObject({ code: 'QUOTA_EXCEEDED', reason: 'monthly_quota' });
      expect(await store.usage.used('key_a')).toBe(5);
      expect(await store.usage.state('key_a', 6)).toMatchObject({
        used: 5,
        remaining: 1,
        period: '2026-11',
        resets_at: '2026-12-01T00:00:00.000Z',
      });
      await charge('key_b', 'analyze', 10);
      expect(await store.usage.byKey(['key_a', 'key_b', 'key_c'], '2026-11')).toEqual([
        { key_id: 'key_a', route: 'render_video', count: 5 },
        { key_id: 'key_b', route: 'analyze', count: 1 },
      ]);
      clock += 10 * 24 * 3600 * 1000; // next month: a fresh quota
      expect(await store.usage.used('key_a')).toBe(0);
      clock -= 10 * 24 * 3600 * 1000;
      await store.close();
    });

    it('writes a job, its charge and its idempotent answer as one fact: one job per key under concurrent inserts', async () => {
      const store = await open();
      const charge = { keyId: 'key_k', period: '2026-11', route: 'render_video' as const, units: 1, limit: 3 };
      const idempotency = { keyId: 'key_k', key: 'submit-1', route: 'POST /render-video', fingerprint: 'f1' };
      // Eight nodes submitting one key at once: one job, one unit, and every one of them gets that job.
      const rows = await Promise.all(Array.from({ length: 8 }, () => store.jobs.insert({ ...newJob('books'), charge, idempotency })));
      expect(new Set(rows.map((r) => r.job_id)).size).toBe(1);
      expect(await store.jobs.count('books', ['queued'])).toBe(1);
      expect(await store.usage.used('key_k')).toBe(1);
      expect(rows[0]).toMatchObject({ units: 1, charge_key_id: 'key_k', charge_period: '2026-11', refunded_at: null });
      // The key with another body is refused as reused, and writes nothing.
      expect(
        await rejection(store.jobs.insert({ ...newJob('books'), charge, idempotency: { ...idempotency, fingerprint: 'f2' } })),
      ).toMatchObject({
        reason: 'idempotency_key_reused',
      });
      // A job whose write fails after its charge (here: its id is taken) leaves no charge and no answer.
      const taken = { ...newJob('books'), jobId: rows[0]!.job_id, charge, idempotency: { ...idempotency, key: 'submit-2' } };
      expect(await rejection(store.jobs.insert(taken))).toBeDefined();
      expect(await store.usage.used('key_k')).toBe(1);
      expect(await store.idempotency.hasStored('key_k', 'submit-2')).toBe(false);
      // The quota spent: refused, and nothing is written either.
      await store.jobs.insert({ ...newJob('books'), charge: { ...charge, units: 2 } });
      const refused = newJob('books');
      expect(await rejection(store.jobs.insert({ ...refused, charge, idempotency: { ...idempotency, key: 'submit-3' } }))).toMatchObject({
        code: 'QUOTA_EXCEEDED',
      });
      expect(await store.jobs.row(refused.jobId)).toBeUndefined();
      expect(await store.idempotency.hasStored('key_k', 'submit-3')).toBe(false);
      expect(await store.usage.used('key_k')).toBe(3);
      expect(await store.usage.reconcile('2026-11')).toEqual([{ key_id: 'key_k', period: '2026-11', used: 3, charged: 3, difference: 0 }]);
      await store.close();
    });

    it('gives a job\u2019s units back in the transaction that fails it on the caller\u2019s input or our outage, once', async () => {
      const store = await open();
      const charge = (units: number) => ({ keyId: 'key_r', period: '2026-11', route: 'render_video' as const, units, limit: 10 });
      const fail = async (jobId: string, code: string) => {
        await store.jobs.transition(jobId, 'running', { started_at: new Date().toISOString() });
        return (await store.jobs.transition(jobId, 'failed', {
          error_code: code,
          error_message: 'x',
          finished_at: new Date().toISOString(),
        }))!;
      };
      const onInput = await store.jobs.insert({ ...newJob('refunds'), charge: charge(2) });
      const onOutage = await store.jobs.insert({ ...newJob('refunds'), charge: charge(1) });
      const onRender = await store.jobs.insert({ ...newJob('refunds'), charge: charge(1) });
      const canceled = await store.jobs.insert({ ...newJob('refunds'), charge: charge(1) });
      expect(await store.usage.used('key_r')).toBe(5);
      expect((await fail(onInput.job_id, 'BAD_REQUEST')).refunded_at).not.toBeNull();
      expect((await fail(onOutage.job_id, 'SERVICE_UNAVAILABLE')).refunded_at).not.toBeNull();
      expect((await fail(onRender.job_id, 'RENDER_FAILED')).refunded_at).toBeNull();
      expect((await store.jobs.transition(canceled.job_id, 'canceled', { finished_at: new Date().toISOString() }))!.refunded_at).toBeNull();
      // A job charged in one month and failed in the next refunds the month it was charged in.
      clock += 10 * 24 * 3600 * 1000;
      expect(await store.usage.used('key_r')).toBe(0);
      clock -= 10 * 24 * 3600 * 1000;
      expect(await store.usage.used('key_r')).toBe(2);
      expect(await store.usage.reconcile(null)).toEqual([{ key_id: 'key_r', period: '2026-11', used: 2, charged: 2, difference: 0 }]);
      // A unit charged with no job is what reconcile reports.
      await store.usage.charge(charge(1));
      expect(await store.usage.reconcile('2026-11')).toEqual([{ key_id: 'key_r', period: '2026-11', used: 3, charged: 2, difference: 1 }]);
      await store.close();
    });

    it('replays idempotent requests once, refuses a reused key with another body', async () => {
      const store = await open();
      let runs = 0;
      const execute = async (): Promise<{ value: string; store: { statusCode: number; body: string; jobId: null } }> => {
        runs += 1;
        await new Promise((r) => setTimeout(r, 50));
        return { value: 'fresh', store: { statusCode: 200, body: '{"ok":true}', jobId: null } };
      };
      const [a, b] = await Promise.all([
        store.idempotency.run('key_a', 'idem-1', 'analyze', { x: 1 }, execute),
        store.idempotency.run('key_a', 'idem-1', 'analyze', { x: 1 }, execute),
      ]);
      expect(runs).toBe(1);
      expect([a, b].filter((r) => r.replayed).length).toBe(1);
      expect(await store.idempotency.hasStored('key_a', 'idem-1')).toBe(true);
      expect(await store.idempotency.hasStored('key_b', 'idem-1')).toBe(false);
      expect([a, b].find((r) => r.replayed)).toEqual({ replayed: true, stored: { statusCode: 200, body: '{"ok":true}', jobId: null } });
      expect(await rejection(store.idempotency.run('key_a', 'idem-1', 'analyze', { x: 2 }, execute))).toMatchObject({
        reason: 'idempotency_key_reused',
      });
      // A failed first attempt stores nothing and charges nothing: the retry runs, and is charged with its answer.
      const charge = { keyId: 'key_a', period: '2026-11', route: 'analyze' as const, units: 1, limit: 5 };
      await rejection(
        store.idempotency.run('key_a', 'idem-2', 'analyze', {}, async () => Promise.reject(new Error('upstream down')), charge),
      );
      expect(await store.usage.used('key_a')).toBe(0);
      expect((await store.idempotency.run('key_a', 'idem-2', 'analyze', {}, execute, charge)).replayed).toBe(false);
      expect(await store.usage.used('key_a')).toBe(1);
      // A spent quota at the end: no answer stored either.
      await rejection(store.idempotency.run('key_a', 'idem-3', 'analyze', {}, execute, { ...charge, limit: 1 }));
      expect(await store.idempotency.hasStored('key_a', 'idem-3')).toBe(false);
      clock += 25 * 3600 * 1000;
      expect(await store.idempotency.purgeExpired()).toBe(2);
      expect((await store.idempotency.run('key_a', 'idem-1', 'analyze', { x: 2 }, execute)).replayed).toBe(false);
      clock -= 25 * 3600 * 1000;
      await store.close();
    });

    it('keeps asset metadata private to its tenant until it expires', async () => {
      const store = await open();
      const row = {
        asset_id: 'ast_aaaaaaaaaaaaaaaaaaaaaaaa',
        tenant: 'acme',
        content_type: 'image/jpeg',
        format: 'jpeg',
        width: 640,
        height: 480,
        size_bytes: 1234,
        sha256: 'b'.repeat(64),
        file: 'ast_aaaaaaaaaaaaaaaaaaaaaaaa.jpg',
        created_at: clock,
        expires_at: clock + 1000,
      };
      await store.assets.insert(row);
      expect(await store.assets.find('acme', row.asset_id)).toEqual(row);
      expect(await store.assets.find('other', row.asset_id)).toBeNull();
      expect(await store.assets.takeExpired()).toEqual([]);
      clock += 1000;
      expect(await store.assets.find('acme', row.asset_id)).toBeNull();
      expect(await store.assets.takeExpired()).toEqual([{ asset_id: row.asset_id, file: row.file }]);
      expect(await store.assets.takeExpired()).toEqual([]);
      clock -= 1000;
      await store.close();
    });

    it('keeps share links per tenant until they expire or are revoked', async () => {
      const store = await open();
      const first = prepareShare({ tenant: 'acme', jobId: newJobId(), format: null, days: 30 }, clock);
      const second = prepareShare({ tenant: 'acme', jobId: newJobId(), format: 'portrait', days: 1 }, clock + 1);
      const other = prepareShare({ tenant: 'other', jobId: newJobId(), format: null, days: 30 }, clock);
      for (const row of [first, second, other]) await store.shares.insert(row);
      expect(await store.shares.findByToken(second.token)).toEqual(second);
      expect((await store.shares.list('acme')).map((row) => row.share_id)).toEqual([second.share_id, first.share_id]);
      expect(await store.shares.list('acme', first.job_id)).toEqual([first]);
      expect(await store.shares.list('other', first.job_id)).toEqual([]);
      expect(await store.shares.revoke('other', first.share_id)).toBeNull();
      expect(await store.shares.revoke('acme', first.share_id)).toEqual(first);
      expect(await store.shares.findByToken(first.token)).toBeNull();
      expect(await store.shares.revoke('acme', first.share_id)).toBeNull();
      clock += 86_400_000 + 1;
      expect(await store.shares.findByToken(second.token)).toBeNull();
      expect(await store.shares.list('acme')).toEqual([]);
      expect(await store.shares.purgeExpired()).toBe(1);
      expect(await store.shares.findByToken(other.token)).toEqual(other);
      clock -= 86_400_000 + 1;
      await store.close();
    });

    it('keeps the webhook outbox: waiting, pending when due, recorded attempts', async () => {
      const store = await open();
      await store.webhooks.register('job_1', 'acme', 'https://hooks.example.com/a');
      await store.webhooks.register('job_1', 'acme', 'https://ignored.example.com');
      expect(await store.webhooks.waitingJobIds()).toEqual(['job_1']);
      expect(await store.webhooks.backlog()).toBe(0);
      expect(await store.webhooks.enqueue('job_2', '{}')).toBe(false);
      expect(await store.webhooks.enqueue('job_1', '{"type":"job.succeeded"}')).toBe(true);
      expect(await store.webhooks.backlog()).toBe(1);
      expect(await store.webhooks.enqueue('job_1', '{"again":1}')).toBe(false);
      const due = await store.webhooks.due();
      expect(due).toHaveLength(1);
      expect(due[0]).toMatchObject({
        job_id: 'job_1',
        url: 'https://hooks.example.com/a',
        state: 'pending',
        payload: '{"type":"job.succeeded"}',
        attempts: 0,
      });
      expect(due[0]!.message_id).toMatch(/^msg_/);
      await store.webhooks.record('job_1', { state: 'pending', status: 503, error: 'HTTP 503', nextAttemptAt: clock + 5000 });
      expect(await store.webhooks.due()).toEqual([]);
      expect(await store.webhooks.get('job_1')).toMatchObject({ attempts: 1, last_status: 503, next_attempt_at: clock + 5000 });
      expect(await store.webhooks.get('job_9')).toBeNull();
      await store.webhooks.record('job_1', { state: 'delivered', status: 200, error: null, nextAttemptAt: null });
      expect(await store.webhooks.backlog()).toBe(0);
      await store.webhooks.record('job_1', { state: 'pending', status: 503, error: 'HTTP 503', nextAttemptAt: clock + 5000 });
      // Senders on several nodes: a claimed delivery is not handed out again until its lease ends.
      for (const id of ['job_a', 'job_b', 'job_c']) {
        await store.webhooks.register(id, 'acme', 'https://hooks.example.com/b');
        await store.webhooks.enqueue(id, '{}');
      }
      const [first, second] = await Promise.all([store.webhooks.claimDue(2, 30_000), store.webhooks.claimDue(2, 30_000)]);
      const claimed = [...first!, ...second!].map((r) => r.job_id);
      expect(claimed.sort()).toEqual(['job_a', 'job_b', 'job_c']);
      expect(first![0]).toMatchObject({ state: 'pending', next_attempt_at: clock });
      expect(await store.webhooks.claimDue(10, 30_000)).toEqual([]);
      clock += 30_000; // the sender died without recording: due again (with job_1's retry, due since +5 s)
      expect((await store.webhooks.claimDue(10, 30_000)).map((r) => r.job_id).sort()).toEqual(['job_1', 'job_a', 'job_b', 'job_c']);
      clock -= 30_000;
      await store.close();
    });

    it('claims at most `perTenant` due deliveries of one tenant, so a backlog hides no other tenant', async () => {
      const store = await open();
      for (let i = 0; i < 6; i += 1) {
        await store.webhooks.register(`job_busy${i}`, 'busy', 'https://hooks.example.com/busy');
        await store.webhooks.enqueue(`job_busy${i}`, '{}');
        clock += 1;
      }
      await store.webhooks.register('job_quiet', 'quiet', 'https://hooks.example.com/quiet');
      await store.webhooks.enqueue('job_quiet', '{}');
      const claimed = await store.webhooks.claimDue(10, 30_000, 2);
      expect(claimed.map((r) => r.job_id)).toEqual(['job_busy0', 'job_busy1', 'job_quiet']);
      expect((await store.webhooks.claimDue(10, 30_000, 2)).map((r) => r.job_id)).toEqual(['job_busy2', 'job_busy3']);
      clock -= 6;
      await store.close();
    });

    it('rate-limits with a token bucket, exactly, under concurrent requests', async () => {
      const store = await open();
      const start = clock;
      // 3 tokens, refilled at 3 a minute: one token every 20 s.
      const policy = { name: 'analyze', limit: 3, windowMs: 60_000 };
      const burst = await Promise.all(Array.from({ length: 6 }, () => store.rateLimits.take(policy, 'key_a')));
      const allowed = burst.filter((d) => d.allowed);
      expect(allowed.map((d) => d.remaining).sort()).toEqual([0, 1, 2]);
      expect(allowed.map((d) => d.retryAfterS)).toEqual([0, 0, 0]);
      for (const refused of burst.filter((d) => !d.allowed)) {
        expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetS: 60, retryAfterS: 20 });
      }
      expect(await store.rateLimits.take(policy, 'key_b')).toEqual({ allowed: true, limit: 3, remaining: 2, resetS: 20, retryAfterS: 0 });
      expect((await store.rateLimits.take({ ...policy, name: 'render' }, 'key_a')).allowed).toBe(true);
      clock += 10_000; // half a token back: Retry-After says when the whole one is there
      expect(await store.rateLimits.take(policy, 'key_a')).toEqual({ allowed: false, limit: 3, remaining: 0, resetS: 50, retryAfterS: 10 });
      // A client pacing at the refill rate after its burst is never refused.
      for (let i = 0; i < 5; i += 1) {
        clock += i === 0 ? 10_000 : 20_000;
        expect(await store.rateLimits.take(policy, 'key_a')).toEqual({ allowed: true, limit: 3, remaining: 0, resetS: 60, retryAfterS: 0 });
      }
      // Idle for ten minutes: the bucket is full, never more than `limit`; a concurrent burst takes exactly that.
      clock += 600_000;
      const again = await Promise.all(Array.from({ length: 5 }, () => store.rateLimits.take(policy, 'key_a')));
      expect(
        again
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort(),
      ).toEqual([0, 1, 2]);
      clock = start;
      await store.close();
    });
  });
}

/** The backends given answer alike: the same rate-limit decisions and the same records for one history. */
export function describeRecordStoresAgree(implementations: [string, OpenRecordStore][]): void {
  describe('both record stores rate-limit alike', () => {
    it('give the same decision for every request of a concurrent, irregular history', async () => {
      const start = clock;
      const histories: string[][] = [];
      for (const [, open] of implementations) {
        const store = await open();
        clock = start;
        // 7 a minute: a token every 8.571… s, so buckets hold fractions of a token.
        const policy = { name: 'render', limit: 7, windowMs: 60_000 };
        const decisions: string[] = [];
        for (const [stepMs, concurrent] of [
          [0, 9],
          [3_333, 2],
          [1_001, 1],
          [8_571, 3],
          [17_143, 4],
          [59_999, 10],
          [1, 1],
          [120_000, 8],
        ] as const) {
          clock += stepMs;
          const batch = await Promise.all(Array.from({ length: concurrent }, () => store.rateLimits.take(policy, 'key_a')));
          // Concurrent requests are served in some order: compare each batch as a set of answers.
          decisions.push(
            batch
              .map((d) => JSON.stringify(d))
              .sort()
              .join(' '),
          );
        }
        histories.push(decisions);
        await store.close();
      }
      clock = start;
      expect(histories[0]!.length).toBe(8);
      expect(histories[1]).toEqual(histories[0]);
    });
  });

  describe('both record stores give the same records', () => {
    it('produces identical job records and key records for the same history', async () => {
      const outputs: unknown[] = [];
      for (const [, open] of implementations) {
        const store = await open();
        const ids: string[] = [];
        for (const description of ['Villa 300 m² à Marrakech, 4 500 000 DH', 'Studio 40 m² à Rabat Agdal, 650 000 DH']) {
          ids.push((await store.jobs.insert(newJob('acme', description))).job_id);
        }
        await store.jobs.claimNext(owner('w1'), 60_000);
        await store.jobs.setProgress(ids[0]!, owner('w1'), 'rendering', 0.5);
        await store.jobs.transition(ids[0]!, 'succeeded', { progress: 1, result_json: RESULT, finished_at: '2026-11-23T12:00:00.000Z' });
        await store.jobs.transition(ids[1]!, 'canceled', { finished_at: '2026-11-23T12:00:00.000Z' });
        const list = await store.jobs.list('acme', { limit: 10 });
        const key = await store.keys.create({ tenant: 'acme', monthlyQuota: 50 });
        const mask = (value: string, id: string): string => value.split(id).join('<id>');
        outputs.push({
          jobs: list.jobs.map((j, i) =>
            JSON.parse(
              mask(
                JSON.stringify({ ...j, created_at: 't', updated_at: 't', started_at: j.started_at === null ? null : 't' }),
                ids[ids.length - 1 - i]!,
              ),
            ),
          ),
          key: { ...key.record, key_id: 'k', masked_key: 'm' },
          usage: await store.usage.state(key.record.key_id, 50),
        });
        await store.close();
      }
      expect(outputs[1]).toEqual(outputs[0]);
    });
  });
}
