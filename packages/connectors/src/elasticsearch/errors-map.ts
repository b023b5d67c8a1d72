/**
 * Maps client and cluster failures to the spec's symptom table (ConnectorError with symptom,
 * cause and fix). Every text taken from the cluster passes through `scrub`, which removes the
 * connection's secrets should a server ever echo them.
 */
import { errors } from '@elastic/elasticsearch';
import { DEADLINE_GRACE_MS, abortedError } from '../bounded.ts';
import { ConnectorError } from '../errors.ts';
import type { ClientHandle } from './client.ts';
import { InvalidResponseError, ResponseTooLargeError } from './client.ts';
import type { Operation } from './request.ts';

export const FIX_RECREATE_KEY = 'Recreate the key with `read` and `view_index_metadata`.';
export const FIX_TLS = 'Supply the CA cert PEM, or disable TLS verification in development.';
export const FIX_PARSING = 'Report the question and the generated query to the operator.';
export const FIX_UPGRADE = 'Upgrade the cluster.';
export const FIX_ALLOWLIST = 'Add the index pattern to Allowed indices.';
export const FIX_EMPTY_SCHEMA = "Confirm cluster version 8.11 or later and re-check the key's privileges.";
export const FIX_PARTIAL = 'Re-run when cluster health is yellow or green.';

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join('[redacted]');
  return out;
}

export interface EsErrorBody {
  error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] } | string;
  status?: number;
}

