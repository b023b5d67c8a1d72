import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { DestinationStream, Logger } from 'pino';
import { acquireDataDirLock, openStore, type Store } from '@aqs/db';
import {
  createLocalAuth,
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
import { closeConnectors, openDemoDatabase } from '@aqs/connectors';
import { join } from 'node:path';
import { buildOpenApiDocument } from '@aqs/api';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { logTransport, smtpTransport } from './mail.ts';
import { createApp } from './http/app.ts';
import { createMetrics } from './metrics.ts';
import { startAdminSocket } from './admin-socket.ts';
import { createStripeBilling, type StripeBilling } from './billing.ts';

export async function openConfiguredStore(config: Config): Promise<Store> {
  return config.databaseUrl
    ? openStore({ kind: 'postgres', url: config.databaseUrl })
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
      return { db: await openDemoDatabase({ dataDir: join(config.dataDir, 'demo') }), release };
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
  const metrics = createMetrics(store);
  if (!config.metricsToken && config.production)
    logger.warn('METRICS_TOKEN is not set: GET /metrics is open to anyone who reaches this port. Set it.');
  deps.metrics = metrics;
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
    openApiDocument: buildOpenApiDocument(config.appUrl),
    webDistDir: config.webDistDir,
    stripe: built.stripe,
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

  const maintenance = setInterval(() => {
    void Promise.all([
      deleteExpiredCounters(store.db),
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
        clearInterval(maintenance);
        await discoveryWorker?.stop();
        await new Promise<void>((resolve) => {
          (server as HttpServer).closeAllConnections?.();
          server.close(() => resolve());
        });
        if (adminSocket) await new Promise<void>((resolve) => adminSocket.close(() => resolve()));
        await built.close();
        await stopListening?.().catch(() => undefined);
        if (ownsStore) await store.close();
      })();
      return closing;
    },
  };
}
