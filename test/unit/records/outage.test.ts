import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { outageOf } from '../../../src/records/outage.js';

/** Which errors count as a passing outage, to be waited out (docs/operations.md "Outages"). */
describe('outageOf', () => {
  const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

  it('sees a database that restarts, refuses or never answers a connection', () => {
    expect(outageOf(withCode('terminating connection due to administrator command', '57P01'))).toBe('database');
    expect(outageOf(withCode('the database system is starting up', '57P03'))).toBe('database');
    expect(outageOf(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe('database');
    expect(outageOf(new Error('Connection terminated unexpectedly'))).toBe('database');
    // A query on a client whose connection died inside a transaction (src/records/postgres/connection.ts `checkOut`).
    expect(outageOf(new Error('Client was closed and is not queryable'))).toBe('database');
    // pg-pool, when the server drops packets instead of refusing (a partition, a host that is down).
    expect(outageOf(new Error('timeout exceeded when trying to connect'))).toBe('database');
    expect(outageOf(new AppError('SERVICE_UNAVAILABLE', 'The storage endpoint is unreachable.', { reason: 'storage_unreachable' }))).toBe(
      'storage',
    );
  });

  it('does not wait out what waiting will not cure', () => {
    expect(outageOf(withCode('password authentication failed for user "immoreel"', '28P01'))).toBeNull();
    expect(outageOf(withCode('database "immoreel" does not exist', '3D000'))).toBeNull();
    expect(outageOf(new AppError('BAD_REQUEST', 'No photos to render.'))).toBeNull();
  });
});
