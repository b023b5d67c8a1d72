import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context as HonoContext, Hono, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'drizzle-orm';
import { executeRows, type Store } from '@aqs/db';
import type { CoreMetrics } from '@aqs/core';
import type { AppEnv } from './http/env.ts';
import { restTemplateOf } from './http/rest.ts';

/** Seconds: from a fast authenticated read to a slow engine query. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface ServiceMetrics extends CoreMetrics {
  registry: Registry;
  requestAnswered(labels: { route: string; method: string; status: string }, seconds: number): void;
  /** A 429 answered (a call of a tRPC batch counts apart), by what refused it: `rate_limited`, `anon_rate_limited`, `stream_cap`, `sign_in_limit`, or the quota's code. */
  refused(code: string): void;
  /** An event stream opened (runs, discovery); call the answer when it ends. */
  streamOpened(kind: 'run' | 'discovery'): () => void;
}

/**
 * The service's Prometheus metrics, on a registry of its own (several servers in one process keep
 * theirs apart): requests by route, method and status with their latency, runs by status and planner,
 * engine time by dialect, refusals by code, open streams, the discovery queue (read from the store at
 * each scrape, so it is the same on every instance), this instance's store connections (PostgreSQL)
 * and the process's own (memory, CPU, event loop).
 */
export function createMetrics(store: Store): ServiceMetrics {
  const registry = new Registry();
  // One after the other (prom-client collects the gauges at once): the queue's statement would
  // otherwise show as one of this instance's active connections.
  const storeState = oneReadPerScrape(async () => ({
    pool: await store.pool().catch(() => undefined),
    queue: await discoveryQueue(store).catch(() => undefined),
  }));
  const queue = async () => (await storeState()).queue;
  const pool = async () => (await storeState()).pool;
  collectDefaultMetrics({ register: registry, prefix: 'aqs_' });
  const requests = new Counter({
    name: 'aqs_http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'aqs_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (a stream: until its headers), by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'aqs_runs_total',
    help: 'Runs stored, by status and planner.',
    labelNames: ['status', 'planner'] as const,
    registers: [registry],
  });
  const engine = new Histogram({
    name: 'aqs_engine_duration_seconds',
    help: "Time runs spent executing their query on the data source, by the query's language.",
    labelNames: ['dialect'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'aqs_refusals_total',
    help: 'Requests (and calls of a tRPC batch) refused with 429, by what refused them: rate_limited, anon_rate_limited, stream_cap, sign_in_limit, or the quota code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const streams = new Gauge({
    name: 'aqs_open_streams',
    help: 'Event streams open on this instance, by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  streams.set({ kind: 'run' }, 0);
  streams.set({ kind: 'discovery' }, 0);
  new Gauge({
    name: 'aqs_discovery_jobs_queued',
    help: 'Discovery jobs waiting for a worker (all instances).',
    registers: [registry],
    async collect() {
      // A store that does not answer leaves the last value: the rest of the scrape still answers.
      const state = await queue();
      if (state) this.set(state.queued);
    },
  });
  new Gauge({
    name: 'aqs_discovery_oldest_queued_seconds',
    help: 'Age of the oldest discovery job waiting for a worker, 0 when none waits.',
    registers: [registry],
    async collect() {
      const state = await queue();
      if (state) this.set(state.oldestSeconds);
    },
  });

  // PGlite is one session inside this process: there is no pool to report.
  if (store.kind !== 'pglite') {
    new Gauge({
      name: 'aqs_store_connections',
      help: "This instance's connections to the PostgreSQL store, by state (active, idle, idle in transaction, ...; the scrape's own counts as idle). Absent on the embedded store.",
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        const state = await pool();
        if (!state) return;
        this.reset();
        for (const [name, n] of Object.entries(state.byState)) this.set({ state: name }, n);
      },
    });
    new Gauge({
      name: 'aqs_store_connections_max',
      help: 'Most connections this instance opens to the PostgreSQL store. Absent on the embedded store.',
      registers: [registry],
      async collect() {
        const state = await pool();
        if (state) this.set(state.max);
      },
    });
  }

  // Each request's series by its labels, found once: prom-client would look them up and check them each time.
  const requestSeries = new Map<
    string,
    { count: Counter.Internal; time: Histogram.Internal<'route' | 'method' | 'status'> }
  >();
  return {
    registry,
    requestAnswered(labels, seconds) {
      const key = `${labels.route} ${labels.method} ${labels.status}`;
      let series = requestSeries.get(key);
      if (!series) {
        series = { count: requests.labels(labels), time: latency.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.time.observe(seconds);
    },
    runFinished({ status, planner, dialect, executingMs }) {
      runs.inc({ status, planner: planner ?? 'none' });
      if (dialect) engine.observe({ dialect }, executingMs / 1000);
    },
    refused(code) {
      refusals.inc({ code });
    },
    streamOpened(kind) {
      streams.inc({ kind });
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        streams.dec({ kind });
      };
    },
  };
}

/** Long enough for one scrape's gauges, short enough that the next scrape reads again. */
const SCRAPE_MS = 250;

/** `read` once for all the gauges of one scrape that it feeds (`read` answers failures as undefined). */
function oneReadPerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (last && now - last.at < SCRAPE_MS) return last.value;
    const value = read();
    last = { at: now, value };
    return value;
  };
}

interface QueueState {
  queued: number;
  oldestSeconds: number;
}

async function discoveryQueue(store: Store): Promise<QueueState> {
  const [row] = await executeRows<{ queued: number | string; oldest: number | string | null }>(
    store.db,
    sql`SELECT count(*)::int AS queued, extract(epoch FROM (now() - min(created_at)))::float8 AS oldest
        FROM discovery_jobs WHERE status = 'queued'`,
  );
  return { queued: Number(row?.queued ?? 0), oldestSeconds: Number(row?.oldest ?? 0) };
}

/**
 * Counts every request by a route label of bounded cardinality: the REST route's documented path,
 * `/trpc`, a plain route's pattern, or `unmatched`; records the 429s the guard or a problem noted.
 */
export function metricsMiddleware(metrics: ServiceMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const labels = { route: routeLabel(c), method: c.req.method, status: String(c.res.status) };
    metrics.requestAnswered(labels, (performance.now() - started) / 1000);
    for (const refusal of c.get('refusals') ?? []) metrics.refused(refusal);
  };
}

