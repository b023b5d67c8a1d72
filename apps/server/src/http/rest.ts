import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { appRouter, toProblem, type Context as ApiContext } from '@aqs/api';

/** The response shim the node-http handler writes to; it also carries the request's API context. */
interface ResponseShim {
  statusCode: number;
  apiContext: ApiContext;
  setHeader(name: string, value: string | string[]): void;
  end(body?: string): void;
}

/**
 * Serves the router as REST (trpc-to-openapi). The handler is built once: the package's fetch adapter
 * builds a new one per request, and outside production each build regenerates the whole OpenAPI
 * document. The body arrives already buffered and size-checked by the HTTP layer.
 */
export function createRestHandler(onError: (error: unknown) => void) {
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ res }: { res: ResponseShim }) => res.apiContext,
    onError: ({ error }: { error: unknown }) => onError(error),
    responseMeta: ({ ctx, errors }: { ctx?: ApiContext; errors: unknown[] }) => {
      if (errors.length > 0) {
        const problem = toProblem(errors[0]);
        return { status: problem.status, headers: problem.headers };
      }
      return ctx?.response.status ? { status: ctx.response.status } : {};
    },
  } as never) as unknown as (req: Request, res: ResponseShim) => Promise<void>;

  return (request: Request, bodyText: string, makeContext: (setHeader: ResponseShim['setHeader']) => ApiContext) =>
    new Promise<Response>((resolve, reject) => {
      let parsed: { ok: true; value: unknown } | { ok: false; error: unknown } = { ok: true, value: undefined };
      if (bodyText !== '') {
        try {
          parsed = { ok: true, value: JSON.parse(bodyText) };
        } catch (error) {
          parsed = { ok: false, error };
        }
      }
      const req = new Proxy(request, {
        get(target, prop) {
          if (prop === 'body') {
            if (!parsed.ok) throw new TRPCError({ code: 'PARSE_ERROR', message: 'Failed to parse request body', cause: parsed.error as Error });
            return parsed.value;
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const headers = new Headers();
      const res: ResponseShim = {
        statusCode: 200,
        apiContext: undefined as unknown as ApiContext,
        setHeader(name, value) {
          if (typeof value === 'string') headers.set(name, value);
          else for (const v of value) headers.append(name, v);
        },
        end(body) {
          resolve(new Response(body ?? null, { status: res.statusCode, headers }));
        },
      };
      res.apiContext = makeContext((name, value) => res.setHeader(name, value));
      handler(req, res).catch(reject);
    });
}
