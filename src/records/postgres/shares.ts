import type { Pool } from './connection.js';
import { liveShare, type ShareRecords, type ShareRow } from '../shares.js';

/** Share links, as the SQLite store keeps them (src/records/sqlite/shares.ts). */
export class PostgresShareRecords implements ShareRecords {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async insert(row: ShareRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO server_shares (share_id, token, tenant, job_id, format, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.share_id, row.token, row.tenant, row.job_id, row.format, row.created_at, row.expires_at],
    );
  }

  async findByToken(token: string): Promise<ShareRow | null> {
    const { rows } = await this.pool.query<ShareRow>('SELECT * FROM server_shares WHERE token = $1', [token]);
    const row = rows[0];
    return liveShare(row, this.now()) ? row : null;
  }

  async list(tenant: string, jobId?: string): Promise<ShareRow[]> {
    // `$3::text IS NULL`: one statement for the tenant's links and for one job's.
    const { rows } = await this.pool.query<ShareRow>(
      'SELECT * FROM server_shares WHERE tenant = $1 AND expires_at > $2 AND ($3::text IS NULL OR job_id = $3) ORDER BY created_at DESC, share_id COLLATE "C"',
      [tenant, this.now(), jobId ?? null],
    );
    return rows;
  }

  async revoke(tenant: string, shareId: string): Promise<ShareRow | null> {
    const { rows } = await this.pool.query<ShareRow>('DELETE FROM server_shares WHERE share_id = $1 AND tenant = $2 RETURNING *', [
      shareId,
      tenant,
    ]);
    const row = rows[0];
    return liveShare(row, this.now()) ? row : null;
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM server_shares WHERE expires_at <= $1', [this.now()]);
    return rowCount ?? 0;
  }
}
