/**
 * Maps MySQL / MariaDB server errors, mysql2's client errors and network / TLS failures to
 * ConnectorErrors with symptom, cause and fix. Server text is bounded and the password scrubbed.
 */
import { ConnectorError, clip, scrub, scrubbedError, TLS_CODES } from '../errors.ts';
import { SessionError } from './client.ts';

export interface MysqlErrorContext {
  host: string;
  port: number;
  database: string;
  username: string;
  sslMode: string;
  secrets: string[];
  query?: string;
  timeoutMs?: number;
  /** The caller's signal fired: a killed statement then is a cancellation. */
  aborted?: boolean;
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
  sqlMessage?: unknown;
  message?: unknown;
  fatal?: unknown;
}

const TIMEOUT_ERRNOS = new Set([3024, 1969]);
const UNKNOWN_NAME_ERRNOS = new Set([1054, 1146, 1305, 1109, 1051]);
const PRIVILEGE_ERRNOS = new Set([1142, 1143, 1227, 1370]);

/** What every family of failures reads about one error. */
interface Failure {
  code: string;
  errno: number;
  /** The driver's or server's text, unclipped: only matched, never shown. */
  full: string;
  /** The text as a message may show it: scrubbed and clipped. */
  message: string;
  where: string;
  ctx: MysqlErrorContext;
  withQuery: { query?: string };
  make(init: ConstructorParameters<typeof ConnectorError>[0]): ConnectorError;
}

function sessionFailure(error: SessionError, { make }: Failure): ConnectorError {
  if (error.reason === 'CLEARTEXT_REFUSED')
    return make({
      kind: 'auth',
      symptom: 'cleartext password authentication refused',
      cause: `${error.message} The password would cross the network readable by anyone on the path.`,
      fix: 'Use ssl_mode verify-full (or verify-ca) so the channel is verified, or have the user authenticate with mysql_native_password.',
    });
  return make({
    kind: 'engine',
    symptom: error.reason === 'PROTOCOL' ? 'Protocol error' : 'Result too large',
    cause: error.message,
    fix:
      error.reason === 'BYTE_BUDGET'
        ? 'Ask for fewer rows or columns (aggregate, filter or add a limit).'
        : error.reason === 'TOO_MANY_ROWS'
          ? 'Check that the host and port are those of a MySQL or MariaDB server; a database with more than a million columns cannot be read at once.'
          : 'Check that the host and port are those of a MySQL or MariaDB server.',
  });
}

function tlsFailure({ code, message, where, ctx, make }: Failure): ConnectorError | null {
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT')
    return make({
      kind: 'tls',
      symptom: 'server does not support SSL, but SSL was required',
      cause: `The server at ${where} does not accept TLS connections, and ssl_mode is ${ctx.sslMode}.`,
      fix: 'Enable TLS on the server (ssl_cert and ssl_key), or, for a local development server only, set ssl_mode to disable.',
    });
  if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS'))
    return make({
      kind: 'tls',
      symptom: 'TLS verify failed',
      cause:
        code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? `The server certificate does not name ${ctx.host} (${message}).`
          : `The server certificate could not be verified (${message}): it is self-signed, signed by a private CA, or expired.`,
      fix:
        code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? 'Connect with the host name the certificate was issued for, or use ssl_mode verify-ca.'
          : 'Paste the CA certificate (PEM) of the server in the connection, or, in development only, set ssl_mode to require.',
    });
  return null;
}

/** The login refused: credentials, or the database (unknown, or not allowed to the user). */
function loginFailure({ code, errno, message, where, ctx, make }: Failure): ConnectorError | null {
  if (errno === 1045 || code === 'ER_ACCESS_DENIED_ERROR' || code === 'AUTH_SWITCH_PLUGIN_ERROR')
    return make({
      kind: 'auth',
      symptom: `Access denied for user '${ctx.username}'`,
      cause: `The server at ${where} refused the username or password (${message}).`,
      fix: "Check the username and password, and that the user may connect from the service's address (the host part of 'user'@'host').",
    });
  if (errno === 1044 || errno === 1049)
    return make({
      kind: errno === 1049 ? 'unreachable' : 'privileges',
      symptom:
        errno === 1049 ? `Unknown database '${ctx.database}'` : `Access denied to database '${ctx.database}'`,
      cause:
        errno === 1049
          ? `The server has no database "${ctx.database}".`
          : `The user "${ctx.username}" may not use database "${ctx.database}".`,
      fix:
        errno === 1049
          ? 'Correct the database name (names are case-sensitive on most servers).'
          : `Grant read access: GRANT SELECT, SHOW VIEW ON \`${ctx.database}\`.* TO '${ctx.username}'@'%';`,
    });
  return null;
}