function routeLabel(c: HonoContext<AppEnv>): string {
  if (c.req.path.startsWith('/trpc/')) return '/trpc';
  // The REST handler names its route; a request refused before it (401, 429) is matched here.
  const path = c.req.path;
  const rest = path.startsWith('/api/') || path.startsWith('/auth/');
  const template = c.get('route') ?? (rest ? restTemplateOf(c.req.method, path) : undefined);
  if (template) return template;
  // A plain route's own pattern: the route that answered (not every route the path matches, such as
  // the web app's catch-all), written as the OpenAPI document writes parameters.
  const answered = matchedRoutes(c)[c.req.routeIndex];
  if (!answered || answered.method === 'ALL') return 'unmatched';
  return answered.path.replace(/:(\w+)/g, '{$1}');
}

/**
 * `GET /metrics` in Prometheus text, before the guard (no rate limit). With `token` set it needs
 * `Authorization: Bearer <token>`; without, it is open (bind the port privately, or set the token).
 */
export function mountMetrics(app: Hono<AppEnv>, metrics: ServiceMetrics, token: string | undefined): void {
  const expected = token ? digest(token) : undefined;
  app.get('/metrics', async (c) => {
    if (expected) {
      const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected)) {
        c.header('WWW-Authenticate', 'Bearer');
        return c.json(
          { detail: 'Send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>.' },
          401,
        );
      }
    }
    const text = await metrics.registry.metrics();
    return c.body(text, 200, { 'Content-Type': metrics.registry.contentType });
  });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
