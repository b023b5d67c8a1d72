import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { connections, newId, runs, usageCharges, usageCounters, users, workspaces } from '@aqs/db';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { offlinePlanner } from '@aqs/planner';
import { createSecretBox } from '../src/secret-box.ts';
import { defaultAuthSettings } from '../src/ports.ts';
import type { Principal } from '../src/principal.ts';
import { prepareRun, type RunDeps } from '../src/runs/pipeline.ts';
import { persistRun, type FinishedRun } from '../src/runs/store.ts';
import { consumeUsage, refundStaleCharges, staleChargeAgeMs, usagePeriod } from '../src/limits/usage.ts';

const TIMEOUT_MS = 30_000;
const BOUND_MS = staleChargeAgeMs(TIMEOUT_MS);
const secrets = createSecretBox('a-test-master-key-of-at-least-32-characters');

/** A port nothing listens on: a run against it fails fast (and is stored as failed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A run that timed out, ready to store (uncharged unless the caller says otherwise). */
function failedRun(
  principal: Principal,
  connectionId: string,
  conversationId: string | undefined,
  question: string,
): FinishedRun {
  return {
    id: newId('run'),
    charged: false,
    principal,
    conversationId,
    connectionId,
    question,
    chartRequested: false,
    overrides: null,
    status: 'failed',
    planner: null,
    query: null,
    querySpec: null,
    warnings: [],
    error: { type: 'timeout', message: 'slow' },
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    timings: { building_context: 0, planning: 0, executing: 0 },
    artifacts: [],
    createdAt: new Date(),
  };
}

