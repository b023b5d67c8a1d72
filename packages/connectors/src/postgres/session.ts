/**
 * The read-only execution path shared by PostgreSQL (postgres.js) and the embedded demo (PGlite):
 *
 *   BEGIN TRANSACTION READ ONLY
 *   SELECT set_config('statement_timeout', $1, true), set_config('search_path', $2, true),
 *          set_config('standard_conforming_strings', 'on', true), set_config('backslash_quote', 'safe_encoding', true), ...
 *   <the statement, alone, through the extended protocol>
 *   ROLLBACK   -- always, whatever happened (unless the connection itself is gone)
 *
 * The settings are made with a SELECT so the transaction has taken its snapshot before the user's
 * statement runs: `SET transaction_read_only = off` is then refused by the server (25001). The
 * extended protocol (Parse/Bind/Execute) accepts one statement only, so stacked statements fail at
 * the server too. `runReadOnly` does not validate: the connector validates first; tests call this
 * directly to prove the database refuses what the validator would have caught.
 *
 * Literals mean what the validator saw: libpg-query parses with standard_conforming_strings = on and
 * backslash_quote = safe_encoding in UTF-8. A server (or database, or role) configured otherwise
 * would read `'\'' UNION SELECT ...'` as a string followed by SQL. The settings that change how a
 * literal is lexed are pinned in the same read-only transaction, before the statement, and the values
 * the server reports back are checked: the statement does not run unless they are exactly those.
 */
import type { EmbeddedDatabase } from '../types.ts';
import { ConnectorError } from '../errors.ts';
import type { PgClient, RawResult, Sql } from './client.ts';
import { builtinTypeName, parseArrayLiteral, textArrayLiteral } from './results.ts';

export type Engine =
  | {
      kind: 'postgres';
      sql: Sql;
      /**
       * The guarded client behind `sql` (client.ts): says whether the connection is still usable, and
       * cancels the statement when the operation's signal fires. Without it (tests), nothing cancels.
       */
      client?: PgClient;
    }
  | { kind: 'embedded'; db: EmbeddedDatabase };

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

/** Session settings that change how the server lexes a literal, and the only values the statement runs with. */
export const PINNED_SETTINGS = {
  standard_conforming_strings: 'on',
  backslash_quote: 'safe_encoding',
  client_encoding: 'UTF8',
} as const;

const SETTINGS = `SELECT set_config('statement_timeout', $1, true) AS statement_timeout,
  set_config('search_path', $2, true) AS search_path,
  set_config('standard_conforming_strings', 'on', true) AS standard_conforming_strings,
  set_config('backslash_quote', 'safe_encoding', true) AS backslash_quote,
  set_config('DateStyle', 'ISO, MDY', true) AS datestyle,
  set_config('TimeZone', 'UTC', true) AS timezone,
  set_config('bytea_output', 'hex', true) AS bytea_output,
  pg_catalog.current_setting('client_encoding') AS client_encoding`;
const TYPE_NAMES =
  'SELECT t.oid::int4 AS oid, format_type(t.oid, NULL) AS name FROM pg_catalog.pg_type t WHERE t.oid = ANY($1::int4[])';

/**
 * Refuses to go on unless the server reports the pinned values (a server that ignores set_config, a
 * pooler that rewrites it, or an encoding that is not UTF-8 would let a literal mean something else
 * to the server than to the validator).
 */
export function checkPinnedSettings(row: Record<string, unknown> | undefined): void {
  const wrong = Object.entries(PINNED_SETTINGS).filter(
    ([name, value]) => String(row?.[name] ?? '').toUpperCase() !== value.toUpperCase(),
  );
  if (wrong.length === 0) return;
  const seen = wrong
    .map(
      ([name, value]) =>
        `${name} = ${JSON.stringify(String(row?.[name] ?? '(none)').slice(0, 40))} (needed: ${value})`,
    )
    .join(', ');
  throw new ConnectorError({
    kind: 'engine',
    symptom: 'Session settings could not be pinned',
    cause: `The server did not apply the settings that make string literals unambiguous: ${seen}. The query was not run, because the server could read its literals differently from the validator.`,
    fix: 'Connect directly to PostgreSQL (not through a proxy that rewrites settings), with a UTF-8 database; if the server is PostgreSQL, report this to the operator.',
  });
}

function cancelledError(): ConnectorError {
  return new ConnectorError({
    kind: 'cancelled',
    symptom: 'Query cancelled',
    cause: 'The run was cancelled before the query finished.',
    fix: 'Run the question again if it is still needed.',
  });
}

