/**
 * Maps what the Elasticsearch client throws to the spec's symptom table (ConnectorError with symptom,
 * cause and fix). Loaded with the client, on the first operation that needs a cluster.
 */
import { errors } from '@elastic/elasticsearch';
import { DEADLINE_GRACE_MS, abortedError } from '../bounded.ts';
import { ConnectorError } from '../errors.ts';
import type { ClientHandle } from './client.ts';
import { InvalidResponseError, ResponseTooLargeError } from './client.ts';
import {
  FIX_ENDPOINT,
  FIX_PARSING,
  FIX_PARTIAL,
  errorInfo,
  isMissingQueryEndpoint,
  scrub,
  tlsVerifyFailed,
  unauthorized,
  unknownQueryUri,
} from './errors-map.ts';
import type { Operation } from './request.ts';

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

const NOT_HTTP = /HPE_|Parse Error/;
const RESET =
  /ECONNRESET|socket hang up|EPIPE|closed before the whole answer|connection reset|Connection closed while reading/i;

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
