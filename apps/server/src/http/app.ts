import { Hono, type Context as HonoContext } from 'hono';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Logger as PinoLogger } from 'pino';
import type { RunDeps, StreamLeases } from '@aqs/core';
import type { Store } from '@aqs/db';
import { appRouter, toProblem, type Context as ApiContext } from '@aqs/api';
import { clearSessionCookie, serializeSessionCookie, sessionCookieSettings } from './cookies.ts';
import { mountDocs } from './docs.ts';
import { logProblem, noRoute, noteRefusal, problemResponse, type AppEnv } from './env.ts';
import { metricsMiddleware, mountMetrics, type ServiceMetrics } from '../metrics.ts';
import { createGuard } from './guard.ts';
import { requestLog } from './request-log.ts';
import { restRoute } from './rest.ts';
import { createRunStreamHandler } from './run-stream.ts';
import { clientAddressOf } from './client-address.ts';
import { mountFileRoutes } from './file-routes.ts';
import { mountDiscoveryStreams } from './discovery-streams.ts';
import { mountWeb } from './web.ts';
import { mountBillingWebhook } from './billing-webhook.ts';
import type { StripeBilling } from '../billing.ts';

export { MAX_BATCH_PROCEDURES } from './guard.ts';

export interface AppDeps {
  core: RunDeps;
  sseHeartbeatMs: number;
  store: Store;
  logger: PinoLogger;
  appUrl: string;
  rateLimitPerMinute: number;
  anonRateLimitPerMinute: number;
  /** The OpenAPI document (built on first call, then the same one). */
  openApiDocument: () => Promise<object>;
  /** The built web app served at `/`. */
  webDistDir: string;
  /** Stripe, when billing is configured (the webhook verifies with it). */
  stripe?: StripeBilling | undefined;
  metrics: ServiceMetrics;
  /** METRICS_TOKEN: `GET /metrics` asks for it when set. */
  metricsToken?: string | undefined;
  /** Open streams per caller, counted in the store (the cap holds across instances). */
  streamLeases: StreamLeases;
  /** TRUSTED_PROXIES: peers whose `X-Forwarded-For` names the client for per-client limits. */
  trustedProxies: string[];
  /** This instance's stop: `draining` when it begins, `stopping` when open streams must end now. */
  shutdown: { draining: AbortSignal; stopping: AbortSignal };
}

const API_PREFIXES = ['/api/', '/auth/', '/trpc/'];

/**
 * The whole HTTP surface on one Hono app: the request log on every response, the guard before every
 * API route, tRPC for the web app, REST for everyone else (the same procedures), the run stream,
 * health, the API reference and the web app.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const cookie = sessionCookieSettings(deps.appUrl);
  const appOrigin = new URL(deps.appUrl).origin;

  const clientAddress = clientAddressOf(deps.trustedProxies);
  app.use('*', async (c, next) => {
    c.set('clientAddress', clientAddress(c));
    await next();
  });
  app.use('*', requestLog(deps.logger));
  // While draining, no connection is kept for another request: the client's next one goes elsewhere.
  app.use('*', async (c, next) => {
    await next();
    if (deps.shutdown.draining.aborted) c.header('Connection', 'close');
  });
  app.use('*', metricsMiddleware(deps.metrics));

  app.onError((error, c) => {
    const problem = toProblem(error);
    // The client may still be sending the rest of an oversize body: this connection cannot be reused.
    if (problem.status === 413) c.header('Connection', 'close');
    if (problem.status >= 500) c.get('log')?.error({ err: error }, 'unhandled error');
    return problemResponse(c, problem);
  });

  app.notFound((c) => c.json(noRoute(c), 404));

  // Before the guard: Stripe's callback is authenticated by its signature alone, the metrics by their
  // token (and neither counts against a rate limit).
  mountBillingWebhook(app, deps.core, deps.stripe);
  mountMetrics(app, deps.metrics, deps.metricsToken);

  const guarded = createGuard({
    core: deps.core,
    cookieName: cookie.name,
    appOrigin,
    rateLimitPerMinute: deps.rateLimitPerMinute,
    anonRateLimitPerMinute: deps.anonRateLimitPerMinute,
  });
  for (const prefix of API_PREFIXES) app.use(`${prefix}*`, guarded);

  const contextFor = (c: HonoContext<AppEnv>, setCookie: (value: string) => void): ApiContext => ({
    deps: deps.core,
    principal: c.get('principal'),
    requestId: c.get('requestId'),
    userAgent: c.req.header('user-agent') ?? null,
    clientAddress: c.get('clientAddress'),
    signal: () => c.req.raw.signal,
    session: {
      set: (token, expiresAt) => setCookie(serializeSessionCookie(cookie, token, expiresAt)),
      clear: () => setCookie(clearSessionCookie(cookie)),
    },
    response: {},
  });

  const logFailure = (c: HonoContext<AppEnv>, error: unknown) => logProblem(c.get('log'), error);

  // tRPC for the web app (batching on: a batch is one request against the rate limit).
  app.all('/trpc/*', async (c) => {
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: c.req.raw,
      router: appRouter,
      allowMethodOverride: false,
      createContext: ({ resHeaders }) => contextFor(c, (value) => resHeaders.append('Set-Cookie', value)),
      onError: ({ error }) => logFailure(c, error),
      responseMeta: ({ ctx, errors, info }) => {
        for (const error of errors) noteRefusal(c, toProblem(error).refusal);
        if (errors.length > 0) {
          const problem = toProblem(errors[0]);
          // One call answers with its problem's status; a batch keeps tRPC's (207 when they differ).
          const single = (info?.calls.length ?? 1) === 1;
          return { status: single ? problem.status : undefined, headers: problem.headers };
        }
        return ctx?.response.status ? { status: ctx.response.status } : {};
      },
    });
    return c.newResponse(res.body, res);
  });

  // REST: the same procedures, called in process with the body parsed once and validated strictly.
  const rest = restRoute(contextFor);
  // Plain routes the REST adapter cannot express come before its catch-all.
  const runStream = createRunStreamHandler({
    deps: deps.core,
    heartbeatMs: deps.sseHeartbeatMs,
    maxStreamsPerPrincipal: 3,
    leases: deps.streamLeases,
    stopping: deps.shutdown.stopping,
    trackStream: () => deps.metrics.streamOpened('run'),
  });
  app.post('/api/v1/run/stream', async (c) => runStream(c, c.get('principal'), c.get('bodyText')));
  mountFileRoutes(app, deps.core);
  mountDiscoveryStreams(app, deps.core, deps.sseHeartbeatMs, deps.streamLeases, () =>
    deps.metrics.streamOpened('discovery'),
  );

  app.all('/api/*', rest);
  app.all('/auth/*', rest);

  app.get('/healthz', (c) => c.json({ status: 'ok' as const }));
  app.get('/readyz', async (c) => {
    // A load balancer stops sending here while the requests in flight finish.
    if (deps.shutdown.draining.aborted)
      return c.json({ detail: 'This instance is shutting down.' }, 503, { 'Retry-After': '1' });
    try {
      await deps.store.ping();
      return c.json({ status: 'ok' as const });
    } catch (error) {
      c.get('log').warn({ err: error }, 'readiness check failed');
      return c.json({ detail: 'The app store is not reachable.' }, 503);
    }
  });
  app.get('/openapi.json', async (c) => c.json(await deps.openApiDocument()));
  mountDocs(app);
  mountWeb(app, deps.webDistDir);
  return app;
}
