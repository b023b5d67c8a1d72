import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { connectionSchemas, connections, newId, users, workspaces } from '@aqs/db';
import { createTestStore, type TestStore } from '@aqs/db/testing';
import { connectorFor, openDemoDatabase, type Introspection } from '@aqs/connectors';
import { startHostileServer, type HostileServer } from '@aqs/hostile-servers';
import { createSecretBox } from '../src/secret-box.ts';
import { defaultAuthSettings, type CoreDeps } from '../src/ports.ts';
import type { ConnectionRow } from '../src/connections/service.ts';
import {
  ensureMultiValued,
  ensureSamples,
  samplingBudgetMs,
  SAMPLING_RETRY_FIRST_MS,
  type PendingSamples,
} from '../src/runs/samples.ts';

const secrets = createSecretBox('a-test-master-key-of-at-least-32-characters');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let store: TestStore;
let workspaceId: string;
let stalled: HostileServer;
let demo: Awaited<ReturnType<typeof openDemoDatabase>> | undefined;

function depsWith(requestTimeoutMs: number, now: () => Date = () => new Date()): CoreDeps {
  return {
    db: store.db,
    logger: quiet,
    mail: { kind: 'log', send: async () => undefined },
    auth: { ...defaultAuthSettings, appUrl: 'http://localhost' },
    dataSources: {
      secrets,
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs,
      demoDatabase: async () => (demo ??= await openDemoDatabase()),
    },
    now,
  };
}

async function addConnection(init: {
  authMode: string;
  config: Record<string, unknown>;
  analysis?: Record<string, unknown>;
  dialect?: string;
}): Promise<ConnectionRow> {
  const id = newId('con');
  const [row] = await store.db
    .insert(connections)
    .values({
      id,
      workspaceId,
      name: 'Sampled',
      dialect: init.dialect ?? 'postgres',
      authMode: init.authMode,
      config: init.config,
      secrets:
        init.authMode === 'password' || init.authMode === 'basic'
          ? { password: secrets.seal('pw', `connection:${id}:password`) }
          : {},
    })
    .returning();
  await store.db
    .insert(connectionSchemas)
    .values({ connectionId: id, workspaceId, analysis: init.analysis ?? null });
  return row!;
}

async function analysisOf(id: string): Promise<Record<string, any>> {
  const [row] = await store.db
    .select({ analysis: connectionSchemas.analysis })
    .from(connectionSchemas)
    .where(eq(connectionSchemas.connectionId, id));
  return (row?.analysis ?? {}) as Record<string, any>;
}

/** One table with six sampleable columns: without one total budget, each would wait out its own timeout. */
const introspection: Introspection = {
  dialect: 'postgres',
  schemas: [{ name: 'public', table_count: 1 }],
  tables: [
    {
      name: 'orders',
      schema: 'public',
      kind: 'table',
      columns: ['status', 'country', 'channel', 'carrier', 'currency', 'segment'].map((name) => ({
        name,
        type: 'character varying',
        native_type: 'varchar',
        nullable: true,
        queryable: true,
        description: null,
        note: null,
      })),
      primary_key: [],
      foreign_keys: [],
      row_estimate: 100,
      members: [],
      warnings: [],
    },
  ],
  warnings: [],
  server_version: null,
};

beforeAll(async () => {
  store = await createTestStore('pglite');
  const userId = newId('usr');
  workspaceId = newId('wks');
  await store.db.insert(users).values({ id: userId, email: `${userId}@example.com`, passwordHash: 'x' });
  await store.db.insert(workspaces).values({ id: workspaceId, name: 'W', ownerUserId: userId });
  // A PostgreSQL port that accepts the connection and never says a word.
  stalled = await startHostileServer((peer) => peer.hang());
}, 60_000);

afterAll(async () => {
  await stalled?.close();
  await demo?.close();
  await store?.close();
});

function stalledConfig(): Record<string, unknown> {
  return {
    host: stalled.host,
    port: stalled.port,
    database: 'shop',
    username: 'reader',
    ssl_mode: 'disable',
    schemas: ['public'],
  };
}

