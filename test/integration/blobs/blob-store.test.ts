import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobStore, S3BlobStore } from '../../../src/blobs/index.js';
import { describeBlobStoreContract, keys, reason } from '../../helpers/blob-store-contract.js';
import { startS3, type S3Server } from '../../helpers/services.js';

/** The blob store contract on S3 (s3rver; test/unit/blobs runs it on local files), and what only S3 does. */

let s3: S3Server;
let localRoot: string;

beforeAll(async () => {
  s3 = await startS3('blobs');
  localRoot = await mkdtemp(join(tmpdir(), 'immoreel-blobs-'));
});

afterAll(async () => {
  await s3?.stop();
  if (localRoot !== undefined) await rm(localRoot, { recursive: true, force: true });
});

let storeCounter = 0;
describeBlobStoreContract([
  ['S3 (s3rver)', () => openBlobStore({ url: `s3://blobs/run-${(storeCounter += 1)}`, dataDir: localRoot, env: s3.env })],
]);

describe('S3 blob store specifics', () => {
  it('keeps stores with different prefixes apart in one bucket', async () => {
    const a = openBlobStore({ url: 's3://blobs/tenant-a', dataDir: localRoot, env: s3.env });
    const b = openBlobStore({ url: 's3://blobs/tenant-b/', dataDir: localRoot, env: s3.env });
    await a.put('x/1.bin', Buffer.from('a'));
    expect(await b.head('x/1.bin')).toBeNull();
    expect(await keys(b, '')).toEqual([]);
    expect(await keys(a, '')).toEqual(['x/1.bin']);
    expect(a.location).toBe('s3://blobs/tenant-a');
    await a.close();
    await b.close();
  });

  it('checks a bucket whose prefix already holds many objects (its one-key listing is truncated)', async () => {
    const store = openBlobStore({ url: 's3://blobs/busy', dataDir: localRoot, env: s3.env });
    for (const name of ['a', 'b', 'c']) await store.put(`jobs/${name}.mp4`, Buffer.from(name));
    await expect(store.check()).resolves.toBeUndefined();
    expect(await keys(store, 'jobs/')).toEqual(['jobs/a.mp4', 'jobs/b.mp4', 'jobs/c.mp4']);
    await store.close();
  });

  it('presigns a GET URL that serves the object, with Range', async () => {
    const store = openBlobStore({ url: 's3://blobs/presign', dataDir: localRoot, env: s3.env });
    await store.put('v.mp4', Buffer.from('0123456789'), { contentType: 'video/mp4' });
    const url = await store.presignGet('v.mp4', 60);
    expect(url).toMatch(/X-Amz-Signature=/);
    const response = await fetch(url!, { headers: { Range: 'bytes=2-5' } });
    expect(response.status).toBe(206);
    expect(await response.text()).toBe('2345');
    await store.close();
  });

  it('checks the bucket: a missing bucket exits 2 with what to do', async () => {
    const store = openBlobStore({ url: 's3://no-such-bucket/x', dataDir: localRoot, env: s3.env });
    const failure = await reason(store.check());
    expect(failure).toMatchObject({ reason: 'bucket_missing', exitCode: 2 });
    expect(failure.message).toContain('no-such-bucket');
    expect((await reason(store.put('a.bin', Buffer.from('x')))).reason).toBe('bucket_missing');
    await store.close();
  });

  it('checks credentials: wrong keys exit 4 and the secret is never printed', async () => {
    const env = { ...s3.env, AWS_ACCESS_KEY_ID: 'WRONGKEY', AWS_SECRET_ACCESS_KEY: 'wrong-secret-value' };
    const store = openBlobStore({ url: 's3://blobs', dataDir: localRoot, env });
    const failure = await reason(store.check());
    expect(failure).toMatchObject({ reason: 'storage_credentials', exitCode: 4 });
    expect(failure.message).not.toContain('wrong-secret-value');
    // (A right key id with a wrong secret makes s3rver answer 500 InternalError, not AWS's 403
    // SignatureDoesNotMatch, so that case cannot be shown against it.)
    await store.close();
  });

  it('reports an unreachable endpoint (exit 6)', async () => {
    const env = { ...s3.env, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9' };
    const store = S3BlobStore.fromEnvironment('blobs', '', env);
    expect(await reason(store.check())).toMatchObject({ reason: 'storage_unreachable', exitCode: 6 });
    await store.close();
  });
});
