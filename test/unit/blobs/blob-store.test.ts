import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../../src/blobs/index.js';
import { describeBlobStoreContract } from '../../helpers/blob-store-contract.js';

/** The blob store contract on local files; test/integration/blobs runs it on S3. */

let localRoot: string;

beforeAll(async () => {
  localRoot = await mkdtemp(join(tmpdir(), 'immoreel-blobs-'));
});

afterAll(async () => {
  if (localRoot !== undefined) await rm(localRoot, { recursive: true, force: true });
});

let storeCounter = 0;
describeBlobStoreContract([['local files', () => new LocalBlobStore(join(localRoot, `store-${(storeCounter += 1)}`))]]);

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
