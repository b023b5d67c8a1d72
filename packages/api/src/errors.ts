import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { DomainError, isStoreUnavailable, type DomainErrorKind } from '@aqs/core';
import type { FieldError, Problem } from '@aqs/contracts';

type TrpcCode = TRPCError['code'];

/** Detail of a 404 raised by the adapter itself (no procedure matched); the HTTP layer names the route. */
export const NO_ROUTE_DETAIL = 'No such route.';

export interface ProblemResponse {
  /** The tRPC error code tRPC clients get (`NOT_FOUND`, `TOO_MANY_REQUESTS`, ...); `status` is its HTTP status. */
  code: TrpcCode;
  status: number;
  body: Problem;
  headers: Record<string, string>;
  /**
   * For a 429, what refused it, for the metrics: the body's code (a quota), else the limit
   * (`rate_limited`, `stream_cap`, `sign_in_limit`).
   */
  refusal?: string;
}

/** The one mapping of a domain error: to a tRPC code, and through it (tRPC's own table) to an HTTP status. */
const TRPC_CODE_OF_KIND: Record<DomainErrorKind, TrpcCode> = {
  bad_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  validation: 'UNPROCESSABLE_CONTENT',
  rate_limited: 'TOO_MANY_REQUESTS',
  quota_exceeded: 'TOO_MANY_REQUESTS',
  data_source: 'BAD_GATEWAY',
  unavailable: 'SERVICE_UNAVAILABLE',
};

const statusOfCode = new Map<TrpcCode, number>();

/** The HTTP status of a tRPC code, from tRPC's own table (asked once per code). */
function statusOf(code: TrpcCode): number {
  let status = statusOfCode.get(code);
  if (status === undefined) {
    status = getHTTPStatusCodeFromError(new TRPCError({ code }));
    statusOfCode.set(code, status);
  }
  return status;
}

interface ZodLikeIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

function isZodError(value: unknown): value is { issues: ZodLikeIssue[] } {
  return (
    value instanceof Error &&
    value.name === 'ZodError' &&
    Array.isArray((value as { issues?: unknown }).issues)
  );
}

/**
 * Error bodies are bounded whatever the input: at most this many field errors are listed, and names
 * and messages (which may quote the client's keys) are cut short. 70,000 unknown keys give 20 lines.
 */
export const MAX_LISTED_ERRORS = 20;
const MAX_ERROR_TEXT = 200;

function clip(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}

function fieldName(path: PropertyKey[]): string {
  return path.length === 0 ? 'body' : clip(path.map(String).join('.'));
}

/** One line per issue (at most MAX_LISTED_ERRORS), worded so the caller knows which field to fix and how. */
export function fieldErrorsOf(issues: ZodLikeIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (out.length >= MAX_LISTED_ERRORS) break;
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys.slice(0, MAX_LISTED_ERRORS - out.length)) {
        out.push({ field: fieldName([...issue.path, key]), message: 'is not a known field; remove it' });
      }
      continue;
    }
    let message = issue.message;
    if (issue.code === 'invalid_type' && /received undefined/.test(message)) message = 'is required';
    else if (issue.code === 'invalid_type')
      message = message.replace(/^Invalid input: /, 'must be of the right type: ');
    out.push({ field: fieldName(issue.path), message: clip(message) });
  }
  return out;
}

function validationProblem(all: FieldError[]): ProblemResponse {
  const fields = all
    .slice(0, MAX_LISTED_ERRORS)
    .map((f) => ({ field: clip(f.field), message: clip(f.message) }));
  const shown = fields.slice(0, 5);
  const more =
    all.length > shown.length ? `; more are listed in \`errors\` (up to ${MAX_LISTED_ERRORS})` : '';
  const summary = shown.map((f) => `\`${f.field}\` ${f.message}`).join('; ');
  return {
    code: 'UNPROCESSABLE_CONTENT',
    status: 422,
    body: { detail: `The request is invalid: ${summary}${more}.`, errors: fields },
    headers: {},
  };
}

