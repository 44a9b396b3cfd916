import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshDataDir, startServe, type ServeProcess } from '../helpers/serve-process.js';

/** `immoreel serve --cors-origin`: what a browser front end of a portal meets. */
describe('immoreel serve --cors-origin', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    await serve?.stop();
    if (serve) rmSync(serve.dataDir, { recursive: true, force: true });
    serve = undefined;
  });

  it('answers the preflight of a configured origin over HTTP, and only that origin', async () => {
    serve = await startServe(freshDataDir(), ['--cors-origin', 'https://crm.example.com']);
    const preflight = await fetch(`${serve.url}/api/v1/render-video`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://crm.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://crm.example.com');
    const other = await fetch(`${serve.url}/api/v1/health`, { headers: { Origin: 'https://other.example.org' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses something that is not an origin, saying what to give', async () => {
    const result = await runCli(['--data-dir', freshDataDir(), 'serve', '--port', '0', '--cors-origin', 'crm.example.com/app']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--cors-origin "crm.example.com/app" is not an origin: give scheme://host[:port]');
  });
});
