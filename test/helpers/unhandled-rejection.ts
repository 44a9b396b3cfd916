/**
 * A process that leaves one rejection unhandled, as pg-boss does with its queue writes: argv[2]
 * `outage` rejects with node-postgres's error for a database that went away, `bug` with an
 * ordinary error. It prints ALIVE if it is still running afterwards.
 */
import { surviveQueueWritesLostToOutages } from '../../src/cli/lost-queue-writes.js';

surviveQueueWritesLostToOutages((message) => process.stderr.write(`reported: ${message}\n`));
const kind = process.argv[2];
const error =
  kind === 'outage'
    ? Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    : new Error('a bug nobody handled');
void Promise.reject(error);
setTimeout(() => process.stdout.write('ALIVE\n'), 200);
