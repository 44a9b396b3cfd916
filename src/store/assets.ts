/** Metadata of an uploaded asset (docs/api.md "Assets"), the same row in both backends; its bytes live in the blob store. */
export interface AssetRow {
  asset_id: string;
  tenant: string;
  content_type: string;
  format: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  /** `<asset_id>.<ext>`: the blob key is `assetKey(file)` (`assets/<file>`), under the data directory or the bucket prefix. */
  file: string;
  created_at: number;
  expires_at: number;
}
