import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { discoveryJobs, usageCounters } from '@aqs/db';
import { isPostgresAvailable, testDatabaseUrl } from '@aqs/db/testing';
import { fixtureDir, startTestCluster } from '@aqs/es-test-cluster';
import { discovery, startDiscoveryWorker } from '@aqs/core';
import { offlinePlanner, type SchemaDescriber } from '@aqs/planner';
import {
  callerOf,
  closePools,
  codeOf,
  demoConnectionId,
  harness,
  problemOf,
  signedIn,
  weblogsConfig,
  type Caller,
} from './harness.ts';

const pgAvailable = await isPostgresAvailable();
if (!pgAvailable && process.env.CI === 'true')
  throw new Error('PostgreSQL is required in CI (TEST_DATABASE_URL).');

let caller: Caller;
let workspaceId: string;
let demoId: string;

beforeAll(async () => {
  const signed = await signedIn();
  caller = signed.caller;
  workspaceId = signed.principal.workspaceId;
  demoId = await demoConnectionId(caller);
}, 120_000);

afterAll(async () => {
  await closePools();
});

async function analysesUsed(workspace = workspaceId): Promise<number> {
  const { deps } = await harness();
  const [row] = await deps.db
    .select({ count: usageCounters.count })
    .from(usageCounters)
    .where(and(eq(usageCounters.workspaceId, workspace), eq(usageCounters.metric, 'schema_analyses')));
  return row?.count ?? 0;
}

/** Runs a queued job here, as the server's worker would (the procedure tests have no worker). */
async function runQueued(jobId: string, instance = 'test-instance', staleMs?: number) {
  const { deps } = await harness();
  const claimed = await discovery.claimJob(deps, instance, jobId, staleMs);
  expect(claimed, `job ${jobId} should be claimable`).not.toBeNull();
  const ended = await discovery.runJob(deps, claimed!);
  expect(ended).not.toBeNull();
  return ended!;
}