/** Any other error the server reported by number. */
function serverFailure({ code, errno, message, ctx, withQuery, make }: Failure): ConnectorError | null {
  if (PRIVILEGE_ERRNOS.has(errno))
    return make({
      kind: 'privileges',
      symptom: message,
      cause: `The user "${ctx.username}" lacks a privilege the query needs.`,
      fix: `Grant read access: GRANT SELECT, SHOW VIEW ON \`${ctx.database}\`.* TO '${ctx.username}'@'%';`,
      ...withQuery,
    });
  if (TIMEOUT_ERRNOS.has(errno) || (errno === 1317 && !ctx.aborted))
    return make({
      kind: 'timeout',
      symptom: 'Query timed out',
      cause: `The query ran longer than ${ctx.timeoutMs ?? 'the allowed'} ms and the server stopped it.`,
      fix: 'Narrow the question (a shorter time range, fewer groups), or ask the operator to raise the timeout.',
      ...withQuery,
    });
  if (errno === 1317)
    return make({
      kind: 'cancelled',
      symptom: 'Query cancelled',
      cause: 'The query was cancelled before it finished.',
      fix: 'Ask again when you need the answer.',
      ...withQuery,
    });
  if (errno === 1064 || errno === 1149 || errno === 1060 || errno === 1055 || errno === 1140)
    return make({
      kind: 'query_syntax',
      symptom: 'SQL syntax error',
      cause: message,
      fix:
        errno === 1060
          ? 'Give each selected column a distinct name (AS ...).'
          : errno === 1055 || errno === 1140
            ? 'Group by every selected column that is not aggregated (ONLY_FULL_GROUP_BY is on).'
            : 'Correct the query: a single SELECT in MySQL syntax.',
      ...withQuery,
    });
  if (UNKNOWN_NAME_ERRNOS.has(errno))
    return make({
      kind: 'unknown_column',
      symptom: message,
      cause: 'The query names a table, column or function that does not exist in the database.',
      fix: 'Refresh the schema of the connection, then ask again.',
      ...withQuery,
    });
  if (errno === 1792 || errno === 1290)
    return make({
      kind: 'query_rejected',
      symptom: message,
      cause: 'The query tried to change data; queries run in a read-only transaction.',
      fix: 'Ask a question that reads data.',
      ...withQuery,
    });
  if (errno === 1040 || errno === 1203 || errno === 1226)
    return make({
      kind: 'unreachable',
      symptom: message,
      cause:
        'The server refused the connection: it has too many connections, or the user has used up a resource limit.',
      fix: 'Retry in a moment, or raise max_connections / the user limits.',
    });
  if (errno > 0)
    return make({
      kind: 'engine',
      symptom: message,
      cause: `The server reported error ${errno}${code ? ` (${code})` : ''}.`,
      fix: 'Report the question and the generated query to the operator.',
      ...withQuery,
    });
  return null;
}

function networkFailure({ code, full, where, ctx, make }: Failure): ConnectorError | null {
  if (code === 'ETIMEDOUT' || code === 'CONNECT_TIMEOUT')
    return make({
      kind: 'unreachable',
      symptom: `connection to ${where} timed out`,
      cause: 'The server did not answer in time: a firewall drops the traffic, or the host or port is wrong.',
      fix: "Check the host and port, and allow the service's address in the firewall of the database.",
    });
  if (['ENOTFOUND', 'EAI_AGAIN'].includes(code))
    return make({
      kind: 'unreachable',
      symptom: `could not resolve host name "${ctx.host}"`,
      cause: 'The host name does not resolve in DNS.',
      fix: 'Check the host name for typos.',
    });
  if (
    [
      'ECONNREFUSED',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ECONNRESET',
      'EPIPE',
      'PROTOCOL_CONNECTION_LOST',
    ].includes(code) ||
    /closed the connection|Connection lost/i.test(full)
  )
    return make({
      kind: 'unreachable',
      symptom: `could not connect to ${where} (${code || 'connection closed'})`,
      cause: 'Nothing accepted the connection at that address, or the server closed it.',
      fix: 'Check that MySQL / MariaDB is running and listens on that host and port (bind-address, firewall).',
    });
  return null;
}

export function mapMysqlError(error: unknown, ctx: MysqlErrorContext): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as DriverError;
  const full =
    typeof e.sqlMessage === 'string' ? e.sqlMessage : error instanceof Error ? error.message : String(error);
  const failure: Failure = {
    code: typeof e.code === 'string' ? e.code : '',
    errno: typeof e.errno === 'number' ? e.errno : 0,
    full,
    message: clip(scrub(full, ctx.secrets)),
    where: `${ctx.host}:${ctx.port}`,
    ctx,
    withQuery: ctx.query ? { query: ctx.query } : {},
    make: (init) => scrubbedError(init, ctx.secrets),
  };

  if (error instanceof SessionError) return sessionFailure(error, failure);
  return (
    tlsFailure(failure) ??
    loginFailure(failure) ??
    serverFailure(failure) ??
    networkFailure(failure) ??
    failure.make({
      kind: 'engine',
      symptom: failure.message,
      cause: 'The connection to the server failed unexpectedly.',
      fix: 'Check that the host and port are those of a MySQL or MariaDB server; retry, and if it persists report the message to the operator.',
    })
  );
}
