/**
 * A portal's integration with API v1, written only against the client generated from the served
 * OpenAPI document (openapi-typescript + openapi-fetch). The contract test type-checks this file
 * against freshly generated types, then runs it on a real server.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/api.js';

export interface IntegrationResult {
  analyzedTitle: string;
  assetId: string;
  jobId: string;
  replayed: string | null;
  notModifiedPolls: number;
  firstBytes: Uint8Array;
  listed: string[];
  canceledState: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runIntegration(
  baseUrl: string,
  apiKey: string,
  photo: Uint8Array,
  fetchImpl: typeof fetch,
  webhookUrl: string,
): Promise<IntegrationResult> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` }, fetch: fetchImpl });

  const analyzed = await client.POST('/api/v1/analyze', {
    body: {
      description: 'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, terrasse, ascenseur. Prix : 1 850 000 DH.',
      language: 'fr',
    },
  });
  if (analyzed.data === undefined) throw new Error(`analyze failed: ${JSON.stringify(analyzed.error)}`);
  const property = analyzed.data.property;

  const uploaded = await client.POST('/api/v1/assets', {
    body: photo as unknown as string,
    headers: { 'Content-Type': 'image/png' },
    bodySerializer: (body: unknown) => body as BodyInit,
  });
  if (uploaded.data === undefined) throw new Error(`upload failed: ${JSON.stringify(uploaded.error)}`);
  const assetId = uploaded.data.asset.asset_id;

  const renderBody = {
    listing: property,
    photos: [`asset:${assetId}`],
    duration_s: 12,
    branding: { agency_name: 'Atlas Immobilier', primary_color: '#1F6FB2' },
    metadata: { crm_id: 'A-42', tags: ['contract'] },
    webhook_url: webhookUrl,
  };
  const idempotencyKey = 'contract-7f9c2e4a-1b3d-4c5e-9f00-aa11bb22cc33';
  const first = await client.POST('/api/v1/render-video', { body: renderBody, params: { header: { 'Idempotency-Key': idempotencyKey } } });
  if (first.data === undefined) throw new Error(`render failed: ${JSON.stringify(first.error)}`);
  const again = await client.POST('/api/v1/render-video', { body: renderBody, params: { header: { 'Idempotency-Key': idempotencyKey } } });
  if (again.data?.job.job_id !== first.data.job.job_id) throw new Error('the idempotent retry made another job');
  const jobId = first.data.job.job_id;

  let etag: string | undefined;
  let notModifiedPolls = 0;
  let state: string = first.data.job.state;
  for (let attempt = 0; attempt < 400 && state !== 'succeeded'; attempt += 1) {
    const polled = await client.GET('/api/v1/jobs/{job_id}', {
      params: { path: { job_id: jobId }, header: etag === undefined ? {} : { 'If-None-Match': etag } },
    });
    if (polled.response.status === 304) notModifiedPolls += 1;
    else if (polled.data !== undefined) state = polled.data.job.state;
    etag = polled.response.headers.get('ETag') ?? etag;
    if (state === 'failed' || state === 'canceled') throw new Error(`job ended ${state}`);
    // One more read with the same tag proves 304 while nothing changes.
    if (state === 'succeeded' && notModifiedPolls === 0) {
      const same = await client.GET('/api/v1/jobs/{job_id}', {
        params: { path: { job_id: jobId }, header: { 'If-None-Match': etag ?? '' } },
      });
      if (same.response.status === 304) notModifiedPolls += 1;
    }
    if (state !== 'succeeded') await sleep(25);
  }

  const ranged = await client.GET('/api/v1/jobs/{job_id}/video', {
    params: { path: { job_id: jobId }, header: { Range: 'bytes=0-99' } },
    parseAs: 'arrayBuffer',
  });
  if (ranged.response.status !== 206 || ranged.data === undefined) throw new Error(`ranged download answered ${ranged.response.status}`);

  const listed = await client.GET('/api/v1/jobs', { params: { query: { limit: 10 } } });
  if (listed.data === undefined) throw new Error('list failed');

  const other = await client.POST('/api/v1/render-video', {
    body: { description: 'Villa à Marrakech, 4 chambres, piscine. Prix : 4 500 000 DH.', photos: [`asset:${assetId}`] },
  });
  if (other.data === undefined) throw new Error('second render failed');
  const canceled = await client.POST('/api/v1/jobs/{job_id}/cancel', { params: { path: { job_id: other.data.job.job_id } } });
  if (canceled.data === undefined) throw new Error('cancel failed');

  return {
    analyzedTitle: property.title,
    assetId,
    jobId,
    replayed: again.response.headers.get('Idempotent-Replayed'),
    notModifiedPolls,
    firstBytes: new Uint8Array(ranged.data),
    listed: listed.data.jobs.map((job) => job.job_id),
    canceledState: canceled.data.job.state,
  };
}
