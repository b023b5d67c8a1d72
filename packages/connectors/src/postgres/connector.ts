import { abortedError, DEADLINE_GRACE_MS, operation, type Operation } from '../bounded.ts';
import { TestReport, tlsCheck } from '../checks.ts';
import { ConnectorError } from '../errors.ts';
import { assertHostAllowed } from '../network.ts';
import {
  DEFAULT_ROW_CAP,
  type ConnectionTarget,
  type Connector,
  type ConnectorContext,
  type EmbeddedDatabase,
  type ExecuteOptions,
  type ExecuteResult,
  type Introspection,
  type QueryWarning,
  type TestResult,
  type ValidatedQuery,
} from '../types.ts';
import { openClient, type SocketState, type Sql } from './client.ts';
import { compileSql } from '../compile/sql.ts';
import {
  descriptor,
  EMBEDDED_AUTH_MODE,
  parsePgConfig,
  pgWarnings,
  readConfig,
  type PgConfig,
} from './config.ts';
import { introspectCatalog, type MetaQuery } from './introspect.ts';
import { mapPgError, sqlState, type ErrorContext } from './pg-errors.ts';
import { jsonSafe, textArrayLiteral } from './results.ts';
import { runReadOnly, type Engine } from './session.ts';
import { validateSql } from './validator.ts';

function isEmbedded(target: ConnectionTarget): boolean {
  return target.authMode === EMBEDDED_AUTH_MODE;
}

function demoDatabase(ctx: ConnectorContext): EmbeddedDatabase {
  if (!ctx.demoDatabase) {
    throw new ConnectorError({
      kind: 'unreachable',
      symptom: 'Demo database not available',
      cause: 'This connection uses the embedded demo database, which this server process did not open.',
      fix: 'Restart the service with the demo database enabled, or create a connection to your own PostgreSQL.',
    });
  }
  return ctx.demoDatabase;
}

function errorContext(
  target: ConnectionTarget,
  config: PgConfig,
  extra: Partial<ErrorContext> = {},
): ErrorContext {
  return {
    host: isEmbedded(target) ? 'embedded' : config.host,
    port: config.port,
    database: config.database,
    username: config.username,
    sslMode: config.ssl_mode,
    secrets: Object.values(target.secrets ?? {}).filter((s) => typeof s === 'string' && s !== ''),
    ...extra,
  };
}

/** An open client for one operation, closed by `close()`. */
interface Handle {
  engine: Engine;
  meta: MetaQuery;
  state: SocketState;
  close(): Promise<void>;
}

/** Once the operation's signal fired, its outcome is the cancellation or the timeout, whatever failed on the way. */
function failure(
  error: unknown,
  op: Operation,
  target: ConnectionTarget,
  config: PgConfig,
  extra: Partial<ErrorContext>,
): ConnectorError {
  if (op.signal.aborted && sqlState(error) === undefined) return abortedError(op.signal, op.budgetMs);
  return mapPgError(error, errorContext(target, config, { ...extra, aborted: op.signal.aborted }));
}

async function open(
  target: ConnectionTarget,
  config: PgConfig,
  ctx: ConnectorContext,
  op: Operation,
  maxRowsPerResult?: number,
): Promise<Handle> {
  const state: SocketState = { serverRefusedTls: false };
  if (isEmbedded(target)) {
    const db = demoDatabase(ctx);
    return {
      engine: { kind: 'embedded', db },
      meta: async (text, params) => (await db.query<Record<string, unknown>>(text, params)).rows,
      state,
      close: async () => undefined,
    };
  }
  if (op.signal.aborted) throw abortedError(op.signal, op.budgetMs);
  await assertHostAllowed(config.host, ctx.allowPrivateNetworks);
  const client = openClient(config, target.secrets.password ?? '', {
    allowPrivateNetworks: ctx.allowPrivateNetworks,
    allowInsecureTransport: ctx.allowInsecureTransport,
    connectTimeoutMs: Math.min(ctx.requestTimeoutMs, 15_000),
    signal: op.signal,
    budgetMs: op.budgetMs,
    state,
    ...(maxRowsPerResult ? { limits: { maxRowsPerResult } } : {}),
  });
  const sql: Sql = client.sql;
  return {
    engine: { kind: 'postgres', sql, client },
    meta: async (text, params) =>
      (await sql.unsafe(text, params as never[])) as unknown as Record<string, unknown>[],
    state,
    close: () => client.close(),
  };
}

