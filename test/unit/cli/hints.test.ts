import { describe, expect, it } from 'vitest';
import { followUp } from '../../../src/cli/hints.js';
import { loadConfig } from '../../../src/config/index.js';

describe('follow-up hints', () => {
  it('repeat --database-url without its password, and --storage-url', () => {
    const hint = followUp(
      loadConfig({
        env: {},
        flags: {
          databaseUrl: 'postgres://immoreel:s3cret-pw@db.internal:5432/immoreel?sslmode=require&password=other-pw',
          storageUrl: 's3://videos/prod',
        },
      }),
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
    const config = loadConfig({ env: { IMMOREEL_DATABASE_URL: 'postgres://u:pw@h/db', IMMOREEL_DATA_DIR: '/srv/immoreel' } });
    expect(config.databaseUrl).toBe('postgres://u:pw@h/db');
    expect(followUp(config, 'jobs', 'list')).toBe('immoreel jobs list');
    // The same value typed as a flag is repeated.
    expect(followUp(loadConfig({ env: {}, flags: { dataDir: '/srv/immoreel' } }), 'jobs', 'list')).toBe(
      'immoreel --data-dir /srv/immoreel jobs list',
    );
  });
});
