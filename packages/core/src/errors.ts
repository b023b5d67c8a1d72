import type { FieldError } from '@aqs/contracts';

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
  | 'unavailable';

/** The one error type of the domain. Its message is shown to the caller, so it never holds internals. */
export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly code: string | undefined;
  readonly fields: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    kind: DomainErrorKind,
    message: string,
    extra: { code?: string; fields?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.code = extra.code;
    this.fields = extra.fields;
    this.retryAfterSeconds = extra.retryAfterSeconds;
  }
}

export const statusOfKind: Record<DomainErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  validation: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  unavailable: 503,
};

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} was not found.`);
}
