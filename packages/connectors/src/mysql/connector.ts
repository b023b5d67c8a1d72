import type { FieldPacket } from 'mysql2';
import { abortedError, DEADLINE_GRACE_MS, operation, type Operation } from '../bounded.ts';
import { compileMysql } from '../compile/sql.ts';
import { TestReport, tlsCheck } from '../checks.ts';
import { ConnectorError } from '../errors.ts';
import { assertHostAllowed } from '../network.ts';
import {
  DEFAULT_ROW_CAP,
  type ConnectionTarget,
  type Connector,
  type ConnectorContext,
  type ExecuteOptions,
  type ExecuteResult,
  type Introspection,
  type QueryWarning,
  type TestResult,
  type ValidatedQuery,
} from '../types.ts';
import { decimalValue } from '../values.ts';
import { openSession, sessionStatements, type MysqlSession } from './client.ts';
import { descriptor, mysqlWarnings, parseMysqlConfig, readConfig, type MysqlConfig } from './config.ts';
import { mapMysqlError, type MysqlErrorContext } from './errors-map.ts';
import { introspectDatabase } from './introspect.ts';
import { validateMysql } from './validator.ts';

function errorContext(
  target: ConnectionTarget,
  config: MysqlConfig,
  extra: Partial<MysqlErrorContext> = {},
): MysqlErrorContext {
  return {
    host: config.host,
    port: config.port,
    database: config.database,
    username: config.username,
    sslMode: config.ssl_mode,
    secrets: Object.values(target.secrets ?? {}).filter((s) => typeof s === 'string' && s !== ''),
    ...extra,
  };
}

/** Once the operation's signal fired, its outcome is the cancellation or the timeout, whatever failed on the way. */
function failure(
  error: unknown,
  op: Operation,
  target: ConnectionTarget,
  config: MysqlConfig,
  extra: Partial<MysqlErrorContext> = {},
): ConnectorError {
  const errno = (error as { errno?: unknown } | null)?.errno;
  if (op.signal.aborted && (typeof errno !== 'number' || errno === 1317))
    return abortedError(op.signal, op.budgetMs);
  return mapMysqlError(error, errorContext(target, config, { ...extra, aborted: op.signal.aborted }));
}

async function open(
  target: ConnectionTarget,
  config: MysqlConfig,
  ctx: ConnectorContext,
  op: Operation,
): Promise<MysqlSession> {
  if (op.signal.aborted) throw abortedError(op.signal, op.budgetMs);
  await assertHostAllowed(config.host, ctx.allowPrivateNetworks);
  return openSession(config, target.secrets.password ?? '', {
    allowPrivateNetworks: ctx.allowPrivateNetworks,
    allowInsecureTransport: ctx.allowInsecureTransport,
    connectTimeoutMs: Math.min(ctx.requestTimeoutMs, 15_000),
    signal: op.signal,
  });
}

const CHECK_NAMES: Record<string, string> = {
  reachability: 'Server reachable',
  tls: 'TLS',
  credentials: 'Credentials accepted',
  database: 'Database exists',
  privileges: 'Read privileges on the database',
  scope: 'Tables in scope',
  least_privilege: 'Least-privilege user',
};

const ABOUT = 'SELECT VERSION() AS version, CURRENT_USER() AS user';
const VISIBLE_TABLES = 'SELECT COUNT(*) AS tables FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?';
/** Privileges beyond reading, granted globally, on the database or on one of its tables, to the account the session runs as. */
const WRITE_PRIVILEGES = `SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?
UNION SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ? AND TABLE_SCHEMA = ?
UNION SELECT PRIVILEGE_TYPE FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = ? AND TABLE_SCHEMA = ?`;
const WRITES = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'DROP',
  'ALTER',
  'CREATE',
  'INDEX',
  'SUPER',
  'FILE',
  'GRANT OPTION',
  'EXECUTE',
  'CREATE ROUTINE',
  'ALTER ROUTINE',
  'EVENT',
  'TRIGGER',
  'CREATE TEMPORARY TABLES',
  'LOCK TABLES',
]);