describe.each(await testStoreKinds())('question charges on %s', (kind) => {
  let store: TestStore;
  let deps: RunDeps;
  let port: number;

  beforeAll(async () => {
    store = await createTestStore(kind);
    port = await closedPort();
    deps = {
      db: store.db,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      mail: { kind: 'log', send: async () => undefined },
      auth: { ...defaultAuthSettings, appUrl: 'http://localhost' },
      dataSources: {
        secrets,
        allowPrivateNetworks: true,
        allowInsecureTransport: true,
        requestTimeoutMs: TIMEOUT_MS,
        demoDatabase: () => Promise.reject(new Error('no demo')),
      },
      planner: offlinePlanner,
    };
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  async function workspace(): Promise<{ principal: Principal; connectionId: string }> {
    const userId = newId('usr');
    const workspaceId = newId('wks');
    await store.db.insert(users).values({ id: userId, email: `${userId}@example.com`, passwordHash: 'x' });
    await store.db.insert(workspaces).values({ id: workspaceId, name: 'W', ownerUserId: userId });
    const connectionId = newId('con');
    await store.db.insert(connections).values({
      id: connectionId,
      workspaceId,
      name: 'Nothing listens',
      dialect: 'postgres',
      authMode: 'password',
      config: {
        host: '127.0.0.1',
        port,
        database: 'shop',
        username: 'reader',
        ssl_mode: 'disable',
        schemas: ['public'],
      },
      secrets: { password: secrets.seal('pw', `connection:${connectionId}:password`) },
    });
    const principal: Principal = {
      userId,
      email: `${userId}@example.com`,
      workspaceId,
      role: 'owner',
      plan: 'free',
      authMethod: 'session',
    };
    return { principal, connectionId };
  }

  async function used(workspaceId: string, period = usagePeriod(new Date())): Promise<number> {
    const [row] = await store.db
      .select({ count: usageCounters.count })
      .from(usageCounters)
      .where(
        and(
          eq(usageCounters.workspaceId, workspaceId),
          eq(usageCounters.period, period),
          eq(usageCounters.metric, 'questions'),
        ),
      );
    return row?.count ?? 0;
  }

  async function pending(workspaceId: string) {
    return store.db.select().from(usageCharges).where(eq(usageCharges.workspaceId, workspaceId));
  }

  it('a run charged and never stored (the process died) is refunded once no run can still be alive, and only then', async () => {
    const { principal, connectionId } = await workspace();
    // prepareRun takes the unit; the process "dies" before execute, so the run is never stored.
    await prepareRun(deps, principal, {
      question: 'how many orders',
      connection_id: connectionId,
      chart_requested: false,
    });
    expect(await used(principal.workspaceId)).toBe(1);
    const [charge] = await pending(principal.workspaceId);
    expect(charge).toMatchObject({
      workspaceId: principal.workspaceId,
      period: usagePeriod(new Date()),
      metric: 'questions',
    });
    expect(charge!.id).toMatch(/^run_/);

    // Within the bound the run may still be alive on another instance: no refund.
    expect(
      await refundStaleCharges(store.db, {
        requestTimeoutMs: TIMEOUT_MS,
        now: new Date(Date.now() + BOUND_MS - 60_000),
      }),
    ).toBe(0);
    expect(await used(principal.workspaceId)).toBe(1);

    // Past it: refunded, once.
    const later = new Date(Date.now() + BOUND_MS + 1000);
    expect(
      await refundStaleCharges(store.db, { requestTimeoutMs: TIMEOUT_MS, now: later }),
    ).toBeGreaterThanOrEqual(1);
    expect(await used(principal.workspaceId)).toBe(0);
    expect(await pending(principal.workspaceId)).toEqual([]);
    await refundStaleCharges(store.db, { requestTimeoutMs: TIMEOUT_MS, now: later });
    expect(await used(principal.workspaceId)).toBe(0);
  });

  it('a stored run settles its charge in the same transaction: never refunded', async () => {
    const { principal, connectionId } = await workspace();
    const prepared = await prepareRun(deps, principal, {
      question: 'how many orders',
      connection_id: connectionId,
      chart_requested: false,
    });
    const [charge] = await pending(principal.workspaceId);
    const result = await prepared.execute();
    expect(result.status).toBe('failed'); // nothing listens on the port; a failed run is a stored run and costs its unit
    expect(result.id).toBe(charge!.id);
    expect(await store.db.select({ id: runs.id }).from(runs).where(eq(runs.id, result.id))).toHaveLength(1);
    expect(await pending(principal.workspaceId)).toEqual([]);
    await refundStaleCharges(store.db, {
      requestTimeoutMs: TIMEOUT_MS,
      now: new Date(Date.now() + 10 * BOUND_MS),
    });
    expect(await used(principal.workspaceId)).toBe(1);
  }, 60_000);

  it('concurrent refunders (several instances) refund each charge exactly once', async () => {
    const { principal } = await workspace();
    const old = new Date(Date.now() - BOUND_MS - 60_000);
    // Three questions whose runs were stored (no charge left) and six whose process died.
    for (let i = 0; i < 3; i++) await consumeUsage(store.db, principal.workspaceId, 'free', 'questions', old);
    for (let i = 0; i < 6; i++)
      await consumeUsage(store.db, principal.workspaceId, 'free', 'questions', old, newId('run'));
    const period = usagePeriod(old);
    expect(await used(principal.workspaceId, period)).toBe(9);

    const counts = await Promise.all(
      Array.from({ length: 5 }, () => refundStaleCharges(store.db, { requestTimeoutMs: TIMEOUT_MS })),
    );
    // Other tests' workspaces may have stale charges too; this workspace's six are refunded once each.
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(6);
    expect(await used(principal.workspaceId, period)).toBe(3);
    expect(await pending(principal.workspaceId)).toEqual([]);
  });

  it("refunds the charge's own month, after the month has turned", async () => {
    const { principal } = await workspace();
    const charged = new Date('2026-01-31T23:30:00Z');
    await consumeUsage(store.db, principal.workspaceId, 'free', 'questions', charged);
    await consumeUsage(store.db, principal.workspaceId, 'free', 'questions', charged, newId('run'));
    await refundStaleCharges(store.db, {
      requestTimeoutMs: TIMEOUT_MS,
      now: new Date(charged.getTime() + BOUND_MS + 1000),
    });
    expect(await used(principal.workspaceId, '2026-01')).toBe(1);
    expect(await used(principal.workspaceId, '2026-02')).toBe(0);
  });

  it('a run stored after its charge was refunded (it outlived the bound) takes its unit again: counted once', async () => {
    const { principal, connectionId } = await workspace();
    const runId = newId('run');
    await consumeUsage(store.db, principal.workspaceId, 'free', 'questions', new Date(), runId);
    await refundStaleCharges(store.db, {
      requestTimeoutMs: TIMEOUT_MS,
      now: new Date(Date.now() + BOUND_MS + 1000),
    });
    expect(await used(principal.workspaceId)).toBe(0);
    const run = { ...failedRun(principal, connectionId, undefined, 'slow one'), id: runId, charged: true };
    expect((await persistRun(store.db, run)).id).toBe(runId);
    expect(await used(principal.workspaceId)).toBe(1);
  });

  it('runs finishing together in one conversation are all stored, each with its own turn', async () => {
    const { principal, connectionId } = await workspace();
    const runOf = (conversationId: string | undefined, question: string) =>
      failedRun(principal, connectionId, conversationId, question);
    const first = await persistRun(store.db, runOf(undefined, 'first'));
    expect(first.turn_index).toBe(0);
    const stored = await Promise.all(
      Array.from({ length: 6 }, (_, i) => persistRun(store.db, runOf(first.conversation_id, `next ${i}`))),
    );
    expect(stored.map((r) => r.turn_index).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
