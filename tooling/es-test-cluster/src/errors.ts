/** An Elasticsearch-shaped error: serialised as `{"error":{"root_cause":[...],"type","reason"},"status"}`. */
export class EsError extends Error {
  readonly status: number;
  readonly type: string;
  readonly headers: Record<string, string | string[]>;
  readonly extra: Record<string, unknown>;

  constructor(
    status: number,
    type: string,
    reason: string,
    options: { headers?: Record<string, string | string[]>; extra?: Record<string, unknown> } = {},
  ) {
    super(reason);
    this.name = 'EsError';
    this.status = status;
    this.type = type;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }

  get reason(): string {
    return this.message;
  }

  toBody(): Record<string, unknown> {
    const cause = { type: this.type, reason: this.message, ...this.extra };
    return { error: { root_cause: [cause], ...cause }, status: this.status };
  }
}

/** A request that has no handler at all: ES answers with a plain-string `error`. */
export class NoHandlerError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'NoHandlerError';
    this.status = status;
    this.headers = headers;
  }
  toBody(): Record<string, unknown> {
    return { error: this.message, status: this.status };
  }
}

export function verificationError(problems: readonly string[]): EsError {
  const n = problems.length;
  const head = n === 1 ? 'Found 1 problem' : `Found ${n} problems`;
  return new EsError(400, 'verification_exception', [head, ...problems].join('\n'));
}

export function illegalArgument(reason: string): EsError {
  return new EsError(400, 'illegal_argument_exception', reason);
}

export function indexNotFound(index: string): EsError {
  return new EsError(404, 'index_not_found_exception', `no such index [${index}]`, {
    extra: { 'resource.type': 'index_or_alias', 'resource.id': index, index_uuid: '_na_', index },
  });
}