const PRIVILEGES = `
SELECT s.name,
       n.oid IS NOT NULL AS exists,
       CASE WHEN n.oid IS NULL THEN false ELSE has_schema_privilege(n.oid, 'USAGE') END AS usage,
       (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))::int4 AS tables,
       (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND has_table_privilege(c.oid, 'SELECT'))::int4 AS readable,
       (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p')
          AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE'))::int4 AS writable
FROM unnest($1::text[]) AS s(name) LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = s.name`;

const ABOUT = `SELECT current_setting('server_version') AS version, version() AS full_version,
  (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) AS superuser`;

const CHECK_NAMES: Record<string, string> = {
  reachability: 'Server reachable',
  tls: 'TLS',
  credentials: 'Credentials accepted',
  database: 'Database exists',
  privileges: 'Read privileges on the scoped schemas',
  scope: 'Tables in scope',
  least_privilege: 'Least-privilege role',
};

function failedCheckOf(error: unknown, mapped: ConnectorError): string {
  const state = sqlState(error);
  if (state === '3D000') return 'database';
  if (mapped.kind === 'tls') return 'tls';
  if (mapped.kind === 'auth') return 'credentials';
  if (mapped.kind === 'privileges') return 'privileges';
  return 'reachability';
}

/** The checks up to the database passed (the login and ABOUT succeeded). */
function reportConnected(report: TestReport, config: PgConfig, embedded: boolean): void {
  if (embedded) {
    report.set('reachability', 'passed', 'The embedded demo database is open in this process.');
    report.set(
      'tls',
      'skipped',
      'Not applicable: the demo database runs inside the service, no network is involved.',
    );
    report.set('credentials', 'skipped', 'Not applicable: the demo database needs no credential.');
    report.set('database', 'passed', 'The demo database is ready.');
  } else {
    report.set('reachability', 'passed', `Connected to ${config.host}:${config.port}.`);
    report.set('tls', ...tlsCheck(config.ssl_mode));
    report.set('credentials', 'passed', `Signed in as ${config.username}.`);
    report.set('database', 'passed', `Database "${config.database}" exists.`);
  }
}

/** What the PRIVILEGES query says of the scoped schemas, summed over them. */
interface ScopeAccess {
  missing: string[];
  noUsage: string[];
  tables: number;
  readable: number;
  writable: number;
}

function scopeAccess(rows: Record<string, unknown>[]): ScopeAccess {
  const usable = rows.filter((r) => r.usage === true);
  return {
    missing: rows.filter((r) => r.exists !== true).map((r) => String(r.name)),
    noUsage: rows.filter((r) => r.exists === true && r.usage !== true).map((r) => String(r.name)),
    tables: rows.reduce((n, r) => n + Number(r.tables ?? 0), 0),
    readable: usable.reduce((n, r) => n + Number(r.readable ?? 0), 0),
    writable: usable.reduce((n, r) => n + Number(r.writable ?? 0), 0),
  };
}

