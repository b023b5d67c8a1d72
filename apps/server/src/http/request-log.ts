import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger as PinoLogger } from 'pino';
import type { AppEnv } from './env.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * On every response: a request id (a sane incoming `X-Request-Id` is kept), the security headers
 * and one access log line; methods nothing here serves are a 405 before anything else runs.
 */
export function requestLog(logger: PinoLogger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const log = logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    c.set('principal', undefined);
    const started = performance.now();
    // Set before the response is made, so the context puts them on it as it makes it: set on a made
    // response, they would have it copied whole (its body as a new stream) on every request.
    const setHeaders = () => {
      c.header('X-Request-Id', requestId);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'same-origin');
      c.header('X-Frame-Options', 'DENY');
    };
    setHeaders();
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
    // A response made without the context (a handler returning its own) has not got them yet.
    if (c.res.headers.get('X-Request-Id') !== requestId) setHeaders();
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
  };
}
