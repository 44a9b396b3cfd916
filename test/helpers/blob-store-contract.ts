import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import type { BlobStore } from '../../src/blobs/index.js';

/**
 * The blob store contract (docs/scaling.md "Blob store"), written once: test/unit/blobs runs it
 * on local files, test/integration/blobs on S3 (s3rver).
 */

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function keys(store: BlobStore, prefix: string): Promise<string[]> {
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

export async function reason(promise: Promise<unknown>): Promise<{ reason: string | undefined; exitCode: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    return { reason: e.reason, exitCode: e.exitCode, message: e.message };
  }
  throw new Error('expected a rejection');
}

/** Every behaviour a blob store promises, once per store given (`make` returns a fresh, empty one). */
export function describeBlobStoreContract(implementations: [string, () => BlobStore][]): void {
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
      expect(await keys(store, '')).toEqual([
        'assets/p.jpg',
        'jobs/a/output.mp4',
        'jobs/ab/output.mp4',
        'jobs/b/output.mp4',
        'jobsx/y.bin',
      ]);
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
}
