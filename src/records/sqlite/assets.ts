import type { Db } from './driver.js';
import type { AssetRecords, AssetRow } from '../types.js';

/** Asset rows in the SQLite file; the bytes are the blob store's (src/records/assets.ts writes both). */
export class SqliteAssetRecords implements AssetRecords {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async insert(row: AssetRow): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO server_assets (asset_id, tenant, content_type, format, width, height, size_bytes, sha256, file, created_at, expires_at)
         VALUES (@asset_id, @tenant, @content_type, @format, @width, @height, @size_bytes, @sha256, @file, @created_at, @expires_at)`,
      )
      .run(row);
  }

  async find(tenant: string, assetId: string): Promise<AssetRow | null> {
    const row = this.db.prepare('SELECT * FROM server_assets WHERE asset_id = ?').get(assetId) as AssetRow | undefined;
    return row === undefined || row.tenant !== tenant || row.expires_at <= this.now() ? null : row;
  }

  async takeExpired(): Promise<Pick<AssetRow, 'asset_id' | 'file'>[]> {
    return this.db
      .transaction(() => {
        const rows = this.db
          .prepare('SELECT asset_id, file FROM server_assets WHERE expires_at <= ? ORDER BY asset_id')
          .all(this.now()) as Pick<AssetRow, 'asset_id' | 'file'>[];
        const remove = this.db.prepare('DELETE FROM server_assets WHERE asset_id = ?');
        for (const row of rows) remove.run(row.asset_id);
        return rows;
      })
      .immediate();
  }
}
