import type { Context as HonoContext } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Logger as PinoLogger } from 'pino';
import { toProblem, type ProblemResponse } from '@aqs/api';
import type { Principal } from '@aqs/core';

/** What every request carries through the app's middleware and routes. */
export type AppEnv = {
  Bindings: Partial<HttpBindings>;
  /** bodyText: the request body as read once by the guard (size, UTF-8), for the REST handler to parse. */
  /** refusal: the code of a 429 answered (for the metrics). */
  Variables: {
    requestId: string;
    /** The client's address for per-client limits (the peer, or what a trusted proxy says). */
    clientAddress: string;
    principal: Principal | undefined;
    log: PinoLogger;
    bodyText: string;
    /** What refused the 429s answered (one for a request, one per refused call of a tRPC batch), for the metrics. */
    refusals?: string[];
    /** route: the documented path of the REST route that served the request (for the metrics). */
    route?: string;
  };
};

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function problemResponse(c: HonoContext<AppEnv>, problem: ProblemResponse): Response {
  noteRefusal(c, problem.refusal);
  for (const [name, value] of Object.entries(problem.headers)) c.header(name, value);
  return c.json(problem.body, problem.status as 400);
}

export function noRoute(c: HonoContext<AppEnv>) {
  return { detail: `No route ${c.req.method} ${c.req.path}. The API reference is at /docs.` };
}

/**
 * Server faults are logged at error with the stack; client errors (4xx) at info, as one bounded line
 * without a stack or the input, so a huge bad request cannot become a huge log.
 */
export function logProblem(log: PinoLogger, error: unknown): void {
  const problem = toProblem(error);
  if (problem.status >= 500) log.error({ err: error }, 'procedure failed');
  else log.info({ status: problem.status, detail: problem.body.detail.slice(0, 300) }, 'request refused');
}

/** Notes what refused a 429 (a quota's code, or the limit) for the metrics. */
export function noteRefusal(c: HonoContext<AppEnv>, refusal: string | undefined): void {
  if (refusal) c.set('refusals', [...(c.get('refusals') ?? []), refusal]);
}
