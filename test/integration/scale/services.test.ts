import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIN_POSTGRES_MAJOR, startPostgres, startS3 } from '../../helpers/services.js';

describe('test services (real PostgreSQL and s3rver on loopback)', () => {
  it('starts a PostgreSQL server, hands out fresh databases, and stops it', async () => {
    const server = await startPostgres();
    let stopped = false;
    try {
      const url = await server.createDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ v: string; db: string }>(
        "SELECT current_setting('server_version_num') AS v, current_database() AS db",
      );
      await client.end();
      expect(Math.floor(Number(rows[0]!.v) / 10000)).toBeGreaterThanOrEqual(MIN_POSTGRES_MAJOR);
      expect(url.endsWith(`/${rows[0]!.db}`)).toBe(true);
      await server.stop();
      stopped = true;
      const after = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
      await expect(after.connect()).rejects.toThrow();
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it('starts s3rver with the bucket created', async () => {
    const s3 = await startS3('helper-bucket');
    try {
      const client = new S3Client({
        endpoint: s3.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      await expect(client.send(new HeadBucketCommand({ Bucket: 'helper-bucket' }))).resolves.toBeDefined();
      await expect(client.send(new HeadBucketCommand({ Bucket: 'no-such-bucket' }))).rejects.toThrow();
      client.destroy();
    } finally {
      await s3.stop();
    }
  });
});
