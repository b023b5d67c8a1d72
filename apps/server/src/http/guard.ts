import type { Context as HonoContext, MiddlewareHandler } from 'hono';
import { procedureMeta } from '@aqs/api';
import { authenticate, DomainError, hitFixedWindow, type Credential, type RunDeps } from '@aqs/core';
import { readBodyText, withBody } from './body.ts';
import { readCookie } from './cookies.ts';
import { noteRefusal, SAFE_METHODS, type AppEnv } from './env.ts';
import { assertSafeJsonText, assertSafeUrl } from './input-text.ts';

/** Procedures one tRPC batch may hold; a batch is one request for the web app's sake, but a bounded one. */
export const MAX_BATCH_PROCEDURES = 10;

export interface GuardOptions {
  core: RunDeps;
  /** The session cookie's name. */
  cookieName: string;
  /** APP_URL's origin: cookie-authenticated changes must come from it (or the request's own host). */
  appOrigin: string;
  rateLimitPerMinute: number;
  anonRateLimitPerMinute: number;
}

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

function originOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/** 0. The URL as sent: valid UTF-8, no NUL or lone surrogate; a tRPC batch within its bound. Returns its cost. */
function checkUrl(c: HonoContext<AppEnv>): number {
  assertSafeUrl(c.req.url);
  const { procedures, cost } = requestCost(c.req.path);
  if (procedures > MAX_BATCH_PROCEDURES) {
    throw new DomainError(
      'payload_too_large',
      `A tRPC batch may hold at most ${MAX_BATCH_PROCEDURES} procedures; this one has ${procedures}. Split it into smaller batches.`,
    );
  }
  return cost;
}

/**
 * 1. Reads the body once, within the size limit and as valid UTF-8. REST parses this text; tRPC's
 * adapter reads it from a buffered copy of the request.
 */
async function readBody(c: HonoContext<AppEnv>): Promise<void> {
  c.set('bodyText', '');
  if (SAFE_METHODS.has(c.req.method)) return;
  const text = await readBodyText(c.req.raw);
  assertSafeJsonText(text);
  c.set('bodyText', text);
  if (c.req.path.startsWith('/trpc/')) c.req.raw = withBody(c.req.raw, text);
}

/** 2. Who is calling: an API key wins over a cookie (an invalid key is refused after the anonymous limit). */
function credentialOf(apiKey: string | undefined, sessionToken: string | undefined): Credential | undefined {
  if (apiKey !== undefined) return { apiKey: apiKey.trim() };
  if (sessionToken) return { sessionToken };
  return undefined;
}

/** 3. CSRF: a state-changing request riding on the cookie must come from our own origin. */
function checkOrigin(c: HonoContext<AppEnv>, appOrigin: string, sessionToken: string | undefined): void {
  const origin = originOf(c.req.header('origin')) ?? originOf(c.req.header('referer'));
  const host = c.req.header('host');
  const allowed =
    origin !== undefined && (origin === appOrigin || (host !== undefined && new URL(origin).host === host));
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

/**
 * Every API route (`/api/*`, `/auth/*`, `/trpc/*`) passes here first, in this order: the URL, the
 * body, CSRF, then the credential with the rate limit of its key or user (one statement), or the
 * anonymous limit without a valid one. A 429 is answered here; every other refusal is thrown as a
 * domain error.
 */
export function createGuard(options: GuardOptions): MiddlewareHandler<AppEnv> {
  const { core } = options;
  return async (c, next) => {
    const cost = checkUrl(c);
    await readBody(c);

    const apiKey = c.req.header('x-api-key');
    const sessionToken = readCookie(c.req.header('cookie'), options.cookieName);
    // CSRF first: it needs no store, and a refused change does not count against the caller's limit.
    if (!SAFE_METHODS.has(c.req.method) && apiKey === undefined)
      checkOrigin(c, options.appOrigin, sessionToken);

    // The credential and the caller's rate-limit hit are one statement (one store round trip).
    const credential = credentialOf(apiKey, sessionToken);
    const caller = credential
      ? await authenticate(core, credential, {
          limit: options.rateLimitPerMinute,
          windowSeconds: 60,
          cost,
        })
      : undefined;
    const principal = caller?.principal;
    c.set('principal', principal);

    // Callers without a credential (or with a bad one) are limited per client address.
    if (!principal) {
      const address = c.get('clientAddress');
      const hit = await hitFixedWindow(core.db, `anon:addr:${address}`, options.anonRateLimitPerMinute, 60);
      if (!hit.allowed) {
        c.header('Retry-After', String(hit.resetInSeconds));
        noteRefusal(c, 'anon_rate_limited');
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

    // 4. The rate limit of the key or user, counted above with the credential.
    const hit = caller?.hit;
    if (hit) {
      c.header('X-RateLimit-Limit', String(hit.limit));
      c.header('X-RateLimit-Remaining', String(hit.remaining));
      if (!hit.allowed) {
        c.header('Retry-After', String(hit.resetInSeconds));
        noteRefusal(c, 'rate_limited');
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
}
