import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuiltCliIsFresh } from '../../helpers/cli.js';
import { startS3, type S3Server } from '../../helpers/services.js';
import { groupCommands, listBucket, ProcessSet, startWebhookReceiver, videosByJob, waitFor } from '../../helpers/cluster.js';

/*
 * The harness of the multi-process test and `npm run bench:scale`, on its own: a test that proves
 * the several-machine mode is only as good as the kills, the teardown, the webhook check and the
 * bucket listing it relies on.
 */

let s3: S3Server;
let work: string;

beforeAll(async () => {
  s3 = await startS3('immoreel-harness');
  work = mkdtempSync(join(tmpdir(), 'immoreel-harness-'));
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('process set', () => {
  it('a SIGKILL to a group takes the children along; a child left in a group is reported, then stopped', async () => {
    const processes = new ProcessSet();
    // A parent that starts a long child in its group, then says so.
    const script = "const c = require('child_process').spawn('sleep', ['300'], { stdio: 'ignore' }); console.error('child ' + c.pid);";
    const parent = await processes.spawnCommand('parent', process.execPath, ['-e', `${script} setInterval(() => {}, 1000);`], {
      readyWhen: /child \d+/,
    });
    // The parent and its child. `ps` shows a process by its main thread's name, which Node 24
    // sets to `MainThread` (Node 20 and 22 leave it `node`).
    const parentName = Number.parseInt(process.versions.node, 10) >= 24 ? 'MainThread' : 'node';
    expect(await groupCommands(parent.pid)).toEqual(expect.arrayContaining([parentName, 'sleep']));
    processes.expectExit(parent);
    parent.signalGroup('SIGKILL');
    expect((await parent.exited).signal).toBe('SIGKILL');
    await waitFor('the group to be empty', async () => ((await processes.leftovers()).length === 0 ? true : undefined), {
      timeoutMs: 5_000,
    });

    // A leader that exits on its own while its child lives on: an orphan the teardown must see.
    const leaver = await processes.spawnCommand('leaver', process.execPath, ['-e', `${script} setTimeout(() => process.exit(0), 200);`], {
      readyWhen: /child \d+/,
    });
    processes.expectExit(leaver);
    await leaver.exited;
    expect((await processes.leftovers()).join('\n')).toMatch(/sleep/);
    await processes.stopAll(1_000);
    expect(await processes.leftovers()).toEqual([]);
  });

  it('reports a process that exits without being asked, with its output', async () => {
    const processes = new ProcessSet();
    const crash = await processes.spawnCommand('crasher', process.execPath, ['-e', "console.error('bad flag'); process.exit(2)"]);
    await crash.exited;
    expect(() => processes.assertNoneCrashed()).toThrow(/crasher .* exited unexpectedly:\nbad flag/s);
    await expect(waitFor('never', async () => undefined, { timeoutMs: 10_000, processes })).rejects.toThrow(/bad flag/);
    await processes.stopAll(1_000);
  });

  it('starts the built `immoreel serve` and waits for its listening line; stopAll ends it cleanly', async () => {
    assertBuiltCliIsFresh();
    const processes = new ProcessSet();
    const serve = await processes.spawn('serve', ['--data-dir', join(work, 'serve'), 'serve', '--port', '0'], {
      readyWhen: /"event":"listening"/,
    });
    const url = /"url":"(http[^"]+)"/.exec(serve.stderr())![1]!;
    expect((await fetch(`${url.replace(/\/$/, '')}/api/v1/health`)).status).toBe(200);
    await processes.stopAll();
    expect((await serve.exited).code).toBe(0);
    expect(processes.crashed()).toEqual([]);
    expect(await processes.leftovers()).toEqual([]);
  });
});

describe('webhook receiver', () => {
  it('keeps deliveries signed with the tenant secret and refuses others', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const receiver = await startWebhookReceiver(() => secret);
    try {
      const send = async (signWith: string, id: string): Promise<number> => {
        const body = JSON.stringify({ type: 'job.succeeded', timestamp: new Date().toISOString(), data: { job_id: 'job_1' } });
        const now = new Date();
        const signature = new Webhook(signWith).sign(id, now, body);
        const response = await fetch(receiver.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body,
        });
        return response.status;
      };
      expect(await send(secret, 'msg_1')).toBe(204);
      expect(await send(`whsec_${Buffer.alloc(32, 8).toString('base64')}`, 'msg_2')).toBe(400);
      expect(receiver.events).toEqual([{ messageId: 'msg_1', type: 'job.succeeded', jobId: 'job_1' }]);
      expect(receiver.rejected).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('bucket listing', () => {
  it('lists every object under a prefix, and groups the videos by job', async () => {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.env.AWS_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const keys = [
      'p/jobs/job_AAAA/output.mp4',
      'p/jobs/job_AAAA/output-2.mp4',
      'p/jobs/job_BBBB/output.mp4',
      'p/assets/asset_1.jpg',
      'other/jobs/job_CCCC/output.mp4',
    ];
    try {
      for (const Key of keys) await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: 'x' }));
    } finally {
      client.destroy();
    }
    // One page (s3rver answers a smaller MaxKeys with an internal error, so paging is not forced here).
    const listed = await listBucket(s3, 'p/');
    expect(listed.map((o) => o.key).sort()).toEqual(keys.filter((k) => k.startsWith('p/')).sort());
    const videos = videosByJob(listed);
    expect([...videos.keys()].sort()).toEqual(['job_AAAA', 'job_BBBB']);
    expect(videos.get('job_AAAA')!.map((o) => o.key)).toEqual(['p/jobs/job_AAAA/output-2.mp4', 'p/jobs/job_AAAA/output.mp4']);
  }, 120_000);
});
