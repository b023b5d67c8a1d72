/**
 * Maps PostgreSQL, network and TLS failures to ConnectorErrors worded like the spec's symptom table.
 * Messages are built from our own words plus the server's message text; the password is scrubbed
 * from anything that reaches a message, whatever the server or the driver put there.
 */
import { ConnectorError, clip, scrub, scrubbedError, TLS_CODES } from '../errors.ts';
import type { SocketState } from './client.ts';

export { scrub };

export interface ErrorContext {
  host: string;
  port: number;
  database: string;
  username: string;
  sslMode: string;
  /** Strings that must never appear in a message (the password). */
  secrets: string[];
  query?: string;
  state?: SocketState;
  /** The caller aborted the operation (AbortSignal): a 57014 then means cancelled, not timed out. */
  aborted?: boolean;
  timeoutMs?: number;
}

function field(error: unknown, key: string): string | undefined {
  if (error && typeof error === 'object' && key in error) {
    const v = (error as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** True for errors that carry a server SQLSTATE (postgres.js PostgresError, PGlite DatabaseError). */
export function sqlState(error: unknown): string | undefined {
  const code = field(error, 'code');
  return code && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('E') ? code : undefined;
}

/** What every family of failures reads about one error. */
interface Failure {
  code: string;
  /** The server's SQLSTATE, when the error carries one. */
  state: string | undefined;
  /** The text unscrubbed (clipped): only matched, never shown. */
  raw: string;
  /** The text as a message may show it: scrubbed, then clipped. */
  message: string;
  where: string;
  ctx: ErrorContext;
  withQuery: { query?: string };
  make(init: ConstructorParameters<typeof ConnectorError>[0]): ConnectorError;
}

function tlsFailure({ code, raw, message, where, ctx, make }: Failure): ConnectorError | null {
  if (ctx.state?.serverRefusedTls) {
    return make({
      kind: 'tls',
      symptom: 'server does not support SSL, but SSL was required',
      cause: `The server at ${where} does not accept TLS connections, and ssl_mode is ${ctx.sslMode}.`,
      fix: 'Enable ssl on the server (ssl = on with a certificate), or, for a local development server only, set ssl_mode to disable.',
    });
  }
  if (TLS_CODES.has(code) || /certificate|self[- ]signed|TLS|SSL/i.test(raw)) {
    const hostname = code === 'ERR_TLS_CERT_ALTNAME_INVALID';
    return make({
      kind: 'tls',
      symptom: 'TLS verify failed',
      cause: hostname
        ? `The server certificate does not name ${ctx.host} (${message}).`
        : `The server certificate could not be verified (${message}): it is self-signed, signed by a private CA, or expired.`,
      fix: hostname
        ? 'Connect with the host name the certificate was issued for, or use ssl_mode verify-ca to verify the chain without the host name.'
        : 'Paste the CA certificate (PEM) of the server in the connection, or, in development only, set ssl_mode to require.',
    });
  }
  return null;
}

/** The login refused: the credentials, or the database. */
function loginFailure({ state, message, where, ctx, make }: Failure): ConnectorError | null {
  switch (state) {
    case '28P01':
    case '28000':
      return make({
        kind: 'auth',
        symptom: message,
        cause: `The server refused the credentials of the role "${ctx.username}": wrong password, unknown role, or no pg_hba.conf entry allowing it.`,
        fix: "Check the username and password (re-enter the password if it was rotated) and that pg_hba.conf allows this role from the service's address.",
      });
    case '3D000':
      return make({
        kind: 'unreachable',
        symptom: message,
        cause: `The server at ${where} has no database named "${ctx.database}".`,
        fix: 'Correct the database name (names are case-sensitive), or create the database.',
      });
    default:
      return null;
  }
}

/** Any other error the server reported with a SQLSTATE. */
function serverFailure({ state, message, where, ctx, withQuery, make }: Failure): ConnectorError | null {
  if (!state) return null;
  switch (state) {
    case '42501':
      return make({
        kind: 'privileges',
        symptom: message,
        cause: `The role "${ctx.username}" lacks a privilege the query needs.`,
        fix: 'Grant USAGE on the schema and SELECT on its tables to the role (see the least-privilege role in the documentation).',
        ...withQuery,
      });
    case '57014': {
      if (ctx.aborted) {
        return make({
          kind: 'cancelled',
          symptom: 'Query cancelled',
          cause: 'The run was cancelled; the statement was stopped on the server.',
          fix: 'Run the question again if it is still needed.',
        });
      }
      return make({
        kind: 'timeout',
        symptom: message,
        cause: `The query ran longer than the ${ctx.timeoutMs ?? 'configured'} ms statement timeout and was stopped by the server.`,
        fix: 'Ask a narrower question (a shorter period, fewer groups), or add indexes on the filtered columns.',
        ...withQuery,
      });
    }
    case '42601':
      return make({
        kind: 'query_syntax',
        symptom: message,
        cause: 'The generated query is not valid SQL for this server.',
        fix: 'Report the question and the generated query to the operator.',
        ...withQuery,
      });
    case '42703':
    case '42P01':
    case '42883':
      return make({
        kind: 'unknown_column',
        symptom: message,
        cause:
          state === '42883'
            ? 'The query calls a function or operator the server does not have for these types.'
            : 'The query names a column or table that does not exist in the scoped schemas.',
        fix: 'Refresh the schema (introspect) and ask again; the query will be generated from the current columns.',
        recoverable: true,
        ...withQuery,
      });
    case '25006':
    case '25001':
      return make({
        kind: 'query_rejected',
        symptom: message,
        cause: 'The statement tried to write, and the read-only transaction refused it.',
        fix: 'Only read-only questions can be answered.',
        ...withQuery,
      });
    case '53300':
    case '57P03':
      return make({
        kind: 'unreachable',
        symptom: message,
        cause: `The server at ${where} is not accepting connections right now (too many connections, or starting up / shutting down).`,
        fix: 'Retry in a moment; if it persists, raise max_connections or check the server.',
      });
    default:
      break;
  }
  return make({
    kind: 'engine',
    symptom: message,
    cause: `PostgreSQL reported error ${state}.`,
    fix: 'Report the question and the generated query to the operator.',
    ...withQuery,
  });
}

function networkFailure({ code, where, ctx, make }: Failure): ConnectorError | null {
  if (code === 'CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return make({
      kind: 'unreachable',
      symptom: `connection to ${where} timed out`,
      cause: 'The server did not answer in time: a firewall drops the traffic, or the host or port is wrong.',
      fix: "Check the host and port, and allow the service's address in the firewall / security group of the database.",
    });
  }
  if (
    [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ECONNRESET',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
    ].includes(code)
  ) {
    const notFound = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    return make({
      kind: 'unreachable',
      symptom: notFound
        ? `could not resolve host name "${ctx.host}"`
        : `could not connect to ${where} (${code})`,
      cause: notFound
        ? 'The host name does not resolve in DNS.'
        : 'Nothing accepted the connection at that address, or the server closed it.',
      fix: notFound
        ? 'Check the host name for typos.'
        : 'Check that PostgreSQL is running and listens on that host and port (listen_addresses, firewall).',
    });
  }
  return null;
}

export function mapPgError(error: unknown, ctx: ErrorContext): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const full = error instanceof Error ? error.message : String(error);
  const failure: Failure = {
    code: field(error, 'code') ?? '',
    state: sqlState(error),
    raw: clip(full),
    // Scrubbed before it is cut, so that a cut cannot leave part of the password behind.
    message: clip(scrub(full, ctx.secrets)),
    where: `${ctx.host}:${ctx.port}`,
    ctx,
    withQuery: ctx.query ? { query: ctx.query } : {},
    make: (init) => scrubbedError(init, ctx.secrets),
  };
  return (
    tlsFailure(failure) ??
    loginFailure(failure) ??
    serverFailure(failure) ??
    networkFailure(failure) ??
    failure.make({
      kind: 'engine',
      symptom: failure.message,
      cause: 'The connection to PostgreSQL failed unexpectedly.',
      fix: 'Retry; if it persists, report the message to the operator.',
    })
  );
}

