import { initTRPC, TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context.ts';
import { toProblem } from './errors.ts';

export type Meta = OpenApiMeta<{
  /** Success status when it is not 200; also written into the OpenAPI document. */
  successStatus?: 201 | 202;
  /**
   * The procedure may open a connection to a data source (test, introspect, run, discover, refresh):
   * inside a tRPC batch it counts as one request of its own against the rate limit.
   */
  reachesDataSource?: boolean;
  /** With `reachesDataSource`: the answer itself reports a data-source failure (test, run) instead of a 502. */
  dataSourceFailureInBody?: boolean;
  /** Error statuses the procedure answers beyond those its shape implies (documented in OpenAPI). */
  extraErrors?: ('409' | '503')[];
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients (the web app) get the problem body REST clients get, under the error's own code
    // (NOT_FOUND, TOO_MANY_REQUESTS, ...) rather than INTERNAL_SERVER_ERROR for every domain error.
    errorFormatter: ({ error }) => {
      const problem = toProblem(error);
      return {
        message: problem.body.detail,
        code: TRPC_ERROR_CODES_BY_KEY[problem.code],
        data: { code: problem.code, httpStatus: problem.status },
        problem: problem.body,
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;

/**
 * A failed procedure leaves with the tRPC code its problem maps to (a domain error's NOT_FOUND,
 * CONFLICT, ...; a refused input's UNPROCESSABLE_CONTENT), for server-side callers as for HTTP ones,
 * rather than tRPC's INTERNAL_SERVER_ERROR wrapping.
 */
function withProblemCode<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (result.ok) return result;
  const problem = toProblem(result.error);
  if (problem.code === result.error.code) return result;
  return {
    ...result,
    error: new TRPCError({
      code: problem.code,
      message: problem.body.detail,
      cause: result.error.cause ?? result.error,
    }),
  };
}

// One middleware per procedure (each level copies the call's options again): the success status
// (201, 202) for the adapters, the problem's code on failure, and for `authedProcedure` the principal.

export const publicProcedure = t.procedure.use(async ({ ctx, meta, next }) => {
  if (meta?.successStatus) ctx.response.status = meta.successStatus;
  return withProblemCode(await next());
});

export const authedProcedure = t.procedure.use(async ({ ctx, meta, next }) => {
  const principal = ctx.principal;
  if (!principal)
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'Sign in, or send an API key in the X-API-Key header.',
    });
  if (meta?.successStatus) ctx.response.status = meta.successStatus;
  return withProblemCode(await next({ ctx: { principal } }));
});
