/**
 * Render slots shared fairly between tenants (docs/scaling.md "Fairness"): a job takes a slot only
 * once its inputs are local (src/jobs/fetch-stage.ts), and when several tenants wait, the next free
 * slot goes to the waiting tenant with the fewest renders running in this pool, ties broken by who
 * was served longest ago — round-robin between tenants that wait. A tenant alone still gets every slot.
 */

export interface WaitingTenant {
  tenant: string;
  /** Renders of this tenant holding a slot of this pool now. */
  running: number;
  /** When this tenant was last given a slot (a sequence number); -1 = never. */
  lastServed: number;
  /** When this tenant's oldest waiter began waiting (a sequence number): the last tie-break, FIFO. */
  since: number;
}

/** The tenant the next free slot goes to, or null when nobody waits. Pure: the unit tests' subject. */
export function chooseTenant(waiting: readonly WaitingTenant[]): string | null {
  let best: WaitingTenant | null = null;
  for (const candidate of waiting) {
    if (
      best === null ||
      candidate.running < best.running ||
      (candidate.running === best.running &&
        (candidate.lastServed < best.lastServed || (candidate.lastServed === best.lastServed && candidate.since < best.since)))
    )
      best = candidate;
  }
  return best?.tenant ?? null;
}

interface Waiter {
  seq: number;
  grant: () => void;
}

/** One pool's render slots: `acquire` resolves when the scheduler gives the tenant a slot. */
export class FairSlots {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly running = new Map<string, number>();
  private readonly lastServed = new Map<string, number>();
  private seq = 0;
  private inUse = 0;

  constructor(private limit: number) {}

  get capacity(): number {
    return this.limit;
  }

  set capacity(value: number) {
    this.limit = value;
    this.dispatch();
  }

  /** Slots in use. */
  get activeCount(): number {
    return this.inUse;
  }

  /** Jobs waiting for a slot. */
  get pendingCount(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /**
   * Waits for a slot for `tenant`; resolves with its release (call it once, when the render ends).
   * An abort while waiting rejects with the signal's reason and leaves the queue.
   */
  acquire(tenant: string, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error);
        return;
      }
      const waiter: Waiter = {
        seq: (this.seq += 1),
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.inUse -= 1;
            const left = (this.running.get(tenant) ?? 1) - 1;
            if (left === 0) this.running.delete(tenant);
            else this.running.set(tenant, left);
            this.dispatch();
          });
        },
      };
      const onAbort = (): void => {
        const queue = this.queues.get(tenant);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue !== undefined && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.queues.delete(tenant);
        }
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(tenant);
      if (queue === undefined) this.queues.set(tenant, [waiter]);
      else queue.push(waiter);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.inUse < this.limit && this.queues.size > 0) {
      const tenant = chooseTenant(
        [...this.queues.entries()].map(([name, queue]) => ({
          tenant: name,
          running: this.running.get(name) ?? 0,
          lastServed: this.lastServed.get(name) ?? -1,
          since: queue[0]!.seq,
        })),
      )!;
      const queue = this.queues.get(tenant)!;
      const waiter = queue.shift()!;
      if (queue.length === 0) this.queues.delete(tenant);
      this.inUse += 1;
      this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
      this.lastServed.set(tenant, (this.seq += 1));
      waiter.grant();
    }
  }
}
