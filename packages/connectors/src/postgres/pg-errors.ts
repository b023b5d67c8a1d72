/**
 * Maps PostgreSQL, network and TLS failures to ConnectorErrors worded like the spec's symptom table.
 * Messages are built from our own words plus the server's message text; the password is scrubbed
 * from anything that reaches a message, whatever the server or the driver put there.
 */
import { ConnectorError } from '../errors.ts';
import type { SocketState } from './client.ts';

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

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REVOKED', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO',
]);

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

export function mapPgError(error: unknown, ctx: ErrorContext): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw, ctx.secrets);
  const code = field(error, 'code') ?? '';
  const state = sqlState(error);
  const where = `${ctx.host}:${ctx.port}`;
  const make = (init: ConstructorParameters<typeof ConnectorError>[0]) =>
    new ConnectorError({
      ...init,
      symptom: scrub(init.symptom, ctx.secrets),
      cause: scrub(init.cause, ctx.secrets),
      fix: scrub(init.fix, ctx.secrets),
      ...(init.message ? { message: scrub(init.message, ctx.secrets) } : {}),
    });

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
  switch (state) {
    case '28P01':
    case '28000':
      return make({
        kind: 'auth',
        symptom: message,
        cause: `The server refused the credentials of the role "${ctx.username}": wrong password, unknown role, or no pg_hba.conf entry allowing it.`,
        fix: 'Check the username and password (re-enter the password if it was rotated) and that pg_hba.conf allows this role from the service\'s address.',
      });
    case '3D000':
      return make({
        kind: 'unreachable',
        symptom: message,
        cause: `The server at ${where} has no database named "${ctx.database}".`,
        fix: 'Correct the database name (names are case-sensitive), or create the database.',
      });
    case '42501':
      return make({
        kind: 'privileges',
        symptom: message,
        cause: `The role "${ctx.username}" lacks a privilege the query needs.`,
        fix: 'Grant USAGE on the schema and SELECT on its tables to the role (see the least-privilege role in the documentation).',
        ...(ctx.query ? { query: ctx.query } : {}),
      });
    case '57014': {
      if (ctx.aborted) {
        return make({ kind: 'cancelled', symptom: 'Query cancelled', cause: 'The run was cancelled; the statement was stopped on the server.', fix: 'Run the question again if it is still needed.' });
      }
      return make({
        kind: 'timeout',
        symptom: message,
        cause: `The query ran longer than the ${ctx.timeoutMs ?? 'configured'} ms statement timeout and was stopped by the server.`,
        fix: 'Ask a narrower question (a shorter period, fewer groups), or add indexes on the filtered columns.',
        ...(ctx.query ? { query: ctx.query } : {}),
      });
    }
    case '42601':
      return make({
        kind: 'query_syntax',
        symptom: message,
        cause: 'The generated query is not valid SQL for this server.',
        fix: 'Report the question and the generated query to the operator.',
        ...(ctx.query ? { query: ctx.query } : {}),
      });
    case '42703':
    case '42P01':
    case '42883':
      return make({
        kind: 'unknown_column',
        symptom: message,
        cause: state === '42883' ? 'The query calls a function or operator the server does not have for these types.' : 'The query names a column or table that does not exist in the scoped schemas.',
        fix: 'Refresh the schema (introspect) and ask again; the query will be generated from the current columns.',
        recoverable: true,
        ...(ctx.query ? { query: ctx.query } : {}),
      });
    case '25006':
    case '25001':
      return make({
        kind: 'query_rejected',
        symptom: message,
        cause: 'The statement tried to write, and the read-only transaction refused it.',
        fix: 'Only read-only questions can be answered.',
        ...(ctx.query ? { query: ctx.query } : {}),
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
  if (state) {
    return make({
      kind: 'engine',
      symptom: message,
      cause: `PostgreSQL reported error ${state}.`,
      fix: 'Report the question and the generated query to the operator.',
      ...(ctx.query ? { query: ctx.query } : {}),
    });
  }
  if (code === 'CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return make({
      kind: 'unreachable',
      symptom: `connection to ${where} timed out`,
      cause: 'The server did not answer in time: a firewall drops the traffic, or the host or port is wrong.',
      fix: 'Check the host and port, and allow the service\'s address in the firewall / security group of the database.',
    });
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'].includes(code)) {
    const notFound = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    return make({
      kind: 'unreachable',
      symptom: notFound ? `could not resolve host name "${ctx.host}"` : `could not connect to ${where} (${code})`,
      cause: notFound ? 'The host name does not resolve in DNS.' : 'Nothing accepted the connection at that address, or the server closed it.',
      fix: notFound ? 'Check the host name for typos.' : 'Check that PostgreSQL is running and listens on that host and port (listen_addresses, firewall).',
    });
  }
  return make({
    kind: 'engine',
    symptom: message,
    cause: 'The connection to PostgreSQL failed unexpectedly.',
    fix: 'Retry; if it persists, report the message to the operator.',
  });
}
