import { afterEach, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * POST /api/v1/storyboard (docs/api.md "Photos shown and left out"): the body of a render, no job,
 * no charge; which photos the video will show and which it leaves out, so the Studio can say so
 * before the render starts.
 */

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const LISTING = {
  title: 'Appartement 120 m² à Maarif',
  city: 'Casablanca',
  district: 'Maarif',
  price_mad: 1_850_000,
  currency: 'MAD',
  surface_m2: 120,
  bedrooms: 3,
  features: ['Terrasse', 'Ascenseur'],
  marketing_angles: [],
};

describe('POST /api/v1/storyboard', () => {
  it('says which of 7 photos a 12 s video leaves out, without a job or a quota unit', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const photos = Array.from({ length: 7 }, (_, i) => `https://cdn.example.com/${i + 1}.jpg`);
    const answer = await h.app.inject({
      method: 'POST',
      url: '/api/v1/storyboard',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({
        listing: LISTING,
        photos: [...photos.slice(0, 6), { url: photos[6], focus: { x: 0.2, y: 0.5 } }],
        duration_s: 12,
      }),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const { storyboard } = JSON.parse(answer.body) as {
      storyboard: { duration_s: number; photos: { index: number; ref: string; shown: boolean; reason?: string }[]; held_back: unknown[] };
    };
    expect(storyboard.duration_s).toBe(12);
    expect(storyboard.photos.map((p) => p.ref)).toEqual(photos);
    const left = storyboard.photos.filter((p) => !p.shown);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((p) => p.reason === 'duration')).toBe(true);
    expect(storyboard.photos[0]).toEqual({ index: 0, ref: photos[0], shown: true });
    expect(Array.isArray(storyboard.held_back)).toBe(true);
    // No job, no charge.
    const jobs = await h.app.inject({ method: 'GET', url: '/api/v1/jobs', headers: auth });
    expect(JSON.parse(jobs.body).jobs).toEqual([]);
    const me = await h.app.inject({ method: 'GET', url: '/api/v1/me', headers: auth });
    expect(JSON.parse(me.body).quota).toMatchObject({ used: 0 });
  });

  it('refuses a body a render would refuse, with the same details', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const answer = await h.app.inject({
      method: 'POST',
      url: '/api/v1/storyboard',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ listing: LISTING, photos: [{ url: 'https://cdn.example.com/1.jpg', focus: { x: 2, y: 0 } }] }),
    });
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body).error.details.map((d: { field: string }) => d.field)).toContain('photos[0].focus.x');
  });
});
