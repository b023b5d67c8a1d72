import { Hono, type Context as HonoContext } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { HttpBindings } from '@hono/node-server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Logger as PinoLogger } from 'pino';
import { accounts, apiKeys, DomainError, hitFixedWindow, type Principal, type RunDeps } from '@aqs/core';
import type { Store } from '@aqs/db';
import { TRPCError } from '@trpc/server';
import {
  appRouter,
  procedureMeta,
  toProblem,
  type Context as ApiContext,
  type ProblemResponse,
} from '@aqs/api';
import { randomUUID } from 'node:crypto';
import { readBodyText, withBody } from './body.ts';
import { assertSafeJsonText, assertSafeUrl } from './input-text.ts';
import { clearSessionCookie, readCookie, serializeSessionCookie, sessionCookieSettings } from './cookies.ts';
import { mountDocs } from './docs.ts';
import { createRestApi, parseJsonObjectBody, takesBody } from './rest.ts';
import { createRunStreamHandler } from './run-stream.ts';
import { mountWeb } from './web.ts';

export interface AppDeps {
  core: RunDeps;
  sseHeartbeatMs: number;
  store: Store;
  logger: PinoLogger;
  appUrl: string;
  rateLimitPerMinute: number;
  anonRateLimitPerMinute: number;
  openApiDocument: object;
  /** The built web app served at `/`. */
  webDistDir: string;
}

