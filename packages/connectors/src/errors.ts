export type ConnectorErrorKind =
  | 'unreachable'
  | 'blocked_address'
  | 'tls'
  | 'auth'
  | 'privileges'
  | 'unsupported_version'
  | 'query_syntax'
  | 'query_rejected'
  | 'out_of_scope'
  | 'unknown_column'
  | 'timeout'
  | 'cancelled'
  | 'engine';

/**
 * A failure toward a data source, worded for the user: `symptom` is the spec's symptom text
 * (e.g. `401 Unauthorized`, `TLS verify failed`, `unknown URI [/_query]`), `cause` and `fix` its row.
 * The message never contains a credential.
 */
export class ConnectorError extends Error {
  readonly kind: ConnectorErrorKind;
  readonly symptom: string;
  readonly cause_: string;
  readonly fix: string;
  /** The generated query, attached for the operator on syntax errors. */
  readonly query: string | undefined;
  readonly recoverable: boolean;

  constructor(init: {
    kind: ConnectorErrorKind;
    symptom: string;
    cause: string;
    fix: string;
    query?: string;
    recoverable?: boolean;
    message?: string;
  }) {
    super(init.message ?? `${init.symptom}: ${init.cause} ${init.fix}`);
    this.name = 'ConnectorError';
    this.kind = init.kind;
    this.symptom = init.symptom;
    this.cause_ = init.cause;
    this.fix = init.fix;
    this.query = init.query;
    this.recoverable = init.recoverable ?? false;
  }
}

/** Longest server-provided text (error message) that reaches a ConnectorError. */
const MAX_SERVER_TEXT = 500;

/** Server text bounded to MAX_SERVER_TEXT characters (a hostile server may send megabytes). */
export function clip(text: string): string {
  return text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}...` : text;
}

/** `text` with every secret replaced: no credential reaches a message, whatever the server or driver put there. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[redacted]');
  return out;
}

/** Node's codes for a TLS handshake or certificate failure. */
export const TLS_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/** A ConnectorError whose texts have every secret replaced (see `scrub`). */
export function scrubbedError(
  init: ConstructorParameters<typeof ConnectorError>[0],
  secrets: readonly string[],
): ConnectorError {
  return new ConnectorError({
    ...init,
    symptom: scrub(init.symptom, secrets),
    cause: scrub(init.cause, secrets),
    fix: scrub(init.fix, secrets),
    ...(init.message ? { message: scrub(init.message, secrets) } : {}),
  });
}
