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
