import { describe, expect, it } from 'vitest';
import { OutageWatch } from '../../../src/server/outage-watch.js';

/** One API node's outages (docs/operations.md "Logs"): one line and one count as each begins, one line as it ends. */

describe('the outage watch of an API node', () => {
  it('logs and counts an outage once however many requests meet it, and ends it when a probe answers', async () => {
    const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const began: string[] = [];
    let databaseUp = false;
    const watch = new OutageWatch({
      probes: {
        database: async () => {
          if (!databaseUp) throw new Error('still down');
        },
        storage: async () => undefined,
      },
      log: {
        warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
        info: (fields, message) => lines.push({ level: 'info', fields, message }),
      },
      metrics: { outageBegan: (service) => began.push(service) },
      probeMs: 10,
    });
    try {
      const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { stack: 'a stack nobody needs 50 times' });
      for (let i = 0; i < 50; i += 1) watch.report('database', cause, `req-${i}`);
      expect(watch.isDown('database')).toBe(true);
      expect(began).toEqual(['database']);
      expect(lines).toEqual([
        {
          level: 'warn',
          fields: { event: 'outage_begins', service: 'database', request_id: 'req-0', error: 'connect ECONNREFUSED 10.0.0.5:5432' },
          message: 'database outage begins: requests that need it are answered 503',
        },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 60)); // probes fail meanwhile: nothing more is written
      expect(lines).toHaveLength(1);
      databaseUp = true;
      for (let i = 0; i < 50 && watch.isDown('database'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(watch.isDown('database')).toBe(false);
      expect(lines[1]).toMatchObject({ level: 'info', fields: { event: 'outage_ends', service: 'database', requests: 50 } });
      // The next outage is a new one: told and counted again.
      watch.report('database', new Error('again'));
      expect(began).toEqual(['database', 'database']);
    } finally {
      watch.stop();
    }
  });
});
