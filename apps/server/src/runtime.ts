import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { DestinationStream, Logger } from 'pino';
import {
  acquireDataDirLock,
  createClusterApart,
  embeddedStartParams,
  hasCluster,
  openStore,
  type Store,
} from '@aqs/db';
import {
  clearStreamLeases,
  createLocalAuth,
  createStreamLeases,
  deleteExpiredLeases,
  discovery,
  INSTANCE_ID,
  createSecretBox,
  defaultAuthSettings,
  deleteExpiredCounters,
  deleteExpiredSessions,
  PRINCIPALS_CHANNEL,
  refundStaleCharges,
  startDiscoveryWorker,
  type MailTransport,
  type RunDeps,
} from '@aqs/core';
import {
  createCascadePlanner,
  createLlmPlanner,
  createOpenAiCompatibleModel,
  offlinePlanner,
} from '@aqs/planner';
import { closeConnectors, demoSeedStatements, openDemoDatabase } from '@aqs/connectors';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { logTransport, smtpTransport } from './mail.ts';
import { createApp } from './http/app.ts';
import { createMetrics } from './metrics.ts';
import { startAdminSocket } from './admin-socket.ts';
import { createStripeBilling, type StripeBilling } from './billing.ts';

export async function openConfiguredStore(config: Config): Promise<Store> {
  return config.databaseUrl
    ? // The instance id's random part first: PostgreSQL keeps 63 bytes, and host names can be long.
      openStore({
        kind: 'postgres',
        url: config.databaseUrl,
        applicationName: `aqs ${INSTANCE_ID.split(':').at(-1)} ${INSTANCE_ID}`,
      })
    : openStore({ kind: 'pglite', dataDir: config.dataDir });
}

export interface BuiltDeps {
  deps: RunDeps;
  /** Stripe, when billing is configured. */
  stripe: StripeBilling | undefined;
  /** Closes what the dependencies opened on demand (the demo database). */
  close(): Promise<void>;
}

export function buildCoreDeps(config: Config, store: Store, logger: Logger, mail?: MailTransport): BuiltDeps {
  let demo: Promise<{ db: Awaited<ReturnType<typeof openDemoDatabase>>; release: () => void }> | undefined;
  const openDemo = async () => {
    const release = acquireDataDirLock(config.dataDir, {
      lockName: 'demo.lock',
      purpose: 'the demo database',
    });
    try {
      const dataDir = join(config.dataDir, 'demo');
      // Created and seeded in a child process the first time: this one keeps only what opening takes.
      if (!hasCluster(dataDir))
        await createClusterApart(dataDir, embeddedStartParams(), demoSeedStatements());
      return {
        db: await openDemoDatabase({ dataDir, startParams: embeddedStartParams() }),
        release,
      };
    } catch (error) {
      release();
      throw error;
    }
  };
  // With a model configured, questions the offline planner reads with confidence never reach it.
  const planner = config.llm
    ? createCascadePlanner({
        offline: offlinePlanner,
        model: createLlmPlanner({
          model: createOpenAiCompatibleModel({
            apiKey: config.llm.apiKey,
            baseURL: config.llm.baseUrl,
            model: config.llm.model,
          }),
        }),
      })
    : offlinePlanner;
  const stripe = config.stripe ? createStripeBilling(config.stripe) : undefined;
  return {
    stripe,
    deps: {
      planner,
      planLimits: config.planLimits,
      billing: stripe?.provider,
      discoveryJobStaleMs: config.discoveryJobStaleMs,
      db: store.db,
      relaxedDb: store.relaxed,
      logger,
      mail: mail ?? (config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom) : logTransport(logger)),
      auth: {
        ...defaultAuthSettings,
        appUrl: config.appUrl,
        authRequestsPerClient: config.authRequestsPerClient,
      },
      dataSources: {
        secrets: createSecretBox(config.secretKey.value),
        allowPrivateNetworks: config.allowPrivateNetworks,
        allowInsecureTransport: config.allowInsecureTransport,
        requestTimeoutMs: config.queryTimeoutMs,
        demoDatabase: async () => {
          demo ??= openDemo();
          return (await demo).db;
        },
      },
    },
    close: async () => {
      await closeConnectors();
      if (demo) {
        const { db, release } = await demo;
        await db.close();
        release();
      }
    },
  };
}

export interface RunningServer {
  url: string;
  store: Store;
  deps: RunDeps;
  logger: Logger;
  close(): Promise<void>;
}

export interface StartOptions {
  logDestination?: DestinationStream;
  /** Use an already open store (tests); it is not closed by close(). */
  store?: Store;
  mail?: MailTransport;
}

const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

