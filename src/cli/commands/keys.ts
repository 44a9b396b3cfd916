import { join } from 'node:path';
import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../records/api-keys.js';
import type { RecordStore, StudioSession } from '../../records/types.js';
import { contextFor } from '../command-context.js';

/** Which record store a command acts on, in words (no password): said by the session commands. */
async function storeLabel(command: Command): Promise<string> {
  const { dataDir, databaseUrl } = contextFor(command).backendOptions();
  const { planDatabase } = await import('../../records/backends.js');
  const { redactUrl } = await import('../../records/postgres/connection.js');
  const database = planDatabase({ databaseUrl });
  return database.kind === 'sqlite' ? `SQLite ${join(dataDir, 'immoreel.db')}` : `PostgreSQL ${redactUrl(database.url)}`;
}

/** Keys live in the records `serve` uses: the data directory's SQLite file, or PostgreSQL with --database-url. */
async function withStore<T>(command: Command, work: (store: RecordStore, where: string) => T | Promise<T>): Promise<T> {
  const ctx = contextFor(command);
  if (ctx.mode === 'remote') {
    throw badRequest(
      'API keys live on the server, in the data directory of `immoreel serve`: run `immoreel keys …` on that machine (without --profile or --base-url). A remote profile can only use its own key (`immoreel auth status`).',
      { reason: 'keys_are_server_side' },
    );
  }
  const store = await ctx.openRecords();
  try {
    return await work(store, ctx.recordsLabel());
  } finally {
    await store.close();
  }
}

function parseQuota(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const quota = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(quota) || quota < 1) {
    throw badRequest(`--monthly-quota must be a whole number of requests (at least 1), not ${JSON.stringify(value)}.`, {
      details: [{ field: 'monthly-quota', message: 'must be a whole number ≥ 1' }],
    });
  }
  return quota;
}

function listRow(record: ApiKeyRecord, used: number): string[] {
  return [
    record.key_id,
    record.tenant,
    record.plan,
    record.scopes.join(','),
    record.masked_key,
    `${used}/${record.monthly_quota}`,
    record.created_at.slice(0, 10),
    record.revoked_at === null ? 'active' : `revoked ${record.revoked_at.slice(0, 10)}`,
  ];
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `keys create`. */
export async function createKey(
  flags: { tenant: string; preview?: boolean; scopes?: string; monthlyQuota?: string },
  command: Command,
): Promise<void> {
  const { output } = contextFor(command);
  const { created, where } = await withStore(command, async (store, where) => ({
    created: await store.keys.create({
      tenant: flags.tenant,
      preview: flags.preview,
      scopes: flags.scopes?.split(','),
      monthlyQuota: parseQuota(flags.monthlyQuota),
    }),
    where,
  }));
  const { record } = created;
  if (output.json) {
    output.data({
      ok: true,
      status: 'success',
      key_id: record.key_id,
      api_key: created.apiKey,
      tenant: record.tenant,
      scopes: record.scopes,
      plan: record.plan,
      monthly_quota: record.monthly_quota,
      webhook_secret: created.webhookSecret,
      created_at: record.created_at,
      store: where,
    });
    return;
  }
  // The key works only against the records it was written to: say which (a forgotten --database-url shows here).
  output.info(`Created in ${where}.`);
  output.text(
    [
      `api_key         ${created.apiKey}`,
      `key_id          ${record.key_id}`,
      `tenant          ${record.tenant}`,
      `plan            ${record.plan}`,
      `scopes          ${record.scopes.join(', ')}`,
      `monthly_quota   ${record.monthly_quota} requests`,
      `webhook_secret  ${created.webhookSecret}`,
    ].join('\n'),
  );
  output.warn('This is the only time the API key is shown: store it now (only its hash is kept).');
}

/** `keys list`. */
export async function listKeys(_flags: unknown, command: Command): Promise<void> {
  const { output } = contextFor(command);
  const listed = await withStore(command, async (store) =>
    Promise.all(
      (await store.keys.list()).map(async (record) => ({ record, quota: await store.usage.state(record.key_id, record.monthly_quota) })),
    ),
  );
  if (output.json) {
    output.data({ ok: true, status: 'success', keys: listed.map(({ record, quota }) => ({ ...record, usage: quota })) });
    return;
  }
  if (listed.length === 0) {
    output.info('No API keys yet: create one with `immoreel keys create --tenant NAME`.');
    return;
  }
  const header = ['KEY ID', 'TENANT', 'PLAN', 'SCOPES', 'KEY', 'USED/QUOTA', 'CREATED', 'STATUS'];
  output.text(table([header, ...listed.map(({ record, quota }) => listRow(record, quota.used))]));
}

/** `keys revoke`. */
export async function revokeKey(keyId: string, _flags: unknown, command: Command): Promise<void> {
  const { output } = contextFor(command);
  const { record, where } = await withStore(command, async (store, where) => ({ record: await store.keys.revoke(keyId), where }));
  if (output.json) output.data({ ok: true, status: 'success', ...record, store: where });
  else output.info(`Revoked ${record.key_id} (tenant ${record.tenant}) in ${where}.`);
}

function sessionRow(session: StudioSession): string[] {
  return [
    session.session_id,
    session.key_id,
    session.tenant,
    session.created_at.slice(0, 16).replace('T', ' '),
    session.last_used_at.slice(0, 16).replace('T', ' '),
    session.expires_at.slice(0, 16).replace('T', ' '),
  ];
}

/** `keys sessions`: the live Studio sessions (docs/studio.md "Sessions"), and which store holds them. */
export async function listSessions(flags: { tenant?: string }, command: Command): Promise<void> {
  const { output } = contextFor(command);
  const all = await withStore(command, (store) => store.sessions.list());
  const sessions = flags.tenant === undefined ? all : all.filter((session) => session.tenant === flags.tenant);
  const store = await storeLabel(command);
  if (output.json) {
    output.data({ ok: true, status: 'success', store, sessions });
    return;
  }
  output.info(`Studio sessions in ${store}:`);
  if (sessions.length === 0) {
    output.info(flags.tenant === undefined ? 'No open Studio sessions.' : `No open Studio sessions for tenant ${flags.tenant}.`);
    return;
  }
  const header = ['SESSION ID', 'KEY ID', 'TENANT', 'SIGNED IN (UTC)', 'LAST USED', 'ENDS'];
  output.text(table([header, ...sessions.map(sessionRow)]));
}

/** `keys revoke-session`. */
export async function revokeSession(sessionId: string, _flags: unknown, command: Command): Promise<void> {
  const { output } = contextFor(command);
  const session = await withStore(command, (store) => store.sessions.revoke(sessionId));
  const store = await storeLabel(command);
  if (output.json) output.data({ ok: true, status: 'success', store, ...session });
  else output.info(`Ended Studio session ${session.session_id} (key ${session.key_id}, tenant ${session.tenant}) in ${store}.`);
}
