/**
 * The read-only execution path shared by PostgreSQL (postgres.js) and the embedded demo (PGlite):
 *
 *   BEGIN TRANSACTION READ ONLY
 *   SELECT set_config('statement_timeout', $1, true), set_config('search_path', $2, true)
 *   <the statement, alone, through the extended protocol>
 *   ROLLBACK   -- always, whatever happened
 *
 * The settings are made with a SELECT so the transaction has taken its snapshot before the user's
 * statement runs: `SET transaction_read_only = off` is then refused by the server (25001). The
 * extended protocol (Parse/Bind/Execute) accepts one statement only, so stacked statements fail at
 * the server too. `runReadOnly` does not validate: the connector validates first; tests call this
 * directly to prove the database refuses what the validator would have caught.
 */
import type { EmbeddedDatabase } from '../types.ts';
import { ConnectorError } from '../errors.ts';
import type { RawResult, Sql } from './client.ts';
import { builtinTypeName } from './results.ts';

export type Engine =
  | { kind: 'postgres'; sql: Sql; /** Re-sends a CancelRequest for a backend (see client.ts). */ resendCancel?: (pid: number, secret: number) => Promise<void> }
  | { kind: 'embedded'; db: EmbeddedDatabase };

/** How often a cancel is repeated while the statement has not stopped. */
const CANCEL_RETRY_MS = 500;

export interface ReadOnlyOptions {
  timeoutMs: number;
  /** Scoped schemas: the search_path for unqualified names (pg_catalog after them, pg_temp last). */
  schemas: readonly string[];
  signal?: AbortSignal;
}

export interface ReadOnlyResult extends RawResult {
  /** Type names by OID for every column (built-ins from a table, others from pg_type). */
  typeNames: Map<number, string>;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function searchPath(schemas: readonly string[]): string {
  return [...schemas.map(quoteIdent), 'pg_catalog', 'pg_temp'].join(', ');
}

const SETTINGS = "SELECT set_config('statement_timeout', $1, true), set_config('search_path', $2, true)";
const TYPE_NAMES = 'SELECT t.oid::int4 AS oid, format_type(t.oid, NULL) AS name FROM pg_catalog.pg_type t WHERE t.oid = ANY($1::int4[])';

function cancelledError(): ConnectorError {
  return new ConnectorError({ kind: 'cancelled', symptom: 'Query cancelled', cause: 'The run was cancelled before the query finished.', fix: 'Run the question again if it is still needed.' });
}

export async function runReadOnly(engine: Engine, text: string, options: ReadOnlyOptions): Promise<ReadOnlyResult> {
  if (options.signal?.aborted) throw cancelledError();
  const timeout = String(Math.max(1, Math.floor(options.timeoutMs)));
  const path = searchPath(options.schemas);
  return engine.kind === 'postgres' ? runOnPostgres(engine.sql, text, timeout, path, options.signal, engine.resendCancel) : runEmbedded(engine.db, text, timeout, path, options.signal);
}

async function resolveTypeNames(fields: { oid: number }[], lookup: (oids: number[]) => Promise<Array<{ oid: number; name: string }>>): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  const unknown: number[] = [];
  for (const f of fields) {
    const name = builtinTypeName(f.oid);
    if (name) names.set(f.oid, name);
    else if (!unknown.includes(f.oid)) unknown.push(f.oid);
  }
  if (unknown.length > 0) {
    for (const row of await lookup(unknown)) names.set(Number(row.oid), String(row.name));
  }
  for (const f of fields) if (!names.has(f.oid)) names.set(f.oid, `oid ${f.oid}`);
  return names;
}

async function runOnPostgres(
  sql: Sql,
  text: string,
  timeout: string,
  path: string,
  signal: AbortSignal | undefined,
  resendCancel: ((pid: number, secret: number) => Promise<void>) | undefined,
): Promise<ReadOnlyResult> {
  const conn = await sql.reserve();
  let began = false;
  try {
    await conn.unsafe('BEGIN TRANSACTION READ ONLY');
    began = true;
    await conn.unsafe(SETTINGS, [timeout, path]);
    if (signal?.aborted) throw cancelledError();
    // `simple: false` forces the extended protocol (postgres.js would use the simple one for a query without parameters).
    const query = conn.unsafe(text, [], { prepare: false, simple: false } as { prepare: boolean }).values();
    let retry: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      Promise.resolve(query.cancel()).catch(() => undefined);
      const backend = (query as unknown as { state?: { pid?: number; secret?: number } }).state;
      if (resendCancel && backend?.pid !== undefined && backend.secret !== undefined) {
        const { pid, secret } = backend as { pid: number; secret: number };
        retry = setInterval(() => void resendCancel(pid, secret), CANCEL_RETRY_MS);
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let result: Awaited<typeof query>;
    try {
      result = await query;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (retry) clearInterval(retry);
    }
    const columns = (result.columns ?? []) as unknown as Array<{ name: string; type: number }>;
    const fields = columns.map((c) => ({ name: c.name, oid: c.type }));
    const typeNames = await resolveTypeNames(fields, async (oids) => (await conn.unsafe(TYPE_NAMES, [oids])) as unknown as Array<{ oid: number; name: string }>);
    return { fields, rows: [...result] as unknown[][], command: result.command ?? null, typeNames };
  } finally {
    if (began) await conn.unsafe('ROLLBACK').catch(() => undefined);
    conn.release();
  }
}

type EmbeddedTx = Parameters<Parameters<EmbeddedDatabase['transaction']>[0]>[0];

async function runEmbedded(db: EmbeddedDatabase, text: string, timeout: string, path: string, signal: AbortSignal | undefined): Promise<ReadOnlyResult> {
  // PGlite runs in this thread: a running statement cannot be interrupted, and statement_timeout
  // is not enforced by its single-threaded build. The demo data set is small; the row cap, the
  // caller's timeout and the check for cancellation before and after bound the work.
  const rollback = Symbol('rollback');
  let out: ReadOnlyResult | undefined;
  try {
    await db.transaction(async (tx: EmbeddedTx) => {
      await tx.exec('SET TRANSACTION READ ONLY');
      await tx.query(SETTINGS, [timeout, path]);
      if (signal?.aborted) throw cancelledError();
      const result = await tx.query<unknown[]>(text, [], { rowMode: 'array' });
      if (signal?.aborted) throw cancelledError();
      const fields = result.fields.map((f) => ({ name: f.name, oid: f.dataTypeID }));
      const rows = result.rows;
      const typeNames = await resolveTypeNames(fields, async (oids) => (await tx.query<{ oid: number; name: string }>(TYPE_NAMES, [oids])).rows);
      out = { fields, rows, command: 'SELECT', typeNames };
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  if (!out) throw new Error('embedded query produced no result');
  return out;
}
