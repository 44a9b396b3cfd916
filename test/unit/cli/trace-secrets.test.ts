import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliError } from '../../../src/cli/errors.js';
import { redactSecrets } from '../../../src/core/redact.js';

const PASSWORD = 'hunter2-db-7f3a';
const API_KEY = `imk_${'A1b2C3d4'.repeat(5)}xyz`;

describe('secrets never reach a trace file', () => {
  const argv = process.argv;
  afterEach(() => {
    process.argv = argv;
  });

  it('writes the command line and the error of an unexpected failure without passwords or API keys', async () => {
    process.argv = [
      'node',
      'immoreel',
      '--database-url',
      `postgres://immoreel:${PASSWORD}@db.internal:5432/immoreel`,
      'auth',
      'login',
      '--api-key',
      API_KEY,
    ];
    const error = await cliError(new Error(`connect failed for postgresql://u:${PASSWORD}@10.0.0.5/x?sslpassword=${PASSWORD}`));
    const file = /the full trace is in (\S+)\./.exec(error.message)?.[1];
    expect(file, error.message).toBeDefined();
    const trace = readFileSync(file!, 'utf8');
    rmSync(file!, { force: true });
    expect(trace).toContain('postgres://immoreel:***@db.internal:5432/immoreel');
    expect(trace).toContain('--api-key ***');
    expect(trace + error.message).not.toContain(PASSWORD);
    expect(trace + error.message).not.toContain(API_KEY);
  });
});

describe('redactSecrets', () => {
  it('keeps URLs without credentials and hides every kind of secret it knows', () => {
    expect(redactSecrets('s3://bucket/prefix https://example.com/a?b=1')).toBe('s3://bucket/prefix https://example.com/a?b=1');
    expect(redactSecrets('postgres://user@host/db')).toBe('postgres://user@host/db');
    expect(redactSecrets('postgres://user:p%40ss@host/db')).toBe('postgres://user:***@host/db');
    expect(redactSecrets('postgres://host/db?password=abc&sslmode=require')).toBe('postgres://host/db?password=***&sslmode=require');
    expect(redactSecrets(`--api-key=${API_KEY}`)).toBe('--api-key=***');
    expect(redactSecrets(`Bearer ${API_KEY}`)).toBe('Bearer imk_***');
  });
});