// ---------- failures the connector detects on the wire itself (client.ts) ----------

/** Where a connection was when it failed. */
export type WirePhase = 'connecting' | 'startup' | 'idle' | 'query';

export interface WireContext {
  host: string;
  port: number;
  sslMode: string;
}

function during(phase: WirePhase): string {
  switch (phase) {
    case 'connecting':
      return 'while connecting';
    case 'startup':
      return 'during the login (before it completed)';
    case 'idle':
      return 'between two queries';
    case 'query':
      return 'while a query was running';
  }
}

const NOT_POSTGRES_FIX =
  'Check that the host and port point at a PostgreSQL server (not another service), and that no proxy, load balancer or firewall between this service and the server cuts or alters the connection; the server log says why it dropped it.';

export type WireFailure =
  | { kind: 'reset' | 'closed'; phase: WirePhase }
  | { kind: 'protocol'; phase: WirePhase; detail: string }
  | { kind: 'tls_garbage'; detail: string }
  | { kind: 'tls_refused' }
  | { kind: 'too_large'; detail: string }
  | { kind: 'cleartext_refused' }
  | { kind: 'unsupported_auth'; method: string }
  | { kind: 'startup_timeout'; phase: WirePhase; ms: number }
  | { kind: 'budget'; attempts: number };

