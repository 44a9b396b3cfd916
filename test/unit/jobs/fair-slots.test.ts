import { describe, expect, it } from 'vitest';
import { chooseTenant, FairSlots } from '../../../src/jobs/fair-slots.js';

describe('the render slot choice between waiting tenants', () => {
  it('gives the next slot to the waiting tenant with the fewest renders running', () => {
    expect(
      chooseTenant([
        { tenant: 'a', running: 3, lastServed: 1, since: 1 },
        { tenant: 'b', running: 0, lastServed: 9, since: 8 },
      ]),
    ).toBe('b');
  });

  it('goes round-robin between tenants with as many running: the one served longest ago first, then arrival', () => {
    expect(
      chooseTenant([
        { tenant: 'a', running: 1, lastServed: 7, since: 1 },
        { tenant: 'b', running: 1, lastServed: 4, since: 5 },
      ]),
    ).toBe('b');
    expect(
      chooseTenant([
        { tenant: 'a', running: 0, lastServed: -1, since: 3 },
        { tenant: 'b', running: 0, lastServed: -1, since: 2 },
      ]),
    ).toBe('b');
    expect(chooseTenant([])).toBeNull();
  });

  it('alternates two waiting tenants on two slots however many each queued, and lets a lone tenant use every slot', async () => {
    const slots = new FairSlots(2);
    const order: string[] = [];
    const releases: (() => void)[] = [];
    const take = (tenant: string) =>
      void slots.acquire(tenant).then((release) => {
        order.push(tenant);
        releases.push(release);
      });
    for (let i = 0; i < 6; i += 1) take('a');
    take('b');
    take('b');
    await Promise.resolve();
    await Promise.resolve();
    // A alone when it queued: both slots are its.
    expect(order).toEqual(['a', 'a']);
    for (let round = 0; round < 4; round += 1) {
      releases.shift()!();
      await Promise.resolve();
      await Promise.resolve();
    }
    expect(order).toEqual(['a', 'a', 'b', 'a', 'b', 'a']);
  });

  it('drops a waiter whose job is canceled while it waits', async () => {
    const slots = new FairSlots(1);
    const release = await slots.acquire('a');
    const controller = new AbortController();
    const waiting = slots.acquire('b', controller.signal);
    controller.abort(new Error('canceled'));
    await expect(waiting).rejects.toThrow('canceled');
    expect(slots.pendingCount).toBe(0);
    release();
    expect(slots.activeCount).toBe(0);
  });
});