/** The privileges and scope checks; the error that ends the test, or null when both pass (or warn). */
function reportScope(report: TestReport, config: PgConfig, access: ScopeAccess): ConnectorError | null {
  const { missing, noUsage, tables, readable } = access;
  if (missing.length === config.schemas.length) {
    report.set('privileges', 'skipped', 'No scoped schema exists.');
    const error = new ConnectorError({
      kind: 'privileges',
      symptom: 'Empty schema after introspection',
      cause: `None of the scoped schemas (${config.schemas.join(', ')}) exists in database "${config.database}".`,
      fix: 'Correct the "schemas" list (names are case-sensitive), e.g. public.',
    });
    report.set('scope', 'failed', error.cause_);
    return error;
  }
  if (noUsage.length + missing.length === config.schemas.length || (tables > 0 && readable === 0)) {
    const error = new ConnectorError({
      kind: 'privileges',
      symptom:
        noUsage.length > 0
          ? `permission denied for schema ${noUsage[0]}`
          : 'permission denied for every table in scope',
      cause: `The role "${config.username}" cannot read the scoped schemas: ${noUsage.length > 0 ? `no USAGE on ${noUsage.join(', ')}` : 'no SELECT on any table'}.`,
      fix: `Grant read access: GRANT USAGE ON SCHEMA <schema> TO ${config.username}; GRANT SELECT ON ALL TABLES IN SCHEMA <schema> TO ${config.username};`,
    });
    report.set('privileges', 'failed', error.cause_);
    return error;
  }
  const partial = [
    ...missing.map((s) => `schema ${s} does not exist`),
    ...noUsage.map((s) => `no USAGE on schema ${s}`),
  ];
  report.set(
    'privileges',
    partial.length > 0 || readable < tables ? 'warning' : 'passed',
    partial.length > 0 || readable < tables
      ? `Readable: ${readable} of ${tables} tables and views${partial.length ? `; ${partial.join('; ')}` : ''}.`
      : `SELECT on all ${tables} tables and views in scope.`,
  );
  if (tables === 0) {
    const error = new ConnectorError({
      kind: 'privileges',
      symptom: 'Empty schema after introspection',
      cause: `The scoped schemas (${config.schemas.join(', ')}) hold no tables or views.`,
      fix: 'Add the schemas that hold your tables to the "schemas" list.',
    });
    report.set('scope', 'failed', error.cause_);
    return error;
  }
  report.set(
    'scope',
    'passed',
    `${tables} tables and views in ${config.schemas.length - missing.length} schema(s).`,
  );
  return null;
}

function reportLeastPrivilege(
  report: TestReport,
  config: PgConfig,
  embedded: boolean,
  superuser: boolean,
  writable: number,
): void {
  if (embedded) report.set('least_privilege', 'passed', 'Queries run read-only inside the service.');
  else if (superuser)
    report.set(
      'least_privilege',
      'warning',
      `The role "${config.username}" is a superuser. Create a read-only role for this service (see the documentation).`,
    );
  else if (writable > 0)
    report.set(
      'least_privilege',
      'warning',
      `The role "${config.username}" can write to ${writable} table(s) in scope. Queries run read-only anyway, but a read-only role is safer.`,
    );
  else report.set('least_privilege', 'passed', 'The role can read but not write the tables in scope.');
}

async function runTest(target: ConnectionTarget, ctx: ConnectorContext): Promise<TestResult> {
  const config = readConfig(target);
  const embedded = isEmbedded(target);
  const report = new TestReport(CHECK_NAMES);
  const order = report.order;

  const op = operation(ctx, ctx.requestTimeoutMs + DEADLINE_GRACE_MS);
  let handle: Handle | undefined;
  try {
    try {
      handle = await open(target, config, ctx, op);
    } catch (error) {
      const mapped = failure(error, op, target, config, {});
      report.set('reachability', 'failed', mapped.cause_);
      return report.result(mapped, null);
    }
    let about: Record<string, unknown>;
    try {
      about = (await handle.meta(ABOUT, []))[0] ?? {};
    } catch (error) {
      const mapped = failure(error, op, target, config, { state: handle.state });
      const failed = failedCheckOf(error, mapped);
      for (const id of order.slice(0, order.indexOf(failed))) {
        if (id === 'tls' && config.ssl_mode === 'disable')
          report.set(id, 'warning', 'TLS is off (ssl_mode=disable).');
        else report.set(id, 'passed', 'OK.');
      }
      report.set(failed, 'failed', mapped.cause_);
      return report.result(mapped, null);
    }
    const server = {
      version: typeof about.version === 'string' ? about.version : null,
      flavor: embedded ? 'PGlite (embedded demo)' : 'PostgreSQL',
    };
    reportConnected(report, config, embedded);

    const access = scopeAccess(await handle.meta(PRIVILEGES, [textArrayLiteral(config.schemas)]));
    const scopeFailure = reportScope(report, config, access);
    if (scopeFailure) return report.result(scopeFailure, server);
    reportLeastPrivilege(report, config, embedded, about.superuser === true, access.writable);
    return report.result(null, server);
  } catch (error) {
    const mapped = failure(error, op, target, config, { state: handle?.state });
    report.set('privileges', 'failed', mapped.cause_);
    return report.result(mapped, null);
  } finally {
    await handle?.close().catch(() => undefined);
    op.done();
  }
}