/** The ConnectorError for a failure the connector saw on the wire (no server text is quoted). */
export function wireError(failure: WireFailure, ctx: WireContext): ConnectorError {
  const where = `${ctx.host}:${ctx.port}`;
  switch (failure.kind) {
    case 'reset':
      return new ConnectorError({
        kind: 'unreachable',
        symptom: 'Connection reset by the server',
        cause: `The server at ${where} reset the connection ${during(failure.phase)}.`,
        fix: NOT_POSTGRES_FIX,
      });
    case 'closed':
      return new ConnectorError({
        kind: 'unreachable',
        symptom: 'Connection closed by the server',
        cause:
          failure.phase === 'startup' || failure.phase === 'connecting'
            ? `The server at ${where} closed the connection ${during(failure.phase)}: it is not a PostgreSQL server, or it turned this client away (connection limit, pg_hba.conf, a proxy).`
            : `The server at ${where} closed the connection ${during(failure.phase)} (server restart or crash, or the session was terminated).`,
        fix: NOT_POSTGRES_FIX,
      });
    case 'protocol':
      return new ConnectorError({
        kind: 'engine',
        symptom: 'Invalid response from the server',
        cause: `The server at ${where} sent data that is not the PostgreSQL protocol ${during(failure.phase)} (${failure.detail}); the connection was closed.`,
        fix: NOT_POSTGRES_FIX,
      });
    case 'tls_garbage':
      return new ConnectorError({
        kind: 'tls',
        symptom: 'Invalid answer to the TLS request',
        cause: `The server at ${where} answered the request to start TLS with ${failure.detail}; a PostgreSQL server answers with a single "S" or "N".`,
        fix: NOT_POSTGRES_FIX,
      });
    case 'tls_refused':
      return new ConnectorError({
        kind: 'tls',
        symptom: 'server does not support SSL, but SSL was required',
        cause: `The server at ${where} does not accept TLS connections, and ssl_mode is ${ctx.sslMode}.`,
        fix: 'Enable ssl on the server (ssl = on with a certificate), or, for a local development server only, set ssl_mode to disable.',
      });
    case 'too_large':
      return new ConnectorError({
        kind: 'engine',
        symptom: 'Response too large',
        cause: `The server at ${where} sent ${failure.detail}; the connection was closed to protect the service.`,
        fix: 'Ask for fewer or narrower columns (large text, JSON or binary values) or fewer rows.',
      });
    case 'cleartext_refused':
      return new ConnectorError({
        kind: 'auth',
        symptom: 'Cleartext password authentication refused',
        cause: `The server at ${where} asked for the password in clear text (password authentication) over ${
          ctx.sslMode === 'disable'
            ? 'an unencrypted connection (ssl_mode=disable)'
            : `a TLS connection whose certificate is not verified (ssl_mode=${ctx.sslMode})`
        }, where anyone on the path could read it; the password was not sent.`,
        fix: 'Connect with TLS and ssl_mode verify-full (paste the CA certificate if it is private), or configure scram-sha-256 authentication for this role on the server (password_encryption = scram-sha-256, a scram-sha-256 line in pg_hba.conf, then set the password again); an operator can allow it anyway with ALLOW_INSECURE_TRANSPORT=true.',
      });
    case 'unsupported_auth':
      return new ConnectorError({
        kind: 'auth',
        symptom: 'Unsupported authentication method',
        cause: `The server at ${where} asked for ${failure.method} authentication, which this service does not support.`,
        fix: 'Allow scram-sha-256 password authentication for this role in pg_hba.conf.',
      });
    case 'startup_timeout':
      return new ConnectorError({
        kind: 'unreachable',
        symptom: `connection to ${where} timed out`,
        cause:
          failure.phase === 'connecting'
            ? `The server did not accept the connection within ${Math.round(failure.ms / 1000)} s: a firewall drops the traffic, or the host or port is wrong.`
            : `The server accepted the TCP connection but did not complete the PostgreSQL login within ${Math.round(failure.ms / 1000)} s.`,
        fix:
          failure.phase === 'connecting'
            ? "Check the host and port, and allow the service's address in the firewall / security group of the database."
            : 'Check that the port is the PostgreSQL port (not another service) and that the server is not overloaded.',
      });
    case 'budget':
      return new ConnectorError({
        kind: 'unreachable',
        symptom: 'Connection lost',
        cause: `The connection to ${where} ended and this operation does not reconnect (${failure.attempts} connection attempt(s) made).`,
        fix: 'Retry; if it keeps failing, check the server and the network between this service and it.',
      });
  }
}
