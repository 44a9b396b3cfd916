import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { LocalBlobStore, openBlobStore, S3BlobStore, type BlobStore } from '../../../src/blobs/index.js';
import { startS3, type S3Server } from '../../helpers/services.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function keys(store: BlobStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of store.list(prefix)) out.push(entry.key);
  return out;
}

function chunked(buffer: Buffer, size = 64 * 1024): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) parts.push(buffer.subarray(i, i + size));
  return Readable.from(parts);
}

function failingAfter(bytes: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(bytes);
      } else {
        this.destroy(new Error('source broke mid-stream'));
      }
    },
  });
}

async function reason(promise: Promise<unknown>): Promise<{ reason: string | undefined; exitCode: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    return { reason: e.reason, exitCode: e.exitCode, message: e.message };
  }
  throw new Error('expected a rejection');
}

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
const implementations: [string, () => BlobStore][] = [
  ['local files', () => new LocalBlobStore(join(localRoot, `store-${(storeCounter += 1)}`))],
  ['S3 (s3rver)', () => openBlobStore({ url: `s3://blobs/run-${(storeCounter += 1)}`, dataDir: localRoot, env: s3.env })],
];

describe.each(implementations)('blob store contract: %s', (_name, make) => {
  it('puts a buffer and reads back the same bytes, size, SHA-256 and content type', async () => {
    const store = make();
    const body = randomBytes(10_000);
    const put = await store.put('jobs/j1/output.mp4', body, { contentType: 'video/mp4' });
    expect(put).toMatchObject({ key: 'jobs/j1/output.mp4', size: 10_000, sha256: sha(body), contentType: 'video/mp4' });
    const head = await store.head('jobs/j1/output.mp4');
    expect(head).toMatchObject({ size: 10_000, sha256: sha(body), etag: put.etag });
    expect(head!.etag).toMatch(/^".+"$/);
    expect(Math.abs(head!.lastModified.getTime() - Date.now())).toBeLessThan(60_000);
    const read = await store.get('jobs/j1/output.mp4');
    expect(read.range).toBeNull();
    expect((await text(read.body)).equals(body)).toBe(true);
    await store.close();
  });

  it('streams a multi-part upload and records its SHA-256', async () => {
    const store = make();
    const body = randomBytes(9 * 1024 * 1024); // more than one 8 MiB part
    const put = await store.put('big/video.mp4', chunked(body), { contentType: 'video/mp4' });
    expect(put.size).toBe(body.length);
    expect((await store.head('big/video.mp4'))!.sha256).toBe(sha(body));
    expect((await text((await store.get('big/video.mp4')).body)).equals(body)).toBe(true);
    await store.close();
  });

  it('serves byte ranges, clamps the end, refuses a start past the end', async () => {
    const store = make();
    const body = Buffer.from('0123456789abcdef');
    await store.put('r/file.bin', body);
    const first = await store.get('r/file.bin', { start: 0, end: 4 });
    expect(first.range).toEqual({ start: 0, end: 4 });
    expect((await text(first.body)).toString()).toBe('01234');
    expect(first.info.size).toBe(16);
    const tail = await store.get('r/file.bin', { start: 10, end: 1000 });
    expect(tail.range).toEqual({ start: 10, end: 15 });
    expect((await text(tail.body)).toString()).toBe('abcdef');
    expect((await reason(store.get('r/file.bin', { start: 16, end: 20 }))).reason).toBe('range_not_satisfiable');
    await store.close();
  });

  it('answers missing objects: head null, get not found, delete is a no-op', async () => {
    const store = make();
    expect(await store.head('nothing/here.mp4')).toBeNull();
    const missing = await reason(store.get('nothing/here.mp4'));
    expect(missing.reason).toBe('blob_not_found');
    await store.delete('nothing/here.mp4');
    await store.put('d/x.bin', Buffer.from('x'));
    await store.delete('d/x.bin');
    expect(await store.head('d/x.bin')).toBeNull();
    expect(await keys(store, 'd/')).toEqual([]);
    await store.close();
  });

  it('lists by prefix, sorted, without temp files or other prefixes', async () => {
    const store = make();
    for (const key of ['jobs/b/output.mp4', 'jobs/a/output.mp4', 'jobs/ab/output.mp4', 'assets/p.jpg', 'jobsx/y.bin']) {
      await store.put(key, Buffer.from(key));
    }
    expect(await keys(store, 'jobs/')).toEqual(['jobs/a/output.mp4', 'jobs/ab/output.mp4', 'jobs/b/output.mp4']);
    expect(await keys(store, 'jobs/a')).toEqual(['jobs/a/output.mp4', 'jobs/ab/output.mp4']);
    expect(await keys(store, 'assets/')).toEqual(['assets/p.jpg']);
    expect(await keys(store, '')).toEqual(['assets/p.jpg', 'jobs/a/output.mp4', 'jobs/ab/output.mp4', 'jobs/b/output.mp4', 'jobsx/y.bin']);
    const listed = [];
    for await (const entry of store.list('assets/')) listed.push(entry);
    expect(listed[0]).toMatchObject({ key: 'assets/p.jpg', size: 'assets/p.jpg'.length });
    await store.close();
  });

  it('keeps the previous object whole when a replacing upload fails mid-stream', async () => {
    const store = make();
    const old = Buffer.from('the finished video');
    await store.put('jobs/j2/output.mp4', old);
    await expect(store.put('jobs/j2/output.mp4', failingAfter(randomBytes(1000)))).rejects.toThrow(/broke mid-stream/);
    expect((await text((await store.get('jobs/j2/output.mp4')).body)).equals(old)).toBe(true);
    expect((await store.head('jobs/j2/output.mp4'))!.sha256).toBe(sha(old));
    expect(await keys(store, 'jobs/j2/')).toEqual(['jobs/j2/output.mp4']);
    await store.close();
  });

  it('refuses bytes whose SHA-256 is not the one announced, and keeps nothing', async () => {
    const store = make();
    const body = randomBytes(2000);
    const wrong = sha(Buffer.from('something else'));
    expect((await reason(store.put('c/buffer.bin', body, { sha256: wrong }))).reason).toBe('checksum_mismatch');
    expect((await reason(store.put('c/stream.bin', chunked(body, 500), { sha256: wrong }))).reason).toBe('checksum_mismatch');
    expect(await store.head('c/buffer.bin')).toBeNull();
    expect(await store.head('c/stream.bin')).toBeNull();
    const ok = await store.put('c/stream.bin', chunked(body, 500), { sha256: sha(body) });
    expect(ok.sha256).toBe(sha(body));
    await store.close();
  });

  it('refuses keys that could escape the store', async () => {
    const store = make();
    for (const key of ['../etc/passwd', 'jobs/../../x', '/abs', 'a//b', '.hidden', 'jobs/.x.meta.json', '']) {
      expect((await reason(store.put(key, Buffer.from('x')))).reason).toBe('blob_key_invalid');
    }
    await store.close();
  });
});

describe('local blob store specifics', () => {
  it('writes files 0600 in directories 0700', async () => {
    const root = join(localRoot, 'modes');
    const store = new LocalBlobStore(root);
    await store.put('jobs/j1/output.mp4', Buffer.from('v'));
    expect((await stat(join(root, 'jobs/j1/output.mp4'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'jobs/j1'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(root, 'jobs'))).mode & 0o777).toBe(0o700);
    // Only the object and its metadata: no temporary file left behind.
    expect((await readdir(join(root, 'jobs/j1'))).sort()).toEqual(['.output.mp4.meta.json', 'output.mp4']);
  });

  it('has no presigned URLs: downloads stream through the API', async () => {
    expect(await new LocalBlobStore(join(localRoot, 'p')).presignGet()).toBeNull();
  });
});

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