/** Longest text taken from a cluster answer into an error (the answer itself may be megabytes). */
export const MAX_REASON_CHARS = 1000;

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max)}...` : value;
}

/**
 * `type` and `reason` of an Elasticsearch error body (root cause preferred for the type). Whatever
 * the body holds (a hostile server chooses), both are bounded strings.
 */
export function errorInfo(body: unknown): { type: string; reason: string } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as EsErrorBody;
  if (typeof b.error === 'string') return { type: 'error', reason: text(b.error, MAX_REASON_CHARS) ?? '' };
  const e = typeof b.error === 'object' && b.error !== null ? b.error : {};
  const root =
    Array.isArray(e.root_cause) && typeof e.root_cause[0] === 'object' && e.root_cause[0] !== null
      ? e.root_cause[0]
      : {};
  return {
    type: text(e.type, 100) ?? text(root.type, 100) ?? 'error',
    reason:
      text(e.reason, MAX_REASON_CHARS) ??
      text(root.reason, MAX_REASON_CHARS) ??
      text(body, MAX_REASON_CHARS) ??
      '',
  };
}

const TLS_VERIFY =
  /self[- ]signed certificate|unable to verify the first certificate|unable to get local issuer certificate|unable to get issuer certificate|certificate has expired|certificate is not yet valid|does not match certificate's altnames|Hostname\/IP does not match|certificate signature failure|Invalid or malformed certificate|CA fingerprint does not match|unsupported certificate purpose|certificate chain too long|self_signed|CERT_/i;
const TLS_HANDSHAKE =
  /wrong version number|EPROTO|packet length too long|unknown protocol|handshake failure|tlsv1 alert|SSL routines/i;

export interface MapContext {
  handle?: ClientHandle | null;
  secrets: readonly string[];
  query?: string;
  timeoutMs?: number;
  /** The operation the request belonged to (tells a cancellation from a deadline). */
  op?: Operation;
  clusterUrl?: string;
}

export function tlsVerifyFailed(detail: string): ConnectorError {
  return new ConnectorError({
    kind: 'tls',
    symptom: 'TLS verify failed',
    cause: `Self-signed cluster or custom CA: the cluster certificate could not be verified (${detail}).`,
    fix: FIX_TLS,
  });
}

export function unauthorized(reason: string): ConnectorError {
  return new ConnectorError({
    kind: 'auth',
    symptom: '401 Unauthorized',
    cause: `API key rotated, expired, or lacking privileges (the cluster said: ${reason}).`,
    fix: FIX_RECREATE_KEY,
  });
}

export function unknownQueryUri(detail: string): ConnectorError {
  return new ConnectorError({
    kind: 'unsupported_version',
    symptom: 'unknown URI [/_query]',
    cause: `Cluster older than 8.11: it has no ES|QL endpoint (${detail}).`,
    fix: FIX_UPGRADE,
  });
}

export function notInAllowlist(index: string): ConnectorError {
  const message = `Index '${index}' is not in allowlist`;
  return new ConnectorError({
    kind: 'out_of_scope',
    symptom: message,
    cause: 'Generated query targets an index outside the scope.',
    fix: FIX_ALLOWLIST,
    message,
    recoverable: true,
  });
}

/** True for the 405 / 400 answers of a cluster without `POST /_query`. */
export function isMissingQueryEndpoint(status: number, reason: string): boolean {
  return (
    (status === 405 || status === 400) &&
    /(no handler found for uri|Incorrect HTTP method for uri) \[\/_query/.test(reason)
  );
}

const NOT_HTTP = /HPE_|Parse Error/;
const RESET =
  /ECONNRESET|socket hang up|EPIPE|closed before the whole answer|connection reset|Connection closed while reading/i;
const FIX_ENDPOINT =
  'Check that the Cluster URL points at the Elasticsearch HTTP endpoint (host and port), not another service or a proxy that cuts connections, and that the cluster is healthy.';

function connectionFailure(raw: string, ctx: MapContext): ConnectorError {
  const message = raw.length > 300 ? `${raw.slice(0, 300)}...` : raw;
  const blocked = ctx.handle?.blocked.error;
  if (blocked && /Address not allowed|resolves to/.test(message)) return blocked;
  if (TLS_VERIFY.test(message)) return tlsVerifyFailed(message);
  if (TLS_HANDSHAKE.test(message)) {
    return new ConnectorError({
      kind: 'tls',
      symptom: 'TLS handshake failed',
      cause: `The TLS handshake with the cluster failed (${message}); the port may not serve HTTPS.`,
      fix: 'Check that the Cluster URL uses https:// and the HTTPS port of the cluster.',
    });
  }
  if (NOT_HTTP.test(message)) {
    return new ConnectorError({
      kind: 'unreachable',
      symptom: 'Not an Elasticsearch cluster',
      cause: `The server at ${ctx.clusterUrl ?? 'the Cluster URL'} answered with bytes that are not HTTP (${message}).`,
      fix: FIX_ENDPOINT,
    });
  }
  if (RESET.test(message)) {
    return new ConnectorError({
      kind: 'unreachable',
      symptom: 'Connection reset',
      cause: `The server at ${ctx.clusterUrl ?? 'the Cluster URL'} closed or reset the connection before a complete answer (${message}).`,
      fix: FIX_ENDPOINT,
    });
  }
  return new ConnectorError({
    kind: 'unreachable',
    symptom: 'Cluster unreachable',
    cause: `Could not connect to ${ctx.clusterUrl ?? 'the cluster'} (${message}).`,
    fix: 'Check the Cluster URL and port, and that the cluster accepts connections from this service.',
  });
}

/** Converts anything thrown by the client into a ConnectorError. */
export function mapClientError(err: unknown, ctx: MapContext): ConnectorError {
  if (err instanceof ConnectorError) return err;
  // Once the caller's signal fired, whatever the request ended with is that cancellation or deadline.
  const caller = ctx.op?.callerSignal;
  if (ctx.op && caller?.aborted && !(err instanceof errors.ResponseError))
    return abortedError(caller, ctx.op.budgetMs + DEADLINE_GRACE_MS);
  const s = (t: string): string => scrub(t, ctx.secrets);
  if (err instanceof errors.ResponseError) {
    const status = err.meta.statusCode ?? 0;
    const { type, reason } = errorInfo(err.meta.body);
    const r = s(reason);
    if (status === 401) return unauthorized(r || 'authentication failed');
    if (isMissingQueryEndpoint(status, r)) return unknownQueryUri(r);
    if (status === 403) {
      return new ConnectorError({
        kind: 'privileges',
        symptom: '403 Forbidden',
        cause: `The credential lacks privileges for this request (${r}).`,
        fix: 'Recreate the key with `read` and `view_index_metadata` on the target indices.',
      });
    }
    if (type === 'parsing_exception') {
      return new ConnectorError({
        kind: 'query_syntax',
        symptom: 'parsing_exception',
        cause: `Query syntax error: ${r}`,
        fix: FIX_PARSING,
        query: ctx.query,
        recoverable: false,
      });
    }
    if (type === 'verification_exception') {
      const unknownColumn = /Unknown column|Unknown field/i.test(r);
      const unknownIndex = /Unknown index/i.test(r);
      return new ConnectorError({
        kind: unknownColumn ? 'unknown_column' : 'query_syntax',
        symptom: 'verification_exception',
        cause: `The cluster rejected the query: ${r}`,
        fix: unknownIndex
          ? 'The index does not exist or the credential cannot read it: pick an index listed in the schema, or refresh the schema.'
          : 'Correct the query against the columns of the schema (refresh the schema if the mappings changed).',
        query: ctx.query,
        recoverable: true,
      });
    }
    if (status === 503 && type === 'no_shard_available_action_exception') {
      return new ConnectorError({
        kind: 'engine',
        symptom: 'Shards unavailable',
        cause: `One or more shards unavailable and no partial result could be returned (${r}).`,
        fix: FIX_PARTIAL,
      });
    }
    if (status === 404 && type === 'index_not_found_exception') {
      return new ConnectorError({
        kind: 'engine',
        symptom: 'index_not_found_exception',
        cause: r,
        fix: 'Check the index names in Allowed indices / Index pattern.',
      });
    }
    return new ConnectorError({
      kind: 'engine',
      symptom: `${status} ${type}`,
      cause: `The cluster answered ${status}: ${r || type}`,
      fix: status >= 500 ? 'Re-run later; check the cluster health.' : FIX_PARSING,
      query: ctx.query,
    });
  }
  if (err instanceof errors.TimeoutError) {
    if (ctx.query !== undefined) {
      return new ConnectorError({
        kind: 'timeout',
        symptom: 'Query timed out',
        cause: `The cluster did not answer within ${ctx.timeoutMs ?? 'the allowed'} ms; the request was closed, which cancels the query on the cluster.`,
        fix: 'Narrow the question (shorter time range, fewer groups) or raise the timeout.',
        recoverable: true,
      });
    }
    return new ConnectorError({
      kind: 'timeout',
      symptom: 'Cluster did not answer in time',
      cause: `No complete answer from ${ctx.clusterUrl ?? 'the cluster'} within ${ctx.timeoutMs ?? ctx.op?.budgetMs ?? 'the allowed'} ms; the connection was closed.`,
      fix: `${FIX_ENDPOINT} Raise QUERY_TIMEOUT_SECONDS only for a slow but working cluster.`,
    });
  }
  if (err instanceof errors.RequestAbortedError) {
    return new ConnectorError({
      kind: 'cancelled',
      symptom: 'Query cancelled',
      cause: 'The run was cancelled; the request was closed, which cancels the query on the cluster.',
      fix: 'Run the question again.',
    });
  }
  if (err instanceof ResponseTooLargeError) {
    const mib = Math.round(err.limit / (1024 * 1024));
    return new ConnectorError({
      kind: 'engine',
      symptom: 'Response too large',
      cause: `The answer of ${ctx.clusterUrl ?? 'the cluster'} ${err.announced === null ? 'grew' : `announced ${err.announced} bytes,`} past the ${mib} MiB this service reads; it was not read further and the connection was closed.`,
      fix:
        ctx.query !== undefined
          ? 'Return fewer or narrower rows: KEEP only the columns needed, aggregate with STATS, or lower the LIMIT.'
          : `Narrow Allowed indices / Index pattern; if the answer should never be that large, ${FIX_ENDPOINT.charAt(0).toLowerCase()}${FIX_ENDPOINT.slice(1)}`,
      query: ctx.query,
    });
  }
  if (err instanceof errors.ProductNotSupportedError) {
    return new ConnectorError({
      kind: 'unreachable',
      symptom: 'Not an Elasticsearch cluster',
      cause:
        'The server at the Cluster URL answered without identifying as Elasticsearch (no X-Elastic-Product header).',
      fix: 'Check the Cluster URL: it must point at the Elasticsearch endpoint, not Kibana or a proxy page.',
    });
  }
  if (err instanceof errors.DeserializationError || err instanceof InvalidResponseError) {
    const detail = err instanceof InvalidResponseError ? err.message : 'its body is not valid JSON';
    return new ConnectorError({
      kind: 'engine',
      symptom: 'Invalid response',
      cause: `The answer of ${ctx.clusterUrl ?? 'the cluster'} could not be read: ${detail}.`,
      fix: FIX_ENDPOINT,
    });
  }
  if (err instanceof errors.ConnectionError || err instanceof errors.NoLivingConnectionsError) {
    return connectionFailure(s(err.message), ctx);
  }
  const message = err instanceof Error ? err.message : String(err);
  return connectionFailure(s(message), ctx);
}

/** An answer whose shape is not what Elasticsearch sends for this request. */
export function invalidShape(what: string, clusterUrl: string | undefined): ConnectorError {
  return new ConnectorError({
    kind: 'engine',
    symptom: 'Invalid response',
    cause: `The answer of ${clusterUrl ?? 'the cluster'} is not ${what}.`,
    fix: FIX_ENDPOINT,
  });
}

/** Text of a `Warning` header without its `299 Elasticsearch-<version>-<hash> "..."` envelope. */
export function warningText(header: string): string {
  const m = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(header.trim());
  return m ? (m[1] as string).replace(/\\(.)/g, '$1') : header;
}

/** The version in a `Warning: 299 Elasticsearch-8.15.0-<hash> "..."` header, if any. */
export function versionFromWarning(header: string): string | null {
  const m = /^\d{3} Elasticsearch-(\d+\.\d+\.\d+)(?:-SNAPSHOT)?-/.exec(header.trim());
  return m ? (m[1] as string) : null;
}