/** Opens the store, builds the dependencies, and serves the app. Port 0 picks a free port. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, options.logDestination);
  if (config.secretKey.source === 'generated') {
    logger.warn(
      { path: config.secretKey.path },
      'SECRET_KEY is not set: generated one and saved it under DATA_DIR. Set SECRET_KEY in production, and the same one on every instance.',
    );
  }
  const store = options.store ?? (await openConfiguredStore(config));
  const ownsStore = !options.store;
  const built = buildCoreDeps(config, store, logger, options.mail);
  const deps = built.deps;
  // The embedded store has no other writer: callers' principals (forgotten when the store announces a
  // change) and rate-limit windows are kept in memory. On PostgreSQL, one statement per request.
  let stopListening: (() => Promise<void>) | undefined;
  if (store.kind === 'pglite') {
    const localAuth = createLocalAuth();
    stopListening = await store.listen(PRINCIPALS_CHANNEL, () => localAuth.forget());
    deps.localAuth = localAuth;
  }
  // Questions charged by runs a killed process never stored are given back (only charges older than any run can live).
  await refundStaleCharges(store.db, { requestTimeoutMs: config.queryTimeoutMs }).catch((error: unknown) =>
    logger.warn({ err: error }, 'refunding stale charges failed'),
  );
  // The embedded store has one owner: leases left by a killed process of it hold nothing.
  if (store.kind === 'pglite' && ownsStore) await clearStreamLeases(store.db);
  const streamLeases = createStreamLeases(store.db, logger);
  const draining = new AbortController();
  const stopping = new AbortController();
  deps.shutdown = draining.signal;
  const metrics = createMetrics(store);
  if (!config.metricsToken && config.production)
    logger.warn('METRICS_TOKEN is not set: GET /metrics is open to anyone who reaches this port. Set it.');
  deps.metrics = metrics;
  // Built by the first request for it (trpc-to-openapi and the document: about 300 ms), not at start.
  let openApiDocument: Promise<object> | undefined;
  const app = createApp({
    metrics,
    metricsToken: config.metricsToken,
    core: deps,
    sseHeartbeatMs: config.sseHeartbeatMs,
    store,
    logger,
    appUrl: config.appUrl,
    rateLimitPerMinute: config.rateLimitPerMinute,
    anonRateLimitPerMinute: config.anonRateLimitPerMinute,
    openApiDocument: () =>
      (openApiDocument ??= import('@aqs/api/openapi').then((api) => api.buildOpenApiDocument(config.appUrl))),
    webDistDir: config.webDistDir,
    stripe: built.stripe,
    streamLeases,
    trustedProxies: config.trustedProxies,
    shutdown: { draining: draining.signal, stopping: stopping.signal },
  });
  const adminSocket =
    store.kind === 'pglite' && ownsStore ? await startAdminSocket(deps, config.dataDir) : undefined;

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const address = (server as HttpServer).address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  // Discovery jobs queued here or on another instance, and those whose holder died, are run here.
  const discoveryWorker = config.discoveryWorker ? startDiscoveryWorker(deps) : undefined;
  if (discoveryWorker) deps.discoveryQueued = () => discoveryWorker.kick();

  const deferred = [
    'the demo database (first demo question)',
    'the English language model and the date parser (first question)',
    'chart rendering (first PNG or SVG)',
    'the Elasticsearch client (first Elasticsearch operation)',
    'the PostgreSQL parser (first SQL query checked)',
    'the MySQL driver and parser (first MySQL connection or query)',
    'the OpenAPI document (first GET /openapi.json)',
    ...(config.llm ? [] : ['no language model SDK (LLM_API_KEY is not set)']),
    ...(config.stripe ? [] : ['no Stripe SDK (STRIPE_SECRET_KEY is not set)']),
  ];
  logger.info({ deferred }, `Loaded on first use: ${deferred.join('; ')}`);

  const maintenance = setInterval(() => {
    void Promise.all([
      deleteExpiredCounters(store.db),
      deleteExpiredLeases(store.db),
      deleteExpiredSessions(deps),
      refundStaleCharges(store.db, { requestTimeoutMs: config.queryTimeoutMs }),
    ]).catch((error: unknown) => logger.warn({ err: error }, 'maintenance failed'));
  }, MAINTENANCE_INTERVAL_MS);
  maintenance.unref();

  let closing: Promise<void> | undefined;
  return {
    url,
    store,
    deps,
    logger,
    close: () => {
      closing ??= (async () => {
        const http = server as HttpServer;
        // Draining: no new connection, readyz says so, held discovery jobs go back to the queue and
        // discovery streams end (their clients reconnect elsewhere).
        draining.abort();
        clearInterval(maintenance);
        const httpClosed = new Promise<void>((resolve) => http.close(() => resolve()));
        // A connection is closed as soon as its request in flight is answered (keep-alive ends).
        http.closeIdleConnections?.();
        const closeIdle = setInterval(() => http.closeIdleConnections?.(), 100);
        await discoveryWorker?.stop();
        // Requests in flight (run streams included) get the grace period to finish.
        if (!(await settlesWithin(httpClosed, config.shutdownGraceMs))) {
          stopping.abort();
          await settlesWithin(httpClosed, 1000);
          http.closeAllConnections?.();
        }
        await httpClosed;
        clearInterval(closeIdle);
        // Handlers still running after their sockets closed (a run storing itself as cancelled) end
        // before the store they write to is closed: each gives its stream lease back as it ends.
        await streamLeases.drained(5000);
        await handedBack(deps, logger);
        await streamLeases.close();
        if (adminSocket) await new Promise<void>((resolve) => adminSocket.close(() => resolve()));
        await built.close();
        await stopListening?.().catch(() => undefined);
        if (ownsStore) await store.close();
      })();
      return closing;
    },
  };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (at most 5 s) until no discovery job is held by this instance: each is handed back as it stops. */
async function handedBack(deps: RunDeps, logger: Logger): Promise<void> {
  const until = Date.now() + 5000;
  try {
    while ((await discovery.jobsHeldBy(deps, INSTANCE_ID)) > 0) {
      if (Date.now() > until) {
        logger.warn(
          'discovery jobs still held at shutdown: another instance takes them once their claim goes stale',
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    logger.warn({ err: error }, 'could not check the discovery jobs held at shutdown');
  }
}
