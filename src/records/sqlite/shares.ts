import type { Db } from './driver.js';
import { liveShare, type ShareRecords, type ShareRow } from '../shares.js';

/** Share links in the SQLite file; src/records/shares.ts holds what both backends share. */
export class SqliteShareRecords implements ShareRecords {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async insert(row: ShareRow): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO server_shares (share_id, token, tenant, job_id, format, created_at, expires_at)
         VALUES (@share_id, @token, @tenant, @job_id, @format, @created_at, @expires_at)`,
      )
      .run(row);
  }

  async findByToken(token: string): Promise<ShareRow | null> {
    const row = this.db.prepare('SELECT * FROM server_shares WHERE token = ?').get(token) as ShareRow | undefined;
    return liveShare(row, this.now()) ? row : null;
  }

  async list(tenant: string, jobId?: string): Promise<ShareRow[]> {
    return this.db
      .prepare(
        'SELECT * FROM server_shares WHERE tenant = @tenant AND expires_at > @now AND (@job IS NULL OR job_id = @job) ORDER BY created_at DESC, share_id',
      )
      .all({ tenant, now: this.now(), job: jobId ?? null }) as ShareRow[];
  }

  async revoke(tenant: string, shareId: string): Promise<ShareRow | null> {
    const row = this.db.prepare('DELETE FROM server_shares WHERE share_id = ? AND tenant = ? RETURNING *').get(shareId, tenant) as
      ShareRow | undefined;
    return liveShare(row, this.now()) ? row : null;
  }

  async purgeExpired(): Promise<number> {
    return this.db.prepare('DELETE FROM server_shares WHERE expires_at <= ?').run(this.now()).changes;
  }
}