function failedCheckOf(mapped: ConnectorError, error: unknown): string {
  const errno = (error as { errno?: unknown } | null)?.errno;
  if (errno === 1049) return 'database';
  if (errno === 1044 || mapped.kind === 'privileges') return 'privileges';
  if (mapped.kind === 'tls') return 'tls';
  if (mapped.kind === 'auth') return 'credentials';
  return 'reachability';
}

/** `user@host` as information_schema names a grantee: `'user'@'host'`. */
function grantee(account: string): string {
  const at = account.lastIndexOf('@');
  const [user, host] = at === -1 ? [account, '%'] : [account.slice(0, at), account.slice(at + 1)];
  return `'${user}'@'${host}'`;
}

async function runTest(target: ConnectionTarget, ctx: ConnectorContext): Promise<TestResult> {
  const config = readConfig(target);
  const report = new TestReport(CHECK_NAMES);
  const set = report.set.bind(report);
  const result = report.result.bind(report);
  const setTls = (): void => set('tls', ...tlsCheck(config.ssl_mode));
  const op = operation(ctx, ctx.requestTimeoutMs + DEADLINE_GRACE_MS);
  let session: MysqlSession | undefined;
  try {
    try {
      session = await open(target, config, ctx, op);
    } catch (error) {
      const mapped = failure(error, op, target, config);
      const failed = failedCheckOf(mapped, error);
      for (const id of report.order.slice(0, report.order.indexOf(failed))) {
        if (id === 'tls') setTls();
        else set(id, 'passed', id === 'reachability' ? `Connected to ${config.host}:${config.port}.` : 'OK.');
      }
      set(failed, 'failed', mapped.cause_);
      return result(mapped, null);
    }
    const about = (await session.execute(ABOUT, []))[0] ?? {};
    const version = typeof about.version === 'string' ? about.version : session.serverVersion;
    const server = { version, flavor: session.mariadb ? 'MariaDB' : 'MySQL' };
    set('reachability', 'passed', `Connected to ${config.host}:${config.port}.`);
    setTls();
    set('credentials', 'passed', `Signed in as ${config.username}.`);
    set('database', 'passed', `Database "${config.database}" exists.`);

    const tables = Number((await session.execute(VISIBLE_TABLES, [config.database]))[0]?.tables ?? 0);
    if (tables === 0) {
      const fail = new ConnectorError({
        kind: 'privileges',
        symptom: 'Empty schema after introspection',
        cause: `Database "${config.database}" shows no tables to the user "${config.username}": it holds none, or the user has no privilege on them.`,
        fix: `Grant read access: GRANT SELECT, SHOW VIEW ON \`${config.database}\`.* TO '${config.username}'@'%';`,
      });
      set('privileges', 'failed', fail.cause_);
      return result(fail, server);
    }
    set('privileges', 'passed', `The user can see ${tables} tables and views.`);
    set('scope', 'passed', `${tables} tables and views in database "${config.database}".`);
    const account = grantee(typeof about.user === 'string' ? about.user : config.username);
    const granted = (
      await session.execute(WRITE_PRIVILEGES, [account, account, config.database, account, config.database])
    ).map((r) => String(r.privilege).toUpperCase());
    const writes = granted.filter((p) => WRITES.has(p));
    if (writes.length > 0)
      set(
        'least_privilege',
        'warning',
        `The user "${config.username}" holds ${writes.slice(0, 5).join(', ')}${writes.length > 5 ? ', ...' : ''}. Queries run read-only anyway, but a user with SELECT only is safer.`,
      );
    else set('least_privilege', 'passed', 'The user can read but not write the database.');
    return result(null, server);
  } catch (error) {
    const mapped = failure(error, op, target, config);
    set('privileges', 'failed', mapped.cause_);
    return result(mapped, null);
  } finally {
    await session?.close().catch(() => undefined);
    op.done();
  }
}

async function runIntrospect(target: ConnectionTarget, ctx: ConnectorContext): Promise<Introspection> {
  const config = readConfig(target);
  const op = operation(ctx, ctx.requestTimeoutMs + DEADLINE_GRACE_MS);
  let session: MysqlSession | undefined;
  try {
    session = await open(target, config, ctx, op);
    return await introspectDatabase(session, config.database);
  } catch (error) {
    throw failure(error, op, target, config);
  } finally {
    await session?.close().catch(() => undefined);
    op.done();
  }
}

