import type { Context as HonoContext } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { TRPCError } from '@trpc/server';
import type { z } from 'zod';
import { appRouter, listProcedures, toProblem, type Context as ApiContext } from '@aqs/api';
import { DomainError } from '@aqs/core';
import { logProblem, noRoute, problemResponse, type AppEnv } from './env.ts';

interface RestRoute {
  method: string;
  /** The documented path (`/api/v1/connections/{id}`). */
  template: string;
  pattern: RegExp;
  /** The tRPC path (`connections.get`), called through a server-side caller. */
  procedure: string;
  input: z.ZodType | undefined;
  successStatus: number | undefined;
}

/** How a REST call ended: the JSON to send (or nothing) and its status and headers. */
export interface RestOutcome {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** GET and DELETE take their input from the path and the query string; every other method from a JSON body. */
export function takesBody(method: string): boolean {
  return method !== 'GET' && method !== 'DELETE' && method !== 'HEAD';
}

function routesOf(): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const { path: name, meta, input } of listProcedures()) {
    const openapi = meta?.openapi;
    if (!openapi) continue;
    const segments = openapi.path
      .split('/')
      .filter(Boolean)
      .map((segment) => {
        const parameter = /^\{(\w+)\}$/.exec(segment);
        return parameter ? `(?<${parameter[1]}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      });
    const pattern = new RegExp(`^/${segments.join('/')}$`, 'i');
    routes.push({
      method: openapi.method,
      template: openapi.path,
      pattern,
      procedure: name,
      input,
      successStatus: meta?.successStatus,
    });
  }
  return routes;
}

// ---------- query-string coercion, by the input schema ----------

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** The schema under optional/default/nullable/pipe wrappers. */
function bare(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (;;) {
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return def;
    def = defOf(inner);
  }
}

/**
 * A query-string or path value read as the type its field expects: numbers and booleans are typed
 * only when the text says exactly that (`2`, `true`); anything else stays text, so the input schema
 * refuses it with the field's name. JSON bodies are never coerced.
 */
function coerceText(def: Def, text: string): unknown {
  if (def.type === 'number' || def.type === 'int') return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (def.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

function fromQuery(
  input: z.ZodType | undefined,
  params: URLSearchParams,
  pathInput: Record<string, string>,
): Record<string, unknown> {
  const shape = input ? bare(input).shape : undefined;
  // No prototype: a parameter named `__proto__` is a key like any other (and refused by the schema).
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const keys = new Set(params.keys());
  for (const key of keys) {
    const values = params.getAll(key);
    const def = shape?.[key] ? bare(shape[key]) : undefined;
    if (def?.type === 'array') {
      const element = def.element ? bare(def.element) : undefined;
      out[key] = values.map((v) => (element ? coerceText(element, v) : v));
    } else if (values.length === 1) {
      out[key] = def ? coerceText(def, values[0]!) : values[0];
    } else {
      // A parameter that takes one value, given several: the schema refuses it, naming the parameter.
      out[key] = values;
    }
  }
  for (const [key, text] of Object.entries(pathInput)) {
    const def = shape?.[key] ? bare(shape[key]) : undefined;
    out[key] = def ? coerceText(def, text) : text;
  }
  return out;
}

function decodedGroups(match: RegExpExecArray): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(match.groups ?? {})) {
    try {
      out[key] = decodeURIComponent(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}

/**
 * The REST API: each procedure with an `openapi` meta, called in process through a server-side
 * caller. The HTTP layer has read the body once (size, UTF-8) and hands over the parsed JSON object;
 * the input schemas then validate it strictly (no coercion of JSON values). A procedure's error is
 * thrown to the caller, which answers with the one problem body (`toProblem`).
 */
let documentedRoutes: RestRoute[] | undefined;

/** The documented path of the REST route a method and path reach (for the metrics), if any. */
export function restTemplateOf(method: string, path: string): string | undefined {
  documentedRoutes ??= routesOf();
  const normalized = `/${path.replace(/^\/|\/$/g, '')}`;
  const wanted = method === 'HEAD' ? 'GET' : method;
  return documentedRoutes.find((route) => route.method === wanted && route.pattern.test(normalized))
    ?.template;
}

export function createRestApi() {
  const routes = routesOf();
  const createCaller = (appRouter as unknown as { createCaller(ctx: ApiContext): Record<string, unknown> })
    .createCaller;

  /** The route for a method and path; `allowed` when the path exists under other methods only; null when it does not. */
  function match(
    requested: string,
    path: string,
  ): { route: RestRoute; pathInput: Record<string, string> } | { allowed: string[] } | null {
    // HEAD is GET without the body (Node's server sends none for HEAD).
    const method = requested === 'HEAD' ? 'GET' : requested;
    const normalized = `/${path.replace(/^\/|\/$/g, '')}`;
    const allowed: string[] = [];
    for (const route of routes) {
      const found = route.pattern.exec(normalized);
      if (!found) continue;
      if (route.method === method) return { route, pathInput: decodedGroups(found) };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { allowed } : null;
  }

  async function call(route: RestRoute, input: unknown, ctx: ApiContext): Promise<unknown> {
    let target: unknown = createCaller(ctx);
    for (const segment of route.procedure.split('.')) target = (target as Record<string, unknown>)[segment];
    return (target as (input: unknown) => Promise<unknown>)(input);
  }

  /**
   * Serves one REST call. `readBody` gives the parsed JSON object of a method that takes one
   * (undefined when none was sent) or throws why the body is refused; GET and DELETE read the
   * query string.
   */
  async function handle(
    request: {
      method: string;
      url: URL;
      readBody: () => Record<string, unknown> | undefined;
      /** Told the documented path of the route found. */
      onRoute?: (template: string) => void;
    },
    ctx: ApiContext,
  ): Promise<RestOutcome | null> {
    const found = match(request.method, request.url.pathname);
    if (found === null) return null;
    if ('route' in found) request.onRoute?.(found.route.template);
    if ('allowed' in found) {
      const methods = new Set(found.allowed);
      if (methods.has('GET')) methods.add('HEAD');
      const allow = [...methods].join(', ');
      return {
        status: 405,
        headers: { Allow: allow },
        body: { detail: `Method ${request.method} is not allowed on ${request.url.pathname}. Use ${allow}.` },
      };
    }
    // The body is read only once the route is known: an unknown route is a 404 whatever was sent.
    const { route, pathInput } = found;
    const input = takesBody(route.method)
      ? { ...(request.readBody() ?? {}), ...pathInput }
      : fromQuery(route.input, request.url.searchParams, pathInput);
    const data = await call(
      route,
      route.input && defOf(route.input).type === 'void' ? undefined : input,
      ctx,
    );
    return { status: ctx.response.status ?? route.successStatus ?? 200, headers: {}, body: data };
  }

  return { handle, match };
}

/** A REST body: a JSON object, parsed once; anything else is refused naming the body. */
export function parseJsonObjectBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('bad_request', 'The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DomainError('validation', 'The request body must be a JSON object.', {
      fields: [{ field: 'body', message: 'must be a JSON object such as {"name": "value"}' }],
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The Hono handler of `/api/*` and `/auth/*`: the JSON body (when the method takes one) parsed from
 * the text the guard read, the procedure called, its answer or its problem sent.
 */
export function restRoute(
  contextFor: (c: HonoContext<AppEnv>, setCookie: (value: string) => void) => ApiContext,
) {
  const restApi = createRestApi();
  return async (c: HonoContext<AppEnv>) => {
    const method = c.req.method;
    try {
      const readBody = (): Record<string, unknown> | undefined => {
        const text = c.get('bodyText');
        const type = c.req.header('content-type') ?? '';
        if (text.trim() !== '' && !type.toLowerCase().startsWith('application/json')) {
          throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content-type' });
        }
        return parseJsonObjectBody(text);
      };
      const ctx = contextFor(c, (value) => c.header('Set-Cookie', value, { append: true }));
      const outcome = await restApi.handle(
        { method, url: new URL(c.req.url), readBody, onRoute: (template) => c.set('route', template) },
        ctx,
      );
      if (outcome === null) return c.json(noRoute(c), 404);
      for (const [name, value] of Object.entries(outcome.headers)) c.header(name, value);
      return outcome.body === undefined
        ? c.body(null, outcome.status as ContentfulStatusCode)
        : c.json(outcome.body, outcome.status as ContentfulStatusCode);
    } catch (error) {
      logProblem(c.get('log'), error);
      return problemResponse(c, toProblem(error));
    }
  };
}
