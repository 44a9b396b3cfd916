import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { createDecodeSlots, onDecodeRefused } from '../../../src/render/decode-slots.js';

/* Bounded image decodes (docs/security.md, "Bounded image decodes"): a few at a time, a short queue. */

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('decode slots', () => {
  it('runs at most 2 decodes at once; uploads beyond 4 waiting are refused with 429 decode_queue_full, renders wait', async () => {
    const slots = createDecodeSlots(2, 4);
    const refused: string[] = [];
    const stop = onDecodeRefused((reason) => refused.push(reason));
    let running = 0;
    let most = 0;
    const hold = gate();
    const decode = async (): Promise<void> => {
      running += 1;
      most = Math.max(most, running);
      await hold.promise;
      running -= 1;
    };
    const uploads = Array.from({ length: 6 }, () => slots.run(decode, { refuseWhenFull: true }));
    await new Promise((resolve) => setImmediate(resolve));
    expect({ active: slots.active, waiting: slots.waiting }).toEqual({ active: 2, waiting: 4 });
    const error = await slots.run(decode, { refuseWhenFull: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ httpStatus: 429, reason: 'decode_queue_full', retryAfterS: 2 });
    expect((error as AppError).message).toMatch(/2 at a time, 4 waiting\): retry in 2 s/);
    expect(refused).toEqual(['decode_queue_full']);
    const render = slots.run(decode);
    expect(slots.waiting).toBe(5);
    hold.open();
    await Promise.all([...uploads, render]);
    expect(most).toBe(2);
    expect({ active: slots.active, waiting: slots.waiting }).toEqual({ active: 0, waiting: 0 });
    stop();
  });

  it('frees the slot when a decode fails', async () => {
    const slots = createDecodeSlots(1, 0);
    await expect(slots.run(() => Promise.reject(new Error('corrupt')))).rejects.toThrow('corrupt');
    await expect(slots.run(() => Promise.resolve(7), { refuseWhenFull: true })).resolves.toBe(7);
    expect(slots.active).toBe(0);
  });
});

describe('decode slots, by memory', () => {
  it('starts a decode only when what it will hold fits the budget; one larger than the budget runs alone', async () => {
    const slots = createDecodeSlots(2, 10, 100);
    const holds = [gate(), gate(), gate()];
    const started: string[] = [];
    const decode = (name: string, hold: Promise<void>) => async () => {
      started.push(name);
      await hold;
    };
    const big = slots.run(decode('big', holds[0]!.promise), { costBytes: 70 });
    const second = slots.run(decode('second', holds[1]!.promise), { costBytes: 40 });
    const huge = slots.run(decode('huge', holds[2]!.promise), { costBytes: 500 });
    await new Promise((resolve) => setImmediate(resolve));
    // 70 + 40 > 100: the second waits although a slot is free, and the huge one waits behind it.
    expect(started).toEqual(['big']);
    expect({ active: slots.active, waiting: slots.waiting, held: slots.heldBytes }).toEqual({ active: 1, waiting: 2, held: 70 });
    holds[0]!.open();
    await big;
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['big', 'second']);
    holds[1]!.open();
    await second;
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['big', 'second', 'huge']);
    expect(slots.heldBytes).toBe(500);
    holds[2]!.open();
    await huge;
    expect({ active: slots.active, held: slots.heldBytes }).toEqual({ active: 0, held: 0 });
  });
});
