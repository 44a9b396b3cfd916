import { afterEach, describe, expect, it } from 'vitest';
import { analyzeCheckedListing } from '../../../src/analysis/analyze.js';
import { LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

async function counted(clock?: () => number): Promise<{ calls: number }> {
  const state = { calls: 0 };
  h = await makeHarness({
    now: clock,
    analyze: (checked, signal) => {
      state.calls += 1;
      return analyzeCheckedListing(checked, { signal });
    },
  });
  return state;
}

describe('Idempotency-Key on POST /api/v1/analyze', () => {
  it('replays the first answer for the same key and body, without running or billing it again', async () => {
    const state = await counted();
    const { auth, keyId } = h.key();
    const send = (description: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/analyze',
        headers: { ...auth, 'idempotency-key': 'a2f1c9e0-key' },
        payload: { description },
      });
    const first = await send(LISTING_TEXT);
    expect(first.statusCode, first.body).toBe(200);
    const again = await send(LISTING_TEXT);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(state.calls).toBe(1);
    expect(h.store.usage.used(keyId)).toBe(1);

    const other = await send(`${LISTING_TEXT} Vue sur mer.`);
    expect(other.statusCode).toBe(400);
    expect(JSON.parse(other.body).error).toMatchObject({
      code: 'BAD_REQUEST',
      reason: 'idempotency_key_reused',
      details: [{ field: 'Idempotency-Key' }],
    });
  });

  it('runs concurrent duplicates once', async () => {
    const state = await counted();
    const { auth } = h.key();
    const send = () =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/analyze',
        headers: { ...auth, 'idempotency-key': 'same-time' },
        payload: { description: LISTING_TEXT },
      });
    const answers = await Promise.all([send(), send(), send()]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(state.calls).toBe(1);
  });

  it('scopes keys to the API key, forgets them after 24 h, and does not store failures', async () => {
    let clock = Date.parse('2026-05-04T10:00:00Z');
    const state = await counted(() => clock);
    const a = h.key({ tenant: 'a' });
    const b = h.key({ tenant: 'b' });
    const send = (auth: Record<string, string>, payload: object) =>
      h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...auth, 'idempotency-key': 'k1' }, payload });
    expect((await send(a.auth, { description: LISTING_TEXT })).statusCode).toBe(200);
    expect((await send(b.auth, { description: LISTING_TEXT })).statusCode).toBe(200);
    expect(state.calls).toBe(2);
    clock += 24 * 3600 * 1000 + 1;
    expect((await send(a.auth, { description: 'Totally different now: villa 400 m² à Marrakech, 5 chambres, piscine.' })).statusCode).toBe(
      200,
    );
    expect(state.calls).toBe(3);
    const failing = { description: 'rien du tout' };
    expect(
      (await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...b.auth, 'idempotency-key': 'k2' }, payload: failing }))
        .statusCode,
    ).toBe(400);
    expect(
      (await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...b.auth, 'idempotency-key': 'k2' }, payload: failing }))
        .statusCode,
    ).toBe(400);
    expect(state.calls).toBe(5);
  });

  it('refuses a malformed Idempotency-Key', async () => {
    await counted();
    const { auth } = h.key();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { ...auth, 'idempotency-key': 'has spaces in it' },
      payload: { description: LISTING_TEXT },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.details[0].field).toBe('Idempotency-Key');
  });
});