async function runIntrospect(target: ConnectionTarget, ctx: ConnectorContext): Promise<Introspection> {
  const config = readConfig(target);
  const op = operation(ctx, ctx.requestTimeoutMs + DEADLINE_GRACE_MS);
  let handle: Handle | undefined;
  try {
    handle = await open(target, config, ctx, op);
    const version = (await handle.meta("SELECT current_setting('server_version') AS version", []))[0]
      ?.version;
    return await introspectCatalog(handle.meta, config.schemas, typeof version === 'string' ? version : null);
  } catch (error) {
    throw failure(error, op, target, config, { state: handle?.state });
  } finally {
    await handle?.close().catch(() => undefined);
    op.done();
  }
}

async function validate(target: ConnectionTarget, text: string, rowCap: number): Promise<ValidatedQuery> {
  const config = readConfig(target);
  const cap = Math.max(1, Math.floor(rowCap || DEFAULT_ROW_CAP));
  const result = await validateSql(text, { schemas: config.schemas }, cap);
  const warnings: QueryWarning[] = [];
  if (typeof result.ownLimit === 'number' && result.ownLimit > cap) {
    warnings.push({
      code: 'row_cap',
      message: `The query asks for ${result.ownLimit} rows; at most ${cap} are returned (the row cap).`,
    });
  }
  return { text: result.text, warnings };
}

async function runExecute(
  target: ConnectionTarget,
  text: string,
  ctx: ConnectorContext,
  options: ExecuteOptions,
): Promise<ExecuteResult> {
  const started = performance.now();
  const config = readConfig(target);
  const cap = Math.max(1, Math.floor(options.rowCap || DEFAULT_ROW_CAP));
  const timeoutMs = Math.max(1, Math.floor(options.timeoutMs || ctx.requestTimeoutMs));
  // Validate again here (defence in depth), fetching one row more than the cap to detect truncation.
  const validated = await validateSql(text, { schemas: config.schemas }, cap + 1);
  const warnings: QueryWarning[] = [];
  if (typeof validated.ownLimit === 'number' && validated.ownLimit > cap) {
    warnings.push({
      code: 'row_cap',
      message: `The query asks for ${validated.ownLimit} rows; at most ${cap} are returned (the row cap).`,
    });
  }
  const op = operation(ctx, timeoutMs + DEADLINE_GRACE_MS);
  let handle: Handle | undefined;
  try {
    // The statement asks for cap + 1 rows: a server sending more is not answering it (the type-name
    // lookup after it returns at most one row per column, hence the floor).
    handle = await open(target, config, ctx, op, Math.max(cap + 1, 2000));
    const result = await runReadOnly(handle.engine, validated.text, {
      timeoutMs,
      schemas: config.schemas,
      signal: op.signal,
    });
    const truncated = result.rows.length > cap;
    const rows = (truncated ? result.rows.slice(0, cap) : result.rows).map((row) =>
      row.map((v, i) => jsonSafe(v, result.fields[i]?.oid ?? 0)),
    );
    if (truncated)
      warnings.push({
        code: 'row_cap',
        message: `Only the first ${cap} rows are shown; the result has more.`,
      });
    return {
      columns: result.fields.map((f) => ({
        name: f.name,
        type: result.typeNames.get(f.oid) ?? `oid ${f.oid}`,
      })),
      rows,
      truncated,
      partial: false,
      warnings,
      took_ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw failure(error, op, target, config, { state: handle?.state, query: validated.text, timeoutMs });
  } finally {
    await handle?.close().catch(() => undefined);
    op.done();
  }
}

function describeTarget(target: ConnectionTarget): string {
  if (isEmbedded(target)) return 'Demo shop (embedded PostgreSQL)';
  const { host, database } = readConfig(target);
  return [host, database].filter(Boolean).join(' / ');
}

export const postgresConnector: Connector = {
  descriptor,
  parseConfig: parsePgConfig,
  warnings: pgWarnings,
  describeTarget,
  compile: compileSql,
  test: runTest,
  introspect: runIntrospect,
  validateQuery: (target, text, options) => validate(target, text, options.rowCap),
  execute: runExecute,
};
