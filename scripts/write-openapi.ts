/**
 * Writes the OpenAPI document a server serves (GET /api/v1/openapi.json), from an app built on a
 * throw-away data directory: `npm run lint:openapi` lints it with Redocly.
 * Usage: tsx scripts/write-openapi.ts <out.json>
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type JobsPort } from '../src/server/app.js';
import { LocalBlobStore } from '../src/blobs/index.js';
import { openSqliteRecordStore } from '../src/records/index.js';

const out = process.argv[2];
if (out === undefined) {
  process.stderr.write('usage: tsx scripts/write-openapi.ts <out.json>\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'immoreel-openapi-'));
const records = openSqliteRecordStore(dir);
const unused = (): never => {
  throw new Error('not used to describe the API');
};
const jobs: JobsPort = { submitOnce: unused, get: unused, list: unused, cancel: unused, videoKey: unused, countJobs: unused };
const app = buildApp({ records, blobs: new LocalBlobStore(dir), jobs, analyze: unused, validateRender: unused, corsOrigins: ['*'] });
try {
  const answer = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  writeFileSync(out, `${JSON.stringify(JSON.parse(answer.body), null, 2)}\n`);
} finally {
  await app.close();
  await records.close();
  rmSync(dir, { recursive: true, force: true });
}
