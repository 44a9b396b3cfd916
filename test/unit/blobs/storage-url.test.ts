import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { openBlobStore, parseStorageUrl, s3ClientConfig } from '../../../src/blobs/index.js';

function failure(url: string): AppError {
  try {
    parseStorageUrl(url);
  } catch (error) {
    return error as AppError;
  }
  throw new Error(`${url} was accepted`);
}

describe('storage URL parsing', () => {
  it('reads bucket and prefix from s3:// URLs', () => {
    expect(parseStorageUrl('s3://videos')).toEqual({ kind: 's3', bucket: 'videos', prefix: '' });
    expect(parseStorageUrl('s3://videos/')).toEqual({ kind: 's3', bucket: 'videos', prefix: '' });
    expect(parseStorageUrl('s3://my.videos-1/prod/immoreel/')).toEqual({ kind: 's3', bucket: 'my.videos-1', prefix: 'prod/immoreel' });
    expect(parseStorageUrl('S3://videos/a')).toEqual({ kind: 's3', bucket: 'videos', prefix: 'a' });
  });

  it('takes file:// URLs and absolute paths as local directories', () => {
    expect(parseStorageUrl('file:///srv/immoreel')).toEqual({ kind: 'local', dir: '/srv/immoreel' });
    expect(parseStorageUrl('/srv/immoreel/')).toEqual({ kind: 'local', dir: '/srv/immoreel' });
  });

  it('says what is wrong with a bad URL (exit 2)', () => {
    expect(failure('s3://').message).toMatch(/names no bucket/);
    expect(failure('s3:///prefix').message).toMatch(/names no bucket/);
    expect(failure('http://bucket/x').message).toMatch(/scheme must be s3:\/\/ or file:\/\//);
    expect(failure('gs://bucket').message).toMatch(/scheme must be s3:\/\//);
    expect(failure('bucket/prefix').message).toMatch(/scheme must be s3:\/\//);
    expect(failure('s3://My_Bucket').message).toMatch(/not a valid S3 bucket name/);
    expect(failure('s3://ab').message).toMatch(/not a valid S3 bucket name/);
    expect(failure('s3://bucket/../x').message).toMatch(/Invalid prefix segment/);
    expect(failure('s3://bucket/x?versionId=1').message).toMatch(/no query/);
    expect(failure('   ').message).toMatch(/empty/);
    for (const url of ['s3://', 'http://b/x', 's3://My_Bucket']) {
      expect(failure(url)).toMatchObject({ code: 'BAD_REQUEST', exitCode: 2, reason: 'storage_url_invalid' });
    }
  });

  it('chooses the store from the URL, files in the data directory by default', () => {
    expect(openBlobStore({ dataDir: '/data' }).location).toBe('file:///data');
    expect(openBlobStore({ dataDir: '/data', url: 'file:///other' }).location).toBe('file:///other');
    expect(openBlobStore({ dataDir: '/data', url: 's3://bucket/p', env: { AWS_REGION: 'eu-west-3' } }).location).toBe('s3://bucket/p');
  });
});

describe('S3 client configuration from the AWS environment', () => {
  it('uses path-style addressing and a default region for a custom endpoint', () => {
    const config = s3ClientConfig({
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(config).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(s3ClientConfig({ AWS_ENDPOINT_URL: 'http://minio:9000', AWS_REGION: 'eu-west-3' })).toMatchObject({
      endpoint: 'http://minio:9000',
      region: 'eu-west-3',
    });
  });

  it('prefers AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL, and leaves AWS itself virtual-hosted', () => {
    expect(s3ClientConfig({ AWS_ENDPOINT_URL_S3: 'http://s3only', AWS_ENDPOINT_URL: 'http://all' }).endpoint).toBe('http://s3only');
    const aws = s3ClientConfig({ AWS_REGION: 'eu-west-1' });
    expect(aws.endpoint).toBeUndefined();
    expect(aws.forcePathStyle).toBeUndefined();
    expect(aws.credentials).toBeUndefined(); // the SDK's default chain (profiles, instance roles)
  });
});

describe('blob keys of jobs and assets', () => {
  it('puts videos under the job and assets under assets/, refusing ids that could escape', async () => {
    const { videoKey, assetKey } = await import('../../../src/blobs/index.js');
    expect(videoKey('job_01abc')).toBe('jobs/job_01abc/output.mp4');
    expect(videoKey('job_01abc', 2)).toBe('jobs/job_01abc/output-2.mp4');
    expect(assetKey('ast_x.jpg')).toBe('assets/ast_x.jpg');
    expect(() => videoKey('../x')).toThrow(/Invalid blob key/);
    expect(() => assetKey('.hidden')).toThrow(/Invalid blob key/);
  });
});
