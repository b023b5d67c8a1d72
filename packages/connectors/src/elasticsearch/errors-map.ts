/**
 * The connector's refusals and cluster-text helpers: fixes, symptoms and the text taken from the
 * cluster, which always passes through `scrub` (it removes the connection's secrets should a server
 * ever echo them). Free of the Elasticsearch client, so the validator loads without it.
 */
import { ConnectorError } from '../errors.ts';

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

export const FIX_ENDPOINT =
  'Check that the Cluster URL points at the Elasticsearch HTTP endpoint (host and port), not another service or a proxy that cuts connections, and that the cluster is healthy.';

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
