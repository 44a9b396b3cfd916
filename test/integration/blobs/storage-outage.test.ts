import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../src/blobs/s3-store.js';
import { rideOut } from '../../../src/jobs/ride-out.js';
import { startS3, type S3Server } from '../../helpers/services.js';

/**
 * A video upload while the object storage restarts (docs/operations.md "Outages"): the write is
 * waited out with backoff and lands once the server is back; past the budget it fails with a
 * retryable SERVICE_UNAVAILABLE that names no endpoint.
 */

let s3: S3Server;
let blobs: S3BlobStore;

beforeAll(async () => {
  s3 = await startS3('immoreel-outage');
  blobs = S3BlobStore.fromEnvironment(s3.bucket, 'videos', s3.env);
}, 60_000);

afterAll(async () => {
  await blobs?.close();
  await s3?.stop();
});

describe('an upload during a storage outage', () => {
  it('waits the outage out and lands once the server is back, each phase told once', async () => {
    await s3.halt();
    const events: string[] = [];
    const body = Buffer.from('a finished video');
    const upload = rideOut('uploading a video', () => blobs.put('jobs/outage.mp4', body, { contentType: 'video/mp4' }), {
      budgetMs: 60_000,
      maxDelayMs: 1_000,
      onOutage: ({ outage, phase }) => events.push(`${outage} ${phase}`),
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await s3.resume();
    await upload;
    expect(events).toEqual(['storage begins', 'storage ends']);
    expect((await blobs.head('jobs/outage.mp4'))?.size).toBe(body.length);
  });

  it('gives up past its budget with a retryable error that names no endpoint', async () => {
    await s3.halt();
    try {
      const failure = await rideOut('uploading a video', () => blobs.put('jobs/late.mp4', Buffer.from('x')), { budgetMs: 1_500 }).catch(
        (error: unknown) => error as { code?: string; reason?: string; message: string },
      );
      expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'storage_unavailable' });
      expect((failure as Error).message).not.toContain(s3.endpoint);
    } finally {
      await s3.resume();
    }
  });
});