describe('schema discovery on the demo shop', () => {
  it('finds keys, relationships (declared, and inferred on the view then checked on the data), semantic types and values; the metadata is fresh after; one unit is charged', async () => {
    expect((await caller.schema.metadataStatus({ id: demoId })).stale).toBe(true);
    const summary = await caller.discovery.discover({ id: demoId });

    const table = (name: string) => summary.tables.find((t) => t.name === name)!;
    const column = (t: string, c: string) => table(t).columns.find((x) => x.name === c)!;
    expect(table('shop.orders')).toMatchObject({ primary_key: ['order_id'], primary_key_source: 'declared' });
    expect(table('shop.orders').row_count).toBeGreaterThan(100);
    expect(summary.relationships).toContainEqual(
      expect.objectContaining({
        from_table: 'shop.orders',
        from_columns: ['customer_id'],
        to_table: 'shop.customers',
        to_columns: ['customer_id'],
        source: 'declared',
      }),
    );
    // The view declares nothing: its links are found by name and checked (no orphan rows).
    expect(summary.relationships).toContainEqual(
      expect.objectContaining({
        from_table: 'shop.order_totals',
        from_columns: ['customer_id'],
        to_table: 'shop.customers',
        source: 'inferred',
      }),
    );
    expect(column('shop.orders', 'ordered_at').semantic_type).toBe('datetime');
    expect(column('shop.payments', 'amount').semantic_type).toBe('money');
    expect(column('shop.order_items', 'quantity').semantic_type).toBe('quantity');
    expect(column('shop.customers', 'country').semantic_type).toBe('geo');
    expect(column('shop.customers', 'segment')).toMatchObject({ semantic_type: 'category' });
    expect(column('shop.customers', 'segment').sample_values).toEqual(
      expect.arrayContaining(['consumer', 'enterprise']),
    );
    // Never values of personal or free-text fields.
    expect(column('shop.customers', 'email').sample_values).toEqual([]);
    expect(column('shop.customers', 'full_name').sample_values).toEqual([]);
    expect(summary.usage.engine_queries).toBeGreaterThan(0);

    const status = await caller.schema.metadataStatus({ id: demoId });
    expect(status).toMatchObject({ stale: false, analysis_fingerprint: summary.structure_fingerprint });
    expect(await analysesUsed()).toBe(1);

    // Relationships again from the stored analysis: nothing charged.
    const again = await caller.discovery.crossSchema({ id: demoId });
    expect(again.relationship_count).toBe(summary.relationship_count);
    expect(await analysesUsed()).toBe(1);
  });

  it('a job re-attaches instead of starting twice, is cancelled with 202, and its events replay in order', async () => {
    const { caller: own, principal } = await signedIn();
    const id = await demoConnectionId(own);
    const first = await own.discovery.startJob({ id });
    expect(first).toMatchObject({ attached: false, job: { state: 'queued', charged: true } });
    const second = await own.discovery.startJob({ id });
    expect(second).toMatchObject({ attached: true, job: { id: first.job.id } });
    expect((await own.discovery.activeJob({ id })).job?.id).toBe(first.job.id);
    expect(await analysesUsed(principal.workspaceId)).toBe(1);

    const cancelled = await own.discovery.cancelJob({ id, job_id: first.job.id });
    expect(cancelled.job.state).toBe('cancelled');
    expect((await own.discovery.activeJob({ id })).job).toBeNull();

    const run = await own.discovery.startJob({ id });
    expect(run.attached).toBe(false);
    const done = await runQueued(run.job.id);
    expect(done.state).toBe('succeeded');
    const { deps } = await harness();
    const events = await discovery.eventsAfter(deps, run.job.id, 0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ event: 'status', payload: { phase: 'queued' } });
    expect(events.map((e) => e.event)).toContain('table_complete');
    expect(events.at(-1)).toMatchObject({ event: 'complete', payload: { state: 'succeeded' } });
    expect((await discovery.eventsAfter(deps, run.job.id, 3))[0]?.seq).toBe(4);
    expect((await own.discovery.getJob({ id, job_id: run.job.id })).summary?.table_count).toBeGreaterThan(0);
  });

  it('a job whose holder died is resumed from its last finished table, and charged once', async () => {
    const { caller: own, principal } = await signedIn();
    const id = await demoConnectionId(own);
    const { job } = await own.discovery.startJob({ id });
    const { deps } = await harness();
    // The first holder analysed the first table, then went quiet (killed).
    const claimed = await discovery.claimJob(deps, 'instance-that-dies', job.id);
    expect(claimed).not.toBeNull();
    await own.schema.introspect({ id });
    const fingerprint = (await own.schema.metadataStatus({ id })).structure_fingerprint;
    const kept = {
      name: 'shop.customers',
      description: 'analysed before the crash',
      row_count: 1,
      primary_key: ['customer_id'],
      primary_key_source: 'declared',
      columns: [],
    };
    await deps.db
      .update(discoveryJobs)
      .set({
        progress: {
          ...(claimed!.progress as Record<string, unknown>),
          fingerprint,
          tables: { 'shop.customers': kept },
          done: 1,
        },
        heartbeatAt: new Date(Date.now() - 60_000),
      })
      .where(eq(discoveryJobs.id, job.id));
    expect(await discovery.claimJob(deps, 'busy-elsewhere', job.id, 120_000)).toBeNull();

    const resumed = await runQueued(job.id, 'instance-after-restart', 30_000);
    expect(resumed.state).toBe('succeeded');
    expect(resumed.summary?.tables.find((t) => t.name === 'shop.customers')?.description).toBe(
      'analysed before the crash',
    );
    expect(resumed.summary?.tables.find((t) => t.name === 'shop.orders')?.row_count).toBeGreaterThan(0);
    expect(await analysesUsed(principal.workspaceId)).toBe(1);
  });

  it('a retry after a cancelled job goes on from its finished tables without a charge; a fresh one past the allowance is a 429', async () => {
    const { caller: own, principal } = await signedIn();
    const id = await demoConnectionId(own);
    const { deps } = await harness();
    const { job } = await own.discovery.startJob({ id });
    await own.schema.introspect({ id });
    const fingerprint = (await own.schema.metadataStatus({ id })).structure_fingerprint;
    // It had finished one table when it was asked to stop.
    const [queued] = await deps.db.select().from(discoveryJobs).where(eq(discoveryJobs.id, job.id));
    const customers = {
      name: 'shop.customers',
      description: null,
      row_count: 1,
      primary_key: null,
      primary_key_source: null,
      columns: [],
    };
    await deps.db
      .update(discoveryJobs)
      .set({
        progress: {
          ...(queued!.progress as Record<string, unknown>),
          fingerprint,
          tables: { 'shop.customers': customers },
        },
        cancelRequestedAt: new Date(),
      })
      .where(eq(discoveryJobs.id, job.id));
    const claimed = await discovery.claimJob(deps, 'holder', job.id);
    expect((await discovery.runJob(deps, claimed!))?.state).toBe('cancelled');

    const retry = await own.discovery.startJob({ id });
    expect(retry).toMatchObject({ attached: false, job: { charged: false } });
    expect((await runQueued(retry.job.id)).state).toBe('succeeded');
    expect(await analysesUsed(principal.workspaceId)).toBe(1);

    // The free plan's 5 a month: the rest used, a fresh analysis is refused with the quota code.
    await deps.db
      .update(usageCounters)
      .set({ count: 5 })
      .where(
        and(
          eq(usageCounters.workspaceId, principal.workspaceId),
          eq(usageCounters.metric, 'schema_analyses'),
        ),
      );
    const refused = await problemOf(own.discovery.startJob({ id }));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_schema_analyses_exceeded');
  });

  it('a holder whose job was taken over writes nothing more; the new holder ends it once', async () => {
    const { caller: own } = await signedIn();
    const id = await demoConnectionId(own);
    const { job } = await own.discovery.startJob({ id });
    const { deps } = await harness();
    const first = await discovery.claimJob(deps, 'same-process', job.id);
    await deps.db
      .update(discoveryJobs)
      .set({ heartbeatAt: new Date(Date.now() - 60_000) })
      .where(eq(discoveryJobs.id, job.id));
    // Taken over (by the same process: each claim has its own token).
    const second = await discovery.claimJob(deps, 'same-process', job.id, 30_000);
    expect(second?.lockedBy).not.toBe(first?.lockedBy);
    const stale = await discovery.runJob(deps, first!);
    expect(stale).toMatchObject({ state: 'running' });
    const ended = await discovery.runJob(deps, second!);
    expect(ended?.state).toBe('succeeded');
    const events = await discovery.eventsAfter(deps, job.id, 0);
    expect(events.filter((e) => e.event === 'complete')).toHaveLength(1);
    expect(
      events.filter(
        (e) => e.event === 'status' && (e.payload as { phase: string }).phase === 'introspecting',
      ),
    ).toHaveLength(1);
  });

  it("a job started in the background is taken at once by this instance's worker, not at its next look", async () => {
    const { caller: own } = await signedIn();
    const id = await demoConnectionId(own);
    const { deps } = await harness();
    // A worker that would look again only after a minute: the start must wake it.
    const worker = startDiscoveryWorker(deps, { pollMs: 60_000, instanceId: 'woken-worker' });
    deps.discoveryQueued = () => worker.kick();
    try {
      const { job } = await own.discovery.startJob({ id });
      await vi.waitFor(
        async () => expect((await own.discovery.getJob({ id, job_id: job.id })).state).toBe('succeeded'),
        { timeout: 20_000, interval: 100 },
      );
    } finally {
      delete deps.discoveryQueued;
      await worker.stop();
    }
  });

  it('a job cancelled before it did anything gives its unit back', async () => {
    const { caller: own, principal } = await signedIn();
    const id = await demoConnectionId(own);
    const { job } = await own.discovery.startJob({ id });
    expect(await analysesUsed(principal.workspaceId)).toBe(1);
    await own.discovery.cancelJob({ id, job_id: job.id });
    expect(await analysesUsed(principal.workspaceId)).toBe(0);
    expect((await own.discovery.getJob({ id, job_id: job.id })).state).toBe('cancelled');
  });

  it('with a model, it writes the descriptions, refines guessed types (not those of the engine) and names relationships; its tokens are counted; a failing model leaves the offline analysis', async () => {
    const describer: SchemaDescriber = async (request) => ({
      tables: request.tables.map((t) => ({
        name: t.name,
        description: `About ${t.name}.`,
        columns: t.columns.map((c) => ({
          name: c.name,
          description: `What ${c.name} holds.`,
          semantic_type:
            c.name === 'channel' || c.name === 'ordered_at' ? ('free_text' as const) : c.semantic_type,
        })),
      })),
      relationships: request.relationships.map((r) => ({
        ...r,
        name: `${r.from_table} belongs to ${r.to_table}`,
      })),
      usage: { prompt_tokens: 1234, completion_tokens: 56 },
      failed_slices: 0,
    });
    const { principal } = await signedIn();
    const { deps } = await harness();
    const withModel = await callerOf(principal, {
      deps: { ...deps, planner: { ...offlinePlanner, describeSchema: describer } },
    });
    const id = await demoConnectionId(withModel);
    const summary = await withModel.discovery.discover({ id });
    const orders = summary.tables.find((t) => t.name === 'shop.orders')!;
    expect(summary.analyser).toBe('model');
    expect(summary.usage).toMatchObject({ prompt_tokens: 1234, completion_tokens: 56 });
    expect(orders.description).toBe('About shop.orders.');
    expect(orders.columns.find((c) => c.name === 'channel')?.semantic_type).toBe('free_text');
    // The engine's own type decides for an instant, whatever the model says.
    expect(orders.columns.find((c) => c.name === 'ordered_at')?.semantic_type).toBe('datetime');
    // A description the engine gave (a comment) is kept.
    expect(
      summary.tables.find((t) => t.name === 'shop.customers')?.columns.find((c) => c.name === 'segment')
        ?.description,
    ).toMatch(/^Customer segment/);
    expect(summary.relationships.find((r) => r.from_table === 'shop.orders')?.name).toBe(
      'shop.orders belongs to shop.customers',
    );

    const broken = await callerOf(principal, {
      deps: {
        ...deps,
        planner: {
          ...offlinePlanner,
          describeSchema: async () => {
            throw new Error('model down');
          },
        },
      },
    });
    const offline = await broken.discovery.discover({ id });
    expect(offline.analyser).toBe('offline');
    expect(offline.usage.prompt_tokens).toBe(0);
    expect(offline.warnings.join(' ')).toMatch(/model could not describe/);
  });

  it('with one unit left, exactly one of two analyses started at once gets it', async () => {
    const { caller: own, principal } = await signedIn();
    const first = await demoConnectionId(own);
    const second = (
      await own.connections.create({
        name: 'Second',
        dialect: 'postgres',
        auth_mode: 'password',
        config: { host: '127.0.0.1', port: 5432, database: 'postgres', username: 'postgres', password: 'x' },
      })
    ).id;
    const { deps } = await harness();
    await deps.db.insert(usageCounters).values({
      workspaceId: principal.workspaceId,
      period: new Date().toISOString().slice(0, 7),
      metric: 'schema_analyses',
      count: 4,
    });
    const outcomes = await Promise.allSettled([
      own.discovery.startJob({ id: first }),
      own.discovery.startJob({ id: second }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(await codeOf(Promise.reject((refused as PromiseRejectedResult).reason))).toBe('TOO_MANY_REQUESTS');
    expect(await analysesUsed(principal.workspaceId)).toBe(5);
  });

  it("another workspace's connection and job are 404", async () => {
    const { caller: other } = await signedIn();
    expect(await codeOf(other.discovery.startJob({ id: demoId }))).toBe('NOT_FOUND');
    const { job } = await caller.discovery.startJob({ id: demoId });
    expect(await codeOf(other.discovery.getJob({ id: demoId, job_id: job.id }))).toBe('NOT_FOUND');
    expect(await codeOf(other.discovery.cancelJob({ id: demoId, job_id: job.id }))).toBe('NOT_FOUND');
    await caller.discovery.cancelJob({ id: demoId, job_id: job.id });
  });
});

describe('schema discovery on Elasticsearch (the stand-in)', () => {
  it('reads the index with dotted fields and no keys; values only of categories and places', async () => {
    const cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
    try {
      const { caller: own } = await signedIn();
      const { id } = await own.connections.create({
        name: 'Web logs',
        dialect: 'elasticsearch',
        auth_mode: 'basic',
        config: weblogsConfig(cluster.url),
      });
      const queries = cluster.stats().started;
      const summary = await own.discovery.discover({ id });
      const weblogs = summary.tables.find((t) => t.name === 'weblogs')!;
      const column = (name: string) => weblogs.columns.find((c) => c.name === name)!;
      expect(weblogs).toMatchObject({ primary_key: null, primary_key_source: null });
      expect(summary.relationships).toEqual([]);
      expect(weblogs.row_count).toBeGreaterThan(0);
      expect(column('@timestamp').semantic_type).toBe('datetime');
      expect(column('http.response.body.bytes').semantic_type).toBe('quantity');
      expect(column('http.response.status_code')).toMatchObject({ semantic_type: 'category' });
      expect(column('geo.location').semantic_type).toBe('geo');
      expect(column('message')).toMatchObject({ semantic_type: 'free_text', sample_values: [] });
      expect(column('event.outcome').sample_values.length).toBeGreaterThan(0);
      expect(column('user.name').sample_values).toEqual([]);
      // Every query of the analysis went to the engine, and is counted in the summary.
      expect(summary.usage.engine_queries).toBeGreaterThan(0);
      expect(cluster.stats().started - queries).toBeGreaterThanOrEqual(summary.usage.engine_queries);
    } finally {
      await closePools();
      await cluster.stop();
    }
  });
});

describe('cross-index links on Elasticsearch', () => {
  it('link a keyword field to the index it names only when asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aqs-cross-index-'));
    cpSync(fixtureDir('weblogs'), dir, { recursive: true });
    const index = (name: string, properties: Record<string, { type: string }>, docs: object[]) => {
      mkdirSync(join(dir, 'indices', name), { recursive: true });
      writeFileSync(join(dir, 'indices', name, 'mapping.json'), JSON.stringify({ mappings: { properties } }));
      writeFileSync(
        join(dir, 'indices', name, 'docs.ndjson'),
        docs.map((d) => JSON.stringify(d)).join('\n') + '\n',
      );
    };
    index('customers', { id: { type: 'keyword' }, segment: { type: 'keyword' } }, [
      { id: 'c1', segment: 'retail' },
      { id: 'c2', segment: 'pro' },
    ]);
    index('purchases', { customer_id: { type: 'keyword' }, amount: { type: 'double' } }, [
      { customer_id: 'c1', amount: 10 },
      { customer_id: 'c2', amount: 20 },
    ]);
    const cluster = await startTestCluster({ fixtures: dir, version: '8.15.0' });
    try {
      const { caller: own } = await signedIn();
      const { id } = await own.connections.create({
        name: 'Shop indices',
        dialect: 'elasticsearch',
        auth_mode: 'basic',
        config: { ...weblogsConfig(cluster.url), allowed_indices: ['customers', 'purchases'] },
      });
      expect((await own.discovery.discover({ id })).relationships).toEqual([]);
      const linked = await own.discovery.discover({ id, cross_index_links: true });
      expect(linked.cross_index_links).toBe(true);
      expect(linked.relationships).toEqual([
        expect.objectContaining({
          from_table: 'purchases',
          from_columns: ['customer_id'],
          to_table: 'customers',
          to_columns: ['id'],
          source: 'inferred',
        }),
      ]);
      // Asked again without: the links go.
      expect((await own.discovery.crossSchema({ id })).relationships).toEqual([]);
    } finally {
      await closePools();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!pgAvailable)('schema discovery on a PostgreSQL schema that declares no keys', () => {
  const database = `aqs_discovery_${randomBytes(4).toString('hex')}`;
  let root: postgres.Sql;
  let admin: postgres.Sql;
  let crmId: string;

  beforeAll(async () => {
    root = postgres(testDatabaseUrl, { max: 1, onnotice: () => undefined });
    await root.unsafe(`CREATE DATABASE ${database}`);
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${database}`;
    admin = postgres(url.toString(), { max: 1, onnotice: () => undefined });
    await admin.unsafe(`
      CREATE SCHEMA crm;
      CREATE TABLE crm.accounts (id integer, name text, industry text, created_at timestamptz);
      CREATE TABLE crm.contacts (id integer, account_id integer, email text, full_name text);
      CREATE TABLE crm.deals (id integer, account_id integer, contact_id integer, amount numeric(12,2), stage text);
      CREATE TABLE crm.tickets (id integer, account_id integer, priority text);
      INSERT INTO crm.accounts SELECT g, 'Account ' || g, (ARRAY['retail','energy','media'])[1 + g % 3], now() FROM generate_series(1, 40) g;
      INSERT INTO crm.contacts SELECT g, 1 + g % 40, 'c' || g || '@example.com', 'Contact ' || g FROM generate_series(1, 120) g;
      INSERT INTO crm.deals SELECT g, 1 + g % 40, 1 + g % 120, g * 10.5, (ARRAY['open','won','lost'])[1 + g % 3] FROM generate_series(1, 300) g;
      -- A ticket of an account that is not there: no relationship may be claimed.
      INSERT INTO crm.tickets SELECT g, CASE WHEN g = 7 THEN 999 ELSE 1 + g % 40 END, 'high' FROM generate_series(1, 50) g;
    `);
    const url2 = new URL(testDatabaseUrl);
    crmId = (
      await caller.connections.create({
        name: 'CRM',
        dialect: 'postgres',
        auth_mode: 'password',
        config: {
          host: url2.hostname,
          port: Number(url2.port || 5432),
          database,
          username: decodeURIComponent(url2.username || 'postgres'),
          password: decodeURIComponent(url2.password || 'unused'),
          ssl_mode: 'disable',
          schemas: ['crm'],
        },
      })
    ).id;
  }, 120_000);

  afterAll(async () => {
    await admin?.end();
    await closePools();
    await root?.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await root?.end();
  });

  it('infers primary keys from the data, and relationships only where every value has its row', async () => {
    const summary = await caller.discovery.discover({ id: crmId });
    const table = (name: string) => summary.tables.find((t) => t.name === name)!;
    expect(table('crm.accounts')).toMatchObject({ primary_key: ['id'], primary_key_source: 'inferred' });
    expect(table('crm.contacts').primary_key).toEqual(['id']);
    const links = summary.relationships.map(
      (r) => `${r.from_table}.${r.from_columns[0]} -> ${r.to_table}.${r.to_columns[0]}`,
    );
    expect(links).toEqual(
      expect.arrayContaining([
        'crm.contacts.account_id -> crm.accounts.id',
        'crm.deals.account_id -> crm.accounts.id',
        'crm.deals.contact_id -> crm.contacts.id',
      ]),
    );
    expect(links).not.toContain('crm.tickets.account_id -> crm.accounts.id');
    expect(table('crm.deals').columns.find((c) => c.name === 'amount')?.semantic_type).toBe('money');
    expect(table('crm.deals').columns.find((c) => c.name === 'stage')).toMatchObject({
      semantic_type: 'category',
      sample_values: expect.arrayContaining(['open', 'won', 'lost']),
    });
  });

  it('a curated semantic type is kept beside the descriptions and read back; a wrong one names its field', async () => {
    const saved = await caller.schema.putMetadata({
      id: crmId,
      tables: [
        {
          name: 'crm.tickets',
          description: null,
          columns: [{ name: 'priority', description: 'How urgent', semantic_type: 'category' }],
        },
      ],
    });
    expect(saved.curated).toMatchObject({ tables: [{ name: 'crm.tickets' }] });
    const read = await caller.schema.getMetadata({ id: crmId });
    expect(read.curated).toEqual(saved.curated);
    const wrong = await problemOf(
      caller.schema.putMetadata({
        id: crmId,
        tables: [
          {
            name: 'crm.tickets',
            columns: [{ name: 'priority', description: null, semantic_type: 'colour' as never }],
          },
        ],
      }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors?.[0]?.field).toBe('tables.0.columns.0.semantic_type');
  });

  it('curated values survive a new analysis, and a structure change makes the metadata stale', async () => {
    await caller.schema.putMetadata({
      id: crmId,
      tables: [{ name: 'crm.deals', description: 'Sales opportunities', columns: [] }],
    });
    await caller.discovery.discover({ id: crmId });
    expect((await caller.schema.table({ connection_id: crmId, table_name: 'crm.deals' })).description).toBe(
      'Sales opportunities',
    );
    expect((await caller.schema.metadataStatus({ id: crmId })).stale).toBe(false);

    await admin.unsafe('ALTER TABLE crm.deals ADD COLUMN closed_on date');
    await admin.unsafe('CREATE TABLE crm.notes (id integer, body text)');
    await admin.unsafe('DROP TABLE crm.tickets');
    await caller.schema.introspect({ id: crmId });
    const status = await caller.schema.metadataStatus({ id: crmId });
    expect(status.stale).toBe(true);
    expect(status.changes).toEqual({
      added: ['crm.notes'],
      removed: ['crm.tickets'],
      changed: ['crm.deals'],
    });
    expect(status.reason).toMatch(
      /structure changed since the last analysis \(added: crm\.notes; removed: crm\.tickets; changed: crm\.deals\)/,
    );
    // Relationships alone cannot be found again on an analysis of another structure.
    expect(await codeOf(caller.discovery.crossSchema({ id: crmId }))).toBe('CONFLICT');
    await caller.discovery.discover({ id: crmId });
    expect(await caller.schema.metadataStatus({ id: crmId })).toMatchObject({ stale: false, changes: null });
  });
});
