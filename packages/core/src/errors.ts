import type { FieldError } from '@aqs/contracts';
import { ConnectorError } from '@aqs/connectors';

export type DomainErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'validation'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'data_source'
  | 'unavailable';

/** The one error type of the domain. Its message is shown to the caller, so it never holds internals. */
export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly code: string | undefined;
  readonly fields: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** A data-source failure in the connector's words (kind `data_source`). */
  readonly dataSource: DataSourceFailure | undefined;
  /**
   * Which limit refused a `rate_limited` error whose body carries no code (the API's rate limits
   * have none): named for the metrics only, never sent.
   */
  readonly limit: 'stream_cap' | 'sign_in_limit' | undefined;

  constructor(
    kind: DomainErrorKind,
    message: string,
    extra: {
      code?: string;
      fields?: FieldError[];
      retryAfterSeconds?: number;
      dataSource?: DataSourceFailure;
      limit?: 'stream_cap' | 'sign_in_limit';
    } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.code = extra.code;
    this.fields = extra.fields;
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.dataSource = extra.dataSource;
    this.limit = extra.limit;
  }
}

export interface DataSourceFailure {
  symptom: string;
  cause: string;
  fix: string;
}

/**
 * A connector's failure (unreachable, TLS, credentials, reset, timeout...) as the domain reports it:
 * 502 with the symptom, cause and fix, and code `data_source_<kind>`. Anything else passes through.
 */
export function fromConnectorError(error: unknown): unknown {
  if (!(error instanceof ConnectorError)) return error;
  return new DomainError('data_source', `${error.symptom}: ${error.cause_} ${error.fix}`, {
    code: `data_source_${error.kind}`,
    dataSource: { symptom: error.symptom, cause: error.cause_, fix: error.fix },
  });
}

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} was not found.`);
}
