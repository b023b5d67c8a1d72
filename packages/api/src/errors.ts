import { TRPCError } from '@trpc/server';
import { DomainError, statusOfKind } from '@aqs/core';
import type { FieldError, Problem } from '@aqs/contracts';

/** Detail of a 404 raised by the adapter itself (no procedure matched); the HTTP layer names the route. */
export const NO_ROUTE_DETAIL = 'No such route.';

export interface ProblemResponse {
  status: number;
  body: Problem;
  headers: Record<string, string>;
}

interface ZodLikeIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

function isZodError(value: unknown): value is { issues: ZodLikeIssue[] } {
  return value instanceof Error && value.name === 'ZodError' && Array.isArray((value as { issues?: unknown }).issues);
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
    else if (issue.code === 'invalid_type') message = message.replace(/^Invalid input: /, 'must be of the right type: ');
    out.push({ field: fieldName(issue.path), message: clip(message) });
  }
  return out;
}

function validationProblem(all: FieldError[]): ProblemResponse {
  const fields = all.slice(0, MAX_LISTED_ERRORS).map((f) => ({ field: clip(f.field), message: clip(f.message) }));
  const shown = fields.slice(0, 5);
  const more = all.length > shown.length ? `; more are listed in \`errors\` (up to ${MAX_LISTED_ERRORS})` : '';
  const summary = shown.map((f) => `\`${f.field}\` ${f.message}`).join('; ');
  return { status: 422, body: { detail: `The request is invalid: ${summary}${more}.`, errors: fields }, headers: {} };
}

const TRPC_STATUS: Partial<Record<TRPCError['code'], { status: number; detail: string }>> = {
  PARSE_ERROR: { status: 400, detail: 'The request body is not valid JSON.' },
  BAD_REQUEST: { status: 400, detail: 'The request could not be understood.' },
  UNAUTHORIZED: { status: 401, detail: 'Sign in, or send an API key in the X-API-Key header.' },
  FORBIDDEN: { status: 403, detail: 'You are not allowed to do this.' },
  NOT_FOUND: { status: 404, detail: NO_ROUTE_DETAIL },
  METHOD_NOT_SUPPORTED: { status: 405, detail: 'This method is not allowed on this route.' },
  CONFLICT: { status: 409, detail: 'The request conflicts with the current state.' },
  PAYLOAD_TOO_LARGE: { status: 413, detail: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, detail: 'Send the body as JSON with `Content-Type: application/json`.' },
  UNPROCESSABLE_CONTENT: { status: 422, detail: 'The request is invalid.' },
  TOO_MANY_REQUESTS: { status: 429, detail: 'Too many requests.' },
};

/**
 * Maps any error to the service's one error body. Domain errors carry their own sentence; anything
 * unexpected becomes a 500 that says nothing about internals.
 */
export function toProblem(error: unknown): ProblemResponse {
  const cause = error instanceof TRPCError ? (error.cause ?? error) : error;
  if (cause instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (cause.retryAfterSeconds !== undefined) headers['Retry-After'] = String(cause.retryAfterSeconds);
    if (cause.kind === 'validation' && cause.fields) return { ...validationProblem(cause.fields), headers };
    const body: Problem = { detail: cause.message };
    if (cause.code) body.code = cause.code;
    if (cause.fields) body.errors = cause.fields.slice(0, MAX_LISTED_ERRORS);
    if (cause.dataSource) Object.assign(body, cause.dataSource);
    return { status: statusOfKind[cause.kind], body, headers };
  }
  if (isZodError(cause)) return validationProblem(fieldErrorsOf(cause.issues));
  if (error instanceof TRPCError) {
    const known = TRPC_STATUS[error.code];
    if (known) {
      // Messages we wrote ourselves are kept; the adapters' generic ones are replaced by ours.
      const generic = !error.message || /^(Not found|Failed to parse request body|Missing content-type header|Unsupported content-type)/.test(error.message) || error.message === error.code;
      const detail = error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'PARSE_ERROR' || generic ? known.detail : error.message;
      return { status: known.status, body: { detail }, headers: {} };
    }
  }
  return { status: 500, body: { detail: 'Something went wrong on our side. The error was logged; try again.' }, headers: {} };
}