describe('sampling has one total budget', () => {
  it('against a stalled source: ends within the budget, stops at the first failure, is not stored as complete, and backs off', async () => {
    let clock = new Date('2026-03-01T12:00:00Z');
    const deps = depsWith(2000, () => clock);
    const budget = samplingBudgetMs(deps);
    expect(budget).toBe(2000);
    const row = await addConnection({ authMode: 'password', config: stalledConfig() });
    const before = stalled.stats.connections;

    const started = performance.now();
    const samples = await ensureSamples(deps, row, introspection, 'fp-1');
    const elapsed = performance.now() - started;
    console.log(`sampling against a stalled source: ${Math.round(elapsed)} ms (budget ${budget} ms)`);
    // The budget with a generous margin; six columns each waiting out their own timeout take far longer.
    expect(elapsed).toBeLessThan(budget + 3000);
    expect(samples).toEqual({});
    // Stopped at the first failure: one attempt's sockets (the client may open a second one to send a
    // CancelRequest), not one connection per column; and they all close.
    expect(await stalled.settled(8000)).toBe(0);
    const perAttempt = stalled.stats.connections - before;
    expect(perAttempt).toBeGreaterThanOrEqual(1);
    expect(perAttempt).toBeLessThanOrEqual(2);

    let analysis = await analysisOf(row.id);
    expect(analysis.samples_fingerprint).toBeUndefined();
    const pending = analysis.samples_pending as PendingSamples;
    expect(pending).toMatchObject({ fingerprint: 'fp-1', next: 0, attempts: 1, samples: {} });
    expect(['timeout', 'cancelled', 'budget']).toContain(pending.reason);
    expect(Date.parse(pending.retry_at)).toBe(clock.getTime() + SAMPLING_RETRY_FIRST_MS);

    // Within the back-off a run does not touch the source again.
    await ensureSamples(deps, row, introspection, 'fp-1');
    expect(stalled.stats.connections - before).toBe(perAttempt);

    // After it, a run tries again (the source may be back), and a second failure doubles the wait.
    clock = new Date(clock.getTime() + SAMPLING_RETRY_FIRST_MS + 1000);
    await ensureSamples(deps, row, introspection, 'fp-1');
    expect(await stalled.settled(8000)).toBe(0);
    expect(stalled.stats.connections - before).toBeGreaterThan(perAttempt);
    expect(stalled.stats.connections - before).toBeLessThanOrEqual(2 * perAttempt);
    analysis = await analysisOf(row.id);
    expect(analysis.samples_fingerprint).toBeUndefined();
    expect(analysis.samples_pending).toMatchObject({ fingerprint: 'fp-1', attempts: 2 });
    expect(Date.parse(analysis.samples_pending.retry_at)).toBe(clock.getTime() + 2 * SAMPLING_RETRY_FIRST_MS);

    // A new structure fingerprint is not held back by the old one's back-off.
    const beforeNew = stalled.stats.connections;
    await ensureSamples(deps, row, introspection, 'fp-2');
    expect(stalled.stats.connections).toBeGreaterThan(beforeNew);
  }, 30_000);

  it("ends when the caller's signal fires, and records nothing about the source", async () => {
    const deps = depsWith(30_000);
    expect(samplingBudgetMs(deps)).toBe(10_000);
    const row = await addConnection({ authMode: 'password', config: stalledConfig() });
    const started = performance.now();
    await ensureSamples(deps, row, introspection, 'fp-1', AbortSignal.timeout(300));
    expect(performance.now() - started).toBeLessThan(5000);
    const analysis = await analysisOf(row.id);
    expect(analysis.samples_fingerprint).toBeUndefined();
    expect(analysis.samples_pending).toBeUndefined();
  }, 30_000);

  it('a healthy source: resumes a pending sampling, stores the complete set, and keeps the other analysis keys', async () => {
    const deps = depsWith(30_000);
    const probe = await addConnection({ authMode: 'embedded', config: { schemas: ['shop'] } });
    const connector = connectorFor('postgres')!;
    const ctx = {
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs: 30_000,
      demoDatabase: await deps.dataSources.demoDatabase(),
    };
    const shop = await connector.introspect(
      { id: probe.id, dialect: 'postgres', authMode: 'embedded', config: probe.config, secrets: {} },
      ctx,
    );
    const pending: PendingSamples = {
      fingerprint: 'fp-shop',
      samples: { 'shop.earlier': { kept: ['from the first attempt'] } },
      next: 1,
      attempts: 3,
      retry_at: new Date(Date.now() - 1000).toISOString(),
      reason: 'timeout',
    };
    const row = await addConnection({
      authMode: 'embedded',
      config: { schemas: ['shop'] },
      analysis: { other: 'kept', samples_pending: pending },
    });

    const samples = await ensureSamples(deps, row, shop, 'fp-shop');
    expect(samples['shop.earlier']).toEqual({ kept: ['from the first attempt'] });
    expect(Object.keys(samples).length).toBeGreaterThan(1);
    const analysis = await analysisOf(row.id);
    expect(analysis.samples_fingerprint).toBe('fp-shop');
    expect(analysis.samples).toEqual(samples);
    expect(analysis.samples_pending).toBeUndefined();
    expect(analysis.other).toBe('kept');
    // Complete: the next run reads it back without sampling.
    expect(await ensureSamples(deps, row, shop, 'fp-shop')).toEqual(samples);
  }, 60_000);
});

describe('probing fields with several values', () => {
  it('against a stalled Elasticsearch: ends within the sampling budget with nothing found', async () => {
    const deps = depsWith(2000);
    const budget = samplingBudgetMs(deps);
    const row = await addConnection({
      dialect: 'elasticsearch',
      authMode: 'basic',
      config: {
        cluster_url: `http://${stalled.host}:${stalled.port}`,
        username: 'reader',
        allowed_indices: ['logs-*'],
      },
    });
    const tables = [
      {
        name: 'logs-*',
        columns: ['labels', 'tags', 'service.name'].map((name) => ({
          name,
          type: 'keyword',
          queryable: true,
        })),
      },
    ];
    const started = performance.now();
    const fields = await ensureMultiValued(deps, row, tables, 'fp-es');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(budget + 3000);
    expect(fields).toEqual({});
    expect(await stalled.settled(8000)).toBe(0);
  }, 30_000);
});