type Env = {
  Bindings: Partial<HttpBindings>;
  /** bodyText: the request body as read once by the guard (size, UTF-8), for the REST handler to parse. */
  Variables: { requestId: string; principal: Principal | undefined; log: PinoLogger; bodyText: string };
};

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const API_PREFIXES = ['/api/', '/auth/', '/trpc/'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Procedures one tRPC batch may hold; a batch is one request for the web app's sake, but a bounded one. */
export const MAX_BATCH_PROCEDURES = 10;

/**
 * What a request costs against the rate limit. A REST call and a tRPC batch are one request, except
 * that each procedure that reaches a data source (test, introspect, run, ...) counts as one of its own.
 */
function requestCost(path: string): { procedures: number; cost: number } {
  if (!path.startsWith('/trpc/')) return { procedures: 1, cost: 1 };
  const names = path.slice('/trpc/'.length).split(',');
  const dataSource = names.filter((name) => procedureMeta(name)?.reachesDataSource === true).length;
  return { procedures: names.length, cost: Math.max(1, dataSource + (dataSource < names.length ? 1 : 0)) };
}

function problemResponse(c: HonoContext<Env>, problem: ProblemResponse): Response {
  for (const [name, value] of Object.entries(problem.headers)) c.header(name, value);
  return c.json(problem.body, problem.status as 400);
}

function noRoute(c: HonoContext<Env>) {
  return { detail: `No route ${c.req.method} ${c.req.path}. The API reference is at /docs.` };
}

function originOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * Server faults are logged at error with the stack; client errors (4xx) at info, as one bounded line
 * without a stack or the input, so a huge bad request cannot become a huge log.
 */
function logProblem(log: PinoLogger, error: unknown): void {
  const problem = toProblem(error);
  if (problem.status >= 500) log.error({ err: error }, 'procedure failed');
  else log.info({ status: problem.status, detail: problem.body.detail.slice(0, 300) }, 'request refused');
}

export function createApp(deps: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  const cookie = sessionCookieSettings(deps.appUrl);
  const appOrigin = new URL(deps.appUrl).origin;

  // Request id, access log and security headers on every response.
  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const log = deps.logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    c.set('principal', undefined);
    const started = performance.now();
    // TRACE, TRACK, CONNECT and made-up methods: nothing here serves them (undici refuses some outright).
    if (!SERVED_METHODS.includes(c.req.method)) {
      c.res = c.json(
        {
          detail: `Method ${c.req.method.slice(0, 20)} is not allowed. Use one of ${SERVED_METHODS.join(', ')}.`,
        },
        405,
        { Allow: SERVED_METHODS.join(', ') },
      );
    } else {
      await next();
    }
    c.header('X-Request-Id', requestId);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    c.header('X-Frame-Options', 'DENY');
    const principal = c.get('principal');
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        userId: principal?.userId,
        auth: principal?.authMethod,
      },
      'request',
    );
  });

  app.onError((error, c) => {
    const problem = toProblem(error);
    // The client may still be sending the rest of an oversize body: this connection cannot be reused.
    if (problem.status === 413) c.header('Connection', 'close');
    if (problem.status >= 500) c.get('log')?.error({ err: error }, 'unhandled error');
    return problemResponse(c, problem);
  });

  app.notFound((c) => c.json(noRoute(c), 404));

  const guarded = async (c: HonoContext<Env>, next: () => Promise<void>) => {
    // 0. The URL as sent: valid UTF-8, no NUL or lone surrogate; a tRPC batch within its bound.
    assertSafeUrl(c.req.url);
    const { procedures, cost } = requestCost(c.req.path);
    if (procedures > MAX_BATCH_PROCEDURES) {
      throw new DomainError(
        'payload_too_large',
        `A tRPC batch may hold at most ${MAX_BATCH_PROCEDURES} procedures; this one has ${procedures}. Split it into smaller batches.`,
      );
    }

    // 1. Read the body once, within the size limit and as valid UTF-8. REST parses this text; tRPC's
    //    adapter reads it from a buffered copy of the request.
    c.set('bodyText', '');
    if (!SAFE_METHODS.has(c.req.method)) {
      const text = await readBodyText(c.req.raw);
      assertSafeJsonText(text);
      c.set('bodyText', text);
      if (c.req.path.startsWith('/trpc/')) c.req.raw = withBody(c.req.raw, text);
    }

    // 2. Authenticate. An API key wins over a cookie; an invalid key is a 401 with no fallback.
    const apiKey = c.req.header('x-api-key');
    const sessionToken = readCookie(c.req.header('cookie'), cookie.name);
    let principal: Principal | undefined;
    if (apiKey !== undefined) {
      principal = await apiKeys.principalFromApiKey(deps.core, apiKey.trim());
    } else if (sessionToken) {
      principal = await accounts.principalFromSession(deps.core, sessionToken);
    }
    c.set('principal', principal);

    // 2b. Callers without a credential (or with a bad one) are limited per client socket address.
    if (!principal) {
      const address = c.env?.incoming?.socket.remoteAddress ?? 'unknown';
      const hit = await hitFixedWindow(deps.core.db, `anon:addr:${address}`, deps.anonRateLimitPerMinute, 60);
      if (!hit.allowed) {
        c.header('Retry-After', String(hit.resetInSeconds));
        return c.json(
          {
            detail: `Too many requests without a credential from your address: ${hit.limit} per minute. Try again in ${hit.resetInSeconds} seconds, or sign in.`,
          },
          429,
        );
      }
    }
    if (apiKey !== undefined && !principal) {
      throw new DomainError(
        'unauthorized',
        'The API key in X-API-Key is invalid or has been revoked. Ask the operator for a new one.',
      );
    }

    // 3. CSRF: a state-changing request riding on the cookie must come from our own origin.
    if (!SAFE_METHODS.has(c.req.method) && apiKey === undefined) {
      const origin = originOf(c.req.header('origin')) ?? originOf(c.req.header('referer'));
      const host = c.req.header('host');
      const allowed =
        origin !== undefined &&
        (origin === appOrigin || (host !== undefined && new URL(origin).host === host));
      if (origin !== undefined && !allowed) {
        throw new DomainError(
          'forbidden',
          'Cross-origin request refused: cookie-authenticated changes must come from the app itself.',
        );
      }
      if (origin === undefined && sessionToken !== undefined) {
        throw new DomainError(
          'forbidden',
          'Request refused: a cookie-authenticated change must carry an Origin header. Use an API key for server-to-server calls.',
        );
      }
    }

    // 4. Rate limit every authenticated request, per API key or per user.
    if (principal) {
      const key =
        principal.authMethod === 'api_key' ? `api:key:${principal.apiKeyId}` : `api:user:${principal.userId}`;
      const hit = await hitFixedWindow(deps.core.db, key, deps.rateLimitPerMinute, 60, new Date(), cost);
      c.header('X-RateLimit-Limit', String(hit.limit));
      c.header('X-RateLimit-Remaining', String(hit.remaining));
      if (!hit.allowed) {
        c.header('Retry-After', String(hit.resetInSeconds));
        return c.json(
          {
            detail: `Rate limit exceeded: ${hit.limit} requests per minute. Try again in ${hit.resetInSeconds} seconds.`,
          },
          429,
        );
      }
    }
    await next();
  };
  for (const prefix of API_PREFIXES) app.use(`${prefix}*`, guarded);

  const contextFor = (c: HonoContext<Env>, setCookie: (value: string) => void): ApiContext => ({
    deps: deps.core,
    principal: c.get('principal'),
    requestId: c.get('requestId'),
    userAgent: c.req.header('user-agent') ?? null,
    clientAddress: c.env?.incoming?.socket.remoteAddress ?? 'unknown',
    signal: c.req.raw.signal,
    session: {
      set: (token, expiresAt) => setCookie(serializeSessionCookie(cookie, token, expiresAt)),
      clear: () => setCookie(clearSessionCookie(cookie)),
    },
    response: {},
  });

  const logFailure = (c: HonoContext<Env>, error: unknown) => logProblem(c.get('log'), error);

  // tRPC for the web app (batching on: a batch is one request against the rate limit).
  app.all('/trpc/*', async (c) => {
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: c.req.raw,
      router: appRouter,
      allowMethodOverride: false,
      createContext: ({ resHeaders }) => contextFor(c, (value) => resHeaders.append('Set-Cookie', value)),
      onError: ({ error }) => logFailure(c, error),
      responseMeta: ({ ctx, errors }) => {
        if (errors.length > 0) {
          const problem = toProblem(errors[0]);
          return { status: errors.length === 1 ? problem.status : undefined, headers: problem.headers };
        }
        return ctx?.response.status ? { status: ctx.response.status } : {};
      },
    });
    return c.newResponse(res.body, res);
  });

  // REST: the same procedures, called in process with the body parsed once and validated strictly.
  const restApi = createRestApi();
  const rest = async (c: HonoContext<Env>) => {
    const method = c.req.method;
    let body: Record<string, unknown> | undefined;
    try {
      if (takesBody(method)) {
        const text = c.get('bodyText');
        const type = c.req.header('content-type') ?? '';
        if (text.trim() !== '' && !type.toLowerCase().startsWith('application/json')) {
          throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content-type' });
        }
        body = parseJsonObjectBody(text);
      }
      const outcome = await restApi.handle(
        { method, url: new URL(c.req.url), body },
        contextFor(c, (value) => c.header('Set-Cookie', value, { append: true })),
      );
      if (outcome === null) return c.json(noRoute(c), 404);
      for (const [name, value] of Object.entries(outcome.headers)) c.header(name, value);
      return outcome.body === undefined
        ? c.body(null, outcome.status as ContentfulStatusCode)
        : c.json(outcome.body, outcome.status as ContentfulStatusCode);
    } catch (error) {
      logFailure(c, error);
      return problemResponse(c, toProblem(error));
    }
  };
  // Plain routes the REST adapter cannot express come before its catch-all.
  const runStream = createRunStreamHandler({
    deps: deps.core,
    heartbeatMs: deps.sseHeartbeatMs,
    maxStreamsPerPrincipal: 3,
  });
  app.post('/api/v1/run/stream', async (c) => runStream(c, c.get('principal'), c.get('bodyText')));

  app.all('/api/*', rest);
  app.all('/auth/*', rest);

  app.get('/healthz', (c) => c.json({ status: 'ok' as const }));
  app.get('/readyz', async (c) => {
    try {
      await deps.store.ping();
      return c.json({ status: 'ok' as const });
    } catch (error) {
      c.get('log').warn({ err: error }, 'readiness check failed');
      return c.json({ detail: 'The app store is not reachable.' }, 503);
    }
  });
  app.get('/openapi.json', (c) => c.json(deps.openApiDocument));
  mountDocs(app);
  mountWeb(app, deps.webDistDir);
  return app;
}
