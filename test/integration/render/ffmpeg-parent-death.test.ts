import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/*
 * ffmpeg dies with its worker (docs/rendering.md "ffmpeg dies with its worker"): a process running
 * an ffmpeg through the runner is killed with SIGKILL — no handler of its own runs — and its ffmpeg
 * must be gone within 2 s. The process leads its own group, so its ffmpeg is found (and, whatever
 * happens, cleaned up) by group.
 */

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../../helpers/long-ffmpeg.ts', import.meta.url));

async function ffmpegInGroup(pgid: number): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,pgid=,stat=,comm=']);
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat, comm]) => Number(group) === pgid && comm === 'ffmpeg' && !stat?.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

describe('a worker killed with SIGKILL', () => {
  it('leaves no ffmpeg running after 2 s', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pgid = child.pid!;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`ffmpeg never ran:\n${stderr}`)), 45_000);
        child.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('RUNNING')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`the process exited (${code}) before ffmpeg ran:\n${stderr}`)));
      });
      expect(await ffmpegInGroup(pgid)).toHaveLength(1);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(pgid, 'SIGKILL');
      await exited;
      const killedAt = Date.now();
      let left = await ffmpegInGroup(pgid);
      while (left.length > 0 && Date.now() - killedAt < 2_000) {
        await new Promise((r) => setTimeout(r, 100));
        left = await ffmpegInGroup(pgid);
      }
      expect(left, 'ffmpeg still running 2 s after its parent was killed').toEqual([]);
    } finally {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // The group is already empty: what the test wanted.
      }
    }
  });
});
