import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { storageError } from '../../../src/blobs/errors.js';
import { AppError } from '../../../src/core/errors.js';
import { RepeatedLogLimiter } from '../../../src/core/log-throttle.js';
import { createLogger } from '../../../src/core/logger.js';
import { toHttpError } from '../../../src/server/errors.js';
import { redactUrlQueries } from '../../../src/core/redact.js';

/** The log lines of `serve` and `worker` (docs/operations.md "Logs"). */

function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the JSON log lines', () => {
  it('carry time, level, the process and the line’s own fields, one JSON object a line', () => {
    const out = sink();
    const log = createLogger({ stream: out.stream, process: 'worker' });
    log.info({ event: 'job_requeued', job_id: 'job_abc', tenant: 'acme', attempt: 2 }, 'job re-queued');
    log.debug({ event: 'hidden' }, 'below the level');
    const [line, ...rest] = out.lines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ level: 'info', process: 'worker', service: 'immoreel', event: 'job_requeued', job_id: 'job_abc' });
    expect(line).toMatchObject({ tenant: 'acme', attempt: 2, msg: 'job re-queued', pid: process.pid });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });

  it('never carry a password, an API key or a secret field, in a message, a field or an error', () => {
    const out = sink();
    const log = createLogger({ stream: out.stream, process: 'serve' });
    const url = 'postgres://immoreel:hunter2secret@db.internal:5432/immoreel';
    log.warn({ url, webhook_secret: 'whsec_plain', headers: { authorization: 'Bearer imk_live_abcdefgh12345' } }, `lost ${url}`);
    log.error({ err: new Error(`connect failed for ${url} with imk_live_abcdefgh12345`) }, 'failed');
    const text = JSON.stringify(out.lines());
    expect(text).not.toContain('hunter2secret');
    expect(text).not.toContain('whsec_plain');
    expect(text).not.toContain('imk_live_abcdefgh12345');
    expect(text).toContain('db.internal:5432');
  });
});

describe('RepeatedLogLimiter', () => {
  it('writes the first line, then at most one summary per interval, then starts over once quiet', () => {
    let now = 0;
    const limiter = new RepeatedLogLimiter(10_000, () => now);
    const written: [string, Record<string, unknown>][] = [];
    const log = (message: string, fields: Record<string, unknown>): void => void written.push([message, fields]);
    // A poll failing every second for 25 s.
    for (; now <= 25_000; now += 1_000) limiter.log('outbox', log, 'webhook outbox unavailable', { error: 'ECONNREFUSED' });
    expect(written).toEqual([
      ['webhook outbox unavailable', { error: 'ECONNREFUSED' }],
      ['webhook outbox unavailable (repeated 10 times in the last 10 s)', { error: 'ECONNREFUSED', repeated: 10, window_s: 10 }],
      ['webhook outbox unavailable (repeated 10 times in the last 10 s)', { error: 'ECONNREFUSED', repeated: 10, window_s: 10 }],
    ]);
    // Five occurrences are still counted: flushing writes them once, and then nothing is left.
    expect(limiter.flush('outbox', log, 'webhook outbox unavailable')).toBe(true);
    expect(written.at(-1)).toEqual(['webhook outbox unavailable (repeated 5 times in the last 6 s)', { repeated: 5, window_s: 6 }]);
    expect(limiter.flush('outbox', log, 'webhook outbox unavailable')).toBe(false);
    // Another key is limited on its own; a key quiet for a whole interval is written as new.
    now += 60_000;
    expect(limiter.log('sweep', log, 'webhook sweep failed')).toBe(true);
    expect(limiter.log('outbox', log, 'webhook outbox unavailable')).toBe(true);
    now += 20_000;
    expect(limiter.log('outbox', log, 'webhook outbox unavailable')).toBe(true);
    expect(written.at(-1)![0]).toBe('webhook outbox unavailable');
    expect(written).toHaveLength(7);
  });
});

describe('what clients are told of a fault of the storage or the database', () => {
  const endpoint = 'http://10.1.2.3:9000';
  const faults = [
    storageError(
      'storage_unreachable',
      `The storage endpoint is unreachable (s3://videos at ${endpoint}: ECONNREFUSED): check AWS_ENDPOINT_URL_S3.`,
    ),
    storageError('storage_credentials', `The storage refused our credentials (s3://videos at ${endpoint}, 403): check AWS_ACCESS_KEY_ID.`),
    storageError('bucket_missing', `The bucket videos does not exist (s3://videos at ${endpoint}): fix IMMOREEL_STORAGE_URL.`),
    new AppError('BAD_REQUEST', 'The database in postgres://db.internal:5432/x does not exist: fix IMMOREEL_DATABASE_URL.', {
      reason: 'database_missing',
    }),
  ];

  it.each(faults.map((fault) => [fault.reason, fault] as const))(
    '%s: a 503 that names no endpoint, bucket or variable',
    (_reason, fault) => {
      const answer = toHttpError(fault);
      expect(answer).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503, retryAfterS: 5 });
      expect(answer.message).not.toMatch(/10\.1\.2\.3|db\.internal|s3:\/\/|postgres:\/\/|AWS_|IMMOREEL_/);
      // The detail stays with the error, for the log.
      expect(answer.cause).toBe(fault);
    },
  );

  it('passes a client error of ours on as it is', () => {
    const notFound = storageError('blob_not_found', 'No blob jobs/x/output.mp4 in s3://videos.');
    expect(toHttpError(notFound)).toBe(notFound);
  });
});

describe('URLs in log lines', () => {
  it("leave out a webhook URL's query, which may carry the receiver's token", () => {
    const message = 'fetch to https://hooks.example.com/in?token=s3cr3t&x=1 failed; see http://a.example/p?key=k#frag';
    const redacted = redactUrlQueries(message);
    expect(redacted).not.toMatch(/s3cr3t|key=k/);
    expect(redacted).toBe('fetch to https://hooks.example.com/in?*** failed; see http://a.example/p?***#frag');
  });
});