/** Our sentence for the errors tRPC and its adapters raise themselves. */
const TRPC_DETAIL: Partial<Record<TrpcCode, string>> = {
  PARSE_ERROR: 'The request body is not valid JSON.',
  BAD_REQUEST: 'The request could not be understood.',
  UNAUTHORIZED: 'Sign in, or send an API key in the X-API-Key header.',
  FORBIDDEN: 'You are not allowed to do this.',
  NOT_FOUND: NO_ROUTE_DETAIL,
  METHOD_NOT_SUPPORTED: 'This method is not allowed on this route.',
  CONFLICT: 'The request conflicts with the current state.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the body as JSON with `Content-Type: application/json`.',
  UNPROCESSABLE_CONTENT: 'The request is invalid.',
  TOO_MANY_REQUESTS: 'Too many requests.',
};

const INTERNAL: Problem = { detail: 'Something went wrong on our side. The error was logged; try again.' };

function problemOf(error: unknown): ProblemResponse {
  const cause = error instanceof TRPCError ? (error.cause ?? error) : error;
  if (cause instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (cause.retryAfterSeconds !== undefined) headers['Retry-After'] = String(cause.retryAfterSeconds);
    if (cause.kind === 'validation' && cause.fields) return { ...validationProblem(cause.fields), headers };
    const body: Problem = { detail: cause.message };
    if (cause.code) body.code = cause.code;
    if (cause.fields) body.errors = cause.fields.slice(0, MAX_LISTED_ERRORS);
    if (cause.dataSource) Object.assign(body, cause.dataSource);
    const code = TRPC_CODE_OF_KIND[cause.kind];
    const status = statusOf(code);
    if (status !== 429) return { code, status, body, headers };
    return { code, status, body, headers, refusal: cause.code ?? cause.limit ?? 'rate_limited' };
  }
  // A schema refusing the caller's input (tRPC says BAD_REQUEST; the code middleware, UNPROCESSABLE_CONTENT) is a 422 naming the fields; one refusing
  // a procedure's own output is a server fault, and says nothing about the output's fields.
  const inputRefused =
    !(error instanceof TRPCError) || error.code === 'BAD_REQUEST' || error.code === 'UNPROCESSABLE_CONTENT';
  if (isZodError(cause) && inputRefused) return validationProblem(fieldErrorsOf(cause.issues));
  if (error instanceof TRPCError) {
    const known = TRPC_DETAIL[error.code];
    if (known) {
      // Messages we wrote ourselves are kept; the adapters' generic ones are replaced by ours.
      const generic =
        !error.message ||
        /^(Not found|Failed to parse request body|Missing content-type header|Unsupported content-type)/.test(
          error.message,
        ) ||
        error.message === error.code;
      const detail =
        error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'PARSE_ERROR' || generic
          ? known
          : error.message;
      return { code: error.code, status: statusOf(error.code), body: { detail }, headers: {} };
    }
  }
  // The app store down or restarting: the same request will work again shortly.
  if (isStoreUnavailable(cause))
    return {
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      body: STORE_UNAVAILABLE,
      headers: { 'Retry-After': '5' },
    };
  return { code: 'INTERNAL_SERVER_ERROR', status: 500, body: INTERNAL, headers: {} };
}

const STORE_UNAVAILABLE: Problem = {
  detail:
    "The service's database is not reachable right now (it may be restarting). Try again in a few seconds.",
};

const problems = new WeakMap<object, ProblemResponse>();

/**
 * Maps any error to the service's one error body, with the tRPC code and HTTP status that go with it.
 * Domain errors carry their own sentence; anything unexpected becomes a 500 that says nothing about
 * internals. Worked out once per error: the tRPC error formatter, the response status and the log
 * line all read the same answer.
 */
export function toProblem(error: unknown): ProblemResponse {
  if (typeof error !== 'object' || error === null) return problemOf(error);
  let problem = problems.get(error);
  if (!problem) {
    problem = problemOf(error);
    problems.set(error, problem);
  }
  return problem;
}
