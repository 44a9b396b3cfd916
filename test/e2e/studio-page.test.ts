import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/server/studio/index.js';
import { assertBuiltCliIsFresh } from '../helpers/cli.js';
import { makeHarness, type Harness } from '../helpers/server-harness.js';

/**
 * The Studio page as the server sends it: the page and its hashed files are the build's output
 * (`npm run build` writes them to dist/), so this runs with the e2e tests, after the build. Its
 * cookie sign-in is tested in test/unit/server/studio-session.test.ts.
 */

let h: Harness;

beforeEach(async () => {
  // The page comes from dist/: fail with how to fix it when dist/ is missing or older than src/.
  assertBuiltCliIsFresh();
  h = await makeHarness();
});
afterEach(async () => h.close());

describe('studio page headers', () => {
  it('serves the page with a strict CSP and caches hashed files for a year', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const scripts = [...page.body.matchAll(/(?:src|href)="(\/[\w-]+-[A-Z0-9]{8}\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(2);
    for (const file of scripts) {
      const asset = await h.app.inject({ method: 'GET', url: file });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });
});