function capWarnings(ownLimit: number | null, cap: number): QueryWarning[] {
  return ownLimit !== null && ownLimit > cap
    ? [
        {
          code: 'row_cap',
          message: `The query asks for ${ownLimit} rows; at most ${cap} are returned (the row cap).`,
        },
      ]
    : [];
}

async function validate(target: ConnectionTarget, text: string, rowCap: number): Promise<ValidatedQuery> {
  const cap = Math.max(1, Math.floor(rowCap || DEFAULT_ROW_CAP));
  const result = validateMysql(text, readConfig(target).database, cap);
  return { text: result.text, warnings: capWarnings(result.ownLimit, cap) };
}

// mysql2's column type codes (protocol constants) in the vocabulary charts and the planner read.
const COLUMN_TYPES: Record<number, string> = {
  0: 'decimal',
  1: 'smallint',
  2: 'smallint',
  3: 'integer',
  4: 'float',
  5: 'double',
  6: 'null',
  7: 'timestamp',
  8: 'bigint',
  9: 'integer',
  10: 'date',
  11: 'time',
  12: 'datetime',
  13: 'integer',
  14: 'date',
  15: 'varchar',
  16: 'bit',
  245: 'json',
  246: 'decimal',
  247: 'varchar',
  248: 'varchar',
  249: 'text',
  250: 'text',
  251: 'text',
  252: 'text',
  253: 'varchar',
  254: 'varchar',
  255: 'geometry',
};
const BINARY_CHARSET = 63;

function columnType(field: FieldPacket): string {
  const type = COLUMN_TYPES[field.columnType ?? -1] ?? `type ${field.columnType}`;
  const binary = field.characterSet === BINARY_CHARSET && (type === 'varchar' || type === 'text');
  return binary ? 'binary' : type;
}

/** A value as JSON carries it: exact decimals kept as strings when a number would round them. */
function jsonValue(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    if (type === 'decimal' || type === 'bigint') return decimalValue(value);
    if (type === 'datetime') return value.replace(' ', 'T');
    if (type === 'timestamp') return `${value.replace(' ', 'T')}Z`;
    return value;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Buffer.isBuffer(value)) {
    if (type === 'bit')
      return value.length <= 6 ? value.readUIntBE(0, value.length || 1) : `0x${value.toString('hex')}`;
    return `0x${value.toString('hex')}`;
  }
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'object') return JSON.parse(JSON.stringify(value)) as unknown;
  return String(value);
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
  // Validated again here (defence in depth), with one row more than the cap to tell whether there are more.
  const validated = validateMysql(text, config.database, cap, cap + 1);
  const warnings = capWarnings(validated.ownLimit, cap);
  const op = operation(ctx, timeoutMs + DEADLINE_GRACE_MS);
  let session: MysqlSession | undefined;
  try {
    session = await open(target, config, ctx, op);
    for (const statement of sessionStatements(session.mariadb, timeoutMs)) await session.query(statement);
    const result = await session.query(validated.text, cap + 1);
    const truncated = result.rows.length > cap;
    const types = result.fields.map(columnType);
    const rows = (truncated ? result.rows.slice(0, cap) : result.rows).map((row) =>
      row.map((v, i) => jsonValue(v, types[i] ?? '')),
    );
    if (truncated)
      warnings.push({
        code: 'row_cap',
        message: `Only the first ${cap} rows are shown; the result has more.`,
      });
    return {
      columns: result.fields.map((f, i) => ({ name: f.name, type: types[i] ?? 'unknown' })),
      rows,
      truncated,
      partial: false,
      warnings,
      took_ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw failure(error, op, target, config, { query: validated.text, timeoutMs });
  } finally {
    await session?.close().catch(() => undefined);
    op.done();
  }
}

function describeTarget(target: ConnectionTarget): string {
  const { host, database } = readConfig(target);
  return [host, database].filter(Boolean).join(' / ');
}

export const mysqlConnector: Connector = {
  descriptor,
  parseConfig: parseMysqlConfig,
  warnings: mysqlWarnings,
  describeTarget,
  compile: compileMysql,
  test: runTest,
  introspect: runIntrospect,
  validateQuery: (target, text, options) => validate(target, text, options.rowCap),
  execute: runExecute,
};
