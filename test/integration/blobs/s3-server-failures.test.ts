import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { openBlobStore } from '../../../src/blobs/index.js';

/**
 * An S3 endpoint that fails on its side (5xx), as S3 does when it asks to slow down or has an
 * internal error: a loopback server speaking just enough S3.
 */
let server: Server | null = null;

async function failingS3(failures: number): Promise<{ env: Record<string, string>; listings: () => number }> {
  let listings = 0;
  server = createServer((request, response) => {
    if (request.method === 'HEAD') return response.writeHead(200).end();
    listings += 1;
    if (listings <= failures) {
      response.writeHead(500, { 'content-type': 'application/xml' });
      return response.end(
        '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>',
      );
    }
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end(
      '<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>media</Name><Prefix>p/</Prefix><KeyCount>0</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>',
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
    },
    listings: () => listings,
  };
}

afterEach(async () => {
  await new Promise((resolve) => (server === null ? resolve(null) : server.close(resolve)));
  server = null;
});

describe('the start-up check of an S3 bucket whose server fails on its side', () => {
  it('rides out a few 5xx answers instead of refusing to start', async () => {
    const s3 = await failingS3(5);
    const blobs = openBlobStore({ url: 's3://media/p', dataDir: '/tmp', env: s3.env });
    try {
      await expect(blobs.check()).resolves.toBeUndefined();
      expect(s3.listings()).toBeGreaterThan(5);
    } finally {
      await blobs.close();
    }
  }, 30_000);

  it('gives up with storage_unavailable (exit 6), not an unexpected error, when the failures go on', async () => {
    const s3 = await failingS3(Number.POSITIVE_INFINITY);
    const blobs = openBlobStore({ url: 's3://media/p', dataDir: '/tmp', env: s3.env });
    try {
      const error = await blobs.check().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ reason: 'storage_unavailable', code: 'SERVICE_UNAVAILABLE', exitCode: 6 });
      expect((error as AppError).message).toMatch(/failed on its side .*500 InternalError/);
    } finally {
      await blobs.close();
    }
  }, 60_000);
});
