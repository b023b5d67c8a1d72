import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  connections,
  discoveryJobEvents,
  discoveryJobs,
  newId,
  usageCharges,
  usageCounters,
  users,
  workspaces,
} from '@aqs/db';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { createSecretBox } from '../src/secret-box.ts';
import { defaultAuthSettings, type CoreDeps } from '../src/ports.ts';
import type { Principal } from '../src/principal.ts';
import { cancelJob, claimJob, eventsAfter, runJob, startJob } from '../src/discovery/jobs.ts';

const secrets = createSecretBox('a-test-master-key-of-at-least-32-characters');

// Instances sharing one store: several claimers at once never take one job twice, on PGlite and on
// PostgreSQL (where `FOR UPDATE SKIP LOCKED` is what keeps them apart).
describe.each(await testStoreKinds())('discovery job claims on %s', (kind) => {
  let store: TestStore;
  let deps: CoreDeps;

  beforeAll(async () => {
    store = await createTestStore(kind);
    deps = {
      db: store.db,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      mail: { kind: 'log', send: async () => undefined },
      auth: { ...defaultAuthSettings, appUrl: 'http://localhost' },
      dataSources: {
        secrets,
        allowPrivateNetworks: true,
        allowInsecureTransport: true,
        requestTimeoutMs: 30_000,
        demoDatabase: () => Promise.reject(new Error('no demo')),
      },
    };
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  async function owner(): Promise<{ principal: Principal; connectionId: string }> {
    const userId = newId('usr');
    const workspaceId = newId('wks');
    await store.db.insert(users).values({ id: userId, email: `${userId}@example.com`, passwordHash: 'x' });
    await store.db
      .insert(workspaces)
      .values({ id: workspaceId, name: 'W', ownerUserId: userId, plan: 'team' });
    const connectionId = newId('con');
    await store.db.insert(connections).values({
      id: connectionId,
      workspaceId,
      name: 'Somewhere',
      dialect: 'postgres',
      authMode: 'password',
      config: {
        host: '127.0.0.1',
        port: 1,
        database: 'x',
        username: 'x',
        ssl_mode: 'disable',
        schemas: ['public'],
      },
      secrets: { password: secrets.seal('pw', `connection:${connectionId}:password`) },
    });
    return {
      principal: {
        userId,
        email: `${userId}@example.com`,
        workspaceId,
        role: 'owner',
        plan: 'team',
        authMethod: 'session',
      } as Principal,
      connectionId,
    };
  }

  it('eight claimers at once over five queued jobs: each job is taken once, and each claim has its own token', async () => {
    const jobs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { principal, connectionId } = await owner();
      jobs.push((await startJob(deps, principal, { id: connectionId, cross_index_links: false })).job.id);
    }
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => claimJob(deps, `instance-${i}`)));
    const taken = claims.filter((c) => c !== null).map((c) => c!.id);
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.length).toBeLessThanOrEqual(5);
    expect(new Set(claims.filter((c) => c !== null).map((c) => c!.lockedBy)).size).toBe(taken.length);
    // Whatever the first round left is taken by the next claims, and nothing is taken twice.
    const rest = [];
    for (let c = await claimJob(deps, 'late'); c !== null; c = await claimJob(deps, 'late')) rest.push(c.id);
    expect([...taken, ...rest].filter((id) => jobs.includes(id)).sort()).toEqual([...jobs].sort());
  });

  it('two starts at once for one connection give one job; events are numbered 1, 2, … under concurrent writers', async () => {
    const { principal, connectionId } = await owner();
    const [a, b] = await Promise.all([
      startJob(deps, principal, { id: connectionId, cross_index_links: false }),
      startJob(deps, principal, { id: connectionId, cross_index_links: false }),
    ]);
    expect(a.job.id).toBe(b.job.id);
    expect([a.attached, b.attached].sort()).toEqual([false, true]);
    const [row] = await store.db.select().from(discoveryJobs).where(eq(discoveryJobs.id, a.job.id));
    expect(row?.status).toBe('queued');
    const events = await eventsAfter(deps, a.job.id, 0);
    expect(events.map((e) => e.seq)).toEqual([1]);
    const all = await store.db
      .select()
      .from(discoveryJobEvents)
      .where(eq(discoveryJobEvents.jobId, a.job.id));
    expect(all).toHaveLength(1);
  });

  it('a stopping instance hands its job back to the queue at once; cancelling it then keeps the unit when tables were done', async () => {
    const { principal, connectionId } = await owner();
    const { job } = await startJob(deps, principal, { id: connectionId, cross_index_links: false });
    const claimed = await claimJob(deps, 'stopping-instance', job.id);
    expect(claimed).not.toBeNull();
    const stopping = new AbortController();
    stopping.abort();
    const ended = await runJob({ ...deps, shutdown: stopping.signal }, claimed!);
    expect(ended?.state).toBe('queued');
    const [row] = await store.db.select().from(discoveryJobs).where(eq(discoveryJobs.id, job.id));
    expect(row).toMatchObject({ status: 'queued', lockedBy: null, heartbeatAt: null });
    const events = await eventsAfter(deps, job.id, 0);
    expect(events.map((e) => [e.event, (e.payload as { phase?: string }).phase])).toEqual([
      ['status', 'queued'],
      ['status', 'queued'],
    ]);
    // Claimable again at once, by anyone (no stale period to wait for).
    const again = await claimJob(deps, 'other-instance', job.id, 3_600_000);
    expect(again?.lockedBy).toMatch(/^other-instance:/);

    // Handed back again after a table was finished, then cancelled while queued: the analysis is paid for.
    await store.db
      .update(discoveryJobs)
      .set({
        status: 'queued',
        lockedBy: null,
        progress: { ...(again!.progress as object), tables: { 'public.t': { columns: 1 } } },
      })
      .where(eq(discoveryJobs.id, job.id));
    await cancelJob(deps, principal, connectionId, job.id);
    const [counter] = await store.db
      .select()
      .from(usageCounters)
      .where(eq(usageCounters.workspaceId, principal.workspaceId));
    expect(counter?.count).toBe(1);
    expect(await store.db.select().from(usageCharges).where(eq(usageCharges.id, job.id))).toEqual([]);
  });
});
