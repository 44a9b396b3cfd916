import { describe, expect, it } from 'vitest';
import { followUp } from '../../../src/cli/hints.js';

describe('follow-up hints', () => {
  it('repeat --database-url without its password, and --storage-url', () => {
    const hint = followUp(
      {
        databaseUrl: 'postgres://immoreel:s3cret-pw@db.internal:5432/immoreel?sslmode=require&password=other-pw',
        storageUrl: 's3://videos/prod',
      },
      'jobs',
      'wait',
      'job_x',
    );
    expect(hint).toBe(
      "immoreel --database-url 'postgres://immoreel@db.internal:5432/immoreel?sslmode=require' --storage-url s3://videos/prod jobs wait job_x",
    );
    expect(hint).not.toMatch(/s3cret-pw|other-pw/);
  });

  it('leave out what came from the environment (the next command sees it too)', () => {
    const previous = process.env.IMMOREEL_DATABASE_URL;
    process.env.IMMOREEL_DATABASE_URL = 'postgres://u:pw@h/db';
    try {
      expect(followUp({ databaseUrl: 'postgres://u:pw@h/db' }, 'jobs', 'list')).toBe('immoreel jobs list');
    } finally {
      if (previous === undefined) delete process.env.IMMOREEL_DATABASE_URL;
      else process.env.IMMOREEL_DATABASE_URL = previous;
    }
  });
});
