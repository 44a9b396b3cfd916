/** Largest page of `jobs list` / `GET /jobs` (docs/jobs.md). Apart from the store so the CLI's help can name it without opening SQLite. */
export const MAX_LIST_LIMIT = 100;