export async function runReadOnly(
  engine: Engine,
  text: string,
  options: ReadOnlyOptions,
): Promise<ReadOnlyResult> {
  if (options.signal?.aborted) throw cancelledError();
  const timeout = String(Math.max(1, Math.floor(options.timeoutMs)));
  const path = searchPath(options.schemas);
  return engine.kind === 'postgres'
    ? runOnPostgres(engine.sql, engine.client, text, timeout, path, options.signal)
    : runEmbedded(engine.db, text, timeout, path, options.signal);
}

async function resolveTypeNames(
  fields: { oid: number }[],
  lookup: (oids: number[]) => Promise<Array<{ oid: number; name: string }>>,
): Promise<Map<number, string>> {
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

/** Arrays of types that are not built in (enums, domains, ...) arrive as text: parsed here, elements as text. */
function parseOtherArrays(
  rows: unknown[][],
  fields: { oid: number }[],
  typeNames: Map<number, string>,
): void {
  fields.forEach((f, i) => {
    if (builtinTypeName(f.oid) || !typeNames.get(f.oid)?.endsWith('[]')) return;
    for (const row of rows) {
      const value = row[i];
      if (typeof value === 'string' && (value.startsWith('{') || value.startsWith('['))) {
        try {
          row[i] = parseArrayLiteral(value);
        } catch {
          // left as the server's text
        }
      }
    }
  });
}

async function runOnPostgres(
  sql: Sql,
  client: PgClient | undefined,
  text: string,
  timeout: string,
  path: string,
  signal: AbortSignal | undefined,
): Promise<ReadOnlyResult> {
  // One connection (max: 1), queries one after the other: each runs on the session that ran BEGIN,
  // because the client never opens a second session connection (client.ts).
  let began = false;
  try {
    await sql.unsafe('BEGIN TRANSACTION READ ONLY');
    began = true;
    const settings = (await sql.unsafe(SETTINGS, [timeout, path])) as unknown as Record<string, unknown>[];
    checkPinnedSettings(settings[0]);
    if (signal?.aborted) throw cancelledError();
    // `simple: false` forces the extended protocol (postgres.js would use the simple one for a query
    // without parameters). Cancellation is the client's: one CancelRequest, then the socket closes.
    const result = await sql
      .unsafe(text, [], { prepare: false, simple: false } as { prepare: boolean })
      .values();
    const columns = (result.columns ?? []) as unknown as Array<{ name: string; type: number }>;
    const fields = columns.map((c) => ({ name: c.name, oid: c.type }));
    const typeNames = await resolveTypeNames(
      fields,
      async (oids) =>
        (await sql.unsafe(TYPE_NAMES, [textArrayLiteral(oids)])) as unknown as Array<{
          oid: number;
          name: string;
        }>,
    );
    const rows = [...result] as unknown[][];
    parseOtherArrays(rows, fields, typeNames);
    return { fields, rows, command: result.command ?? null, typeNames };
  } finally {
    // Never on a connection that is gone: postgres.js would queue it forever (or write to a closed socket).
    if (began && (client ? client.alive : true)) await sql.unsafe('ROLLBACK').catch(() => undefined);
  }
}

type EmbeddedTx = Parameters<Parameters<EmbeddedDatabase['transaction']>[0]>[0];

async function runEmbedded(
  db: EmbeddedDatabase,
  text: string,
  timeout: string,
  path: string,
  signal: AbortSignal | undefined,
): Promise<ReadOnlyResult> {
  // PGlite runs in this thread: a running statement cannot be interrupted, and statement_timeout
  // is not enforced by its single-threaded build. The demo data set is small; the row cap, the
  // caller's timeout and the check for cancellation before and after bound the work.
  const rollback = Symbol('rollback');
  let out: ReadOnlyResult | undefined;
  try {
    await db.transaction(async (tx: EmbeddedTx) => {
      await tx.exec('SET TRANSACTION READ ONLY');
      checkPinnedSettings((await tx.query<Record<string, unknown>>(SETTINGS, [timeout, path])).rows[0]);
      if (signal?.aborted) throw cancelledError();
      const result = await tx.query<unknown[]>(text, [], { rowMode: 'array' });
      if (signal?.aborted) throw cancelledError();
      const fields = result.fields.map((f) => ({ name: f.name, oid: f.dataTypeID }));
      const rows = result.rows;
      const typeNames = await resolveTypeNames(
        fields,
        async (oids) =>
          (await tx.query<{ oid: number; name: string }>(TYPE_NAMES, [textArrayLiteral(oids)])).rows,
      );
      out = { fields, rows, command: 'SELECT', typeNames };
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  if (!out) throw new Error('embedded query produced no result');
  return out;
}
