import { outageOf } from '../records/outage.js';

/**
 * pg-boss 10 completes and fails queue entries without awaiting them: when the database goes away
 * at that moment, the rejection is unhandled and Node would end the process — a worker in the
 * middle of other renders, or an API node (docs/operations.md "Outages"). Such a loss is harmless:
 * the entry stays active and is delivered again when it expires, and the job's own record is
 * written separately and waited for. So a rejection that is a database outage is reported and the
 * process carries on; any other unhandled rejection still ends it, as Node's default does.
 */
export function surviveQueueWritesLostToOutages(report: (message: string) => void): void {
  process.on('unhandledRejection', (reason: unknown) => {
    if (outageOf(reason) === 'database') {
      const what = reason instanceof Error ? reason.message : String(reason);
      report(`a queue write was lost while the database was unavailable (${what}); its entry is delivered again when it expires`);
      return;
    }
    // Rethrown from the handler: Node ends the process with it, exactly as without this handler.
    throw reason;
  });
}
