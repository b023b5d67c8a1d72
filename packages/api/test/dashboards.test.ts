import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import {
  callerOf,
  closePools,
  codeOf,
  countingPlanner,
  harness,
  problemOf,
  signedIn,
  weblogsConfig,
  type Caller,
} from './harness.ts';

const weblogs = fixtureDir('weblogs');

let cluster: TestCluster;
let caller: Caller;
let esId: string;
const counting = countingPlanner();

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  const { principal } = await signedIn();
  caller = await callerOf(principal, { deps: { ...(await harness()).deps, planner: counting.planner } });
  esId = (
    await caller.connections.create({
      name: 'Web logs',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(cluster.url),
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

async function pinned(question: string, dashboardId: string) {
  const run = await caller.runs.run({ question, connection_id: esId });
  const chart = run.artifacts.find((a) => a.kind === 'chart') ?? run.artifacts[0]!;
  return { run, item: await caller.dashboards.addItem({ id: dashboardId, artifact_id: chart.id }) };
}

describe('dashboards', () => {
  it('pins answers, lists with counts, reorders only by a permutation, and keeps items when their conversation goes', async () => {
    const board = await caller.dashboards.create({ name: 'Traffic' });
    const a = await pinned('number of requests per country', board.id);
    const b = await pinned('requests per day', board.id);
    expect((await caller.dashboards.list({})).dashboards.find((d) => d.id === board.id)?.item_count).toBe(2);

    const missing = await problemOf(caller.dashboards.reorder({ id: board.id, item_ids: [b.item.id] }));
    expect(missing.status).toBe(422);
    expect(missing.body.errors?.[0]?.field).toBe('item_ids');
    const extra = await problemOf(
      caller.dashboards.reorder({ id: board.id, item_ids: [b.item.id, a.item.id, 'dbi_other'] }),
    );
    expect(extra.body.errors?.map((e) => e.message).join(' ')).toMatch(/dbi_other/);
    const reordered = await caller.dashboards.reorder({ id: board.id, item_ids: [b.item.id, a.item.id] });
    expect(reordered.items.map((i) => i.id)).toEqual([b.item.id, a.item.id]);

    await caller.conversations.delete({ id: a.run.conversation_id });
    const after = await caller.dashboards.get({ id: board.id });
    const kept = after.items.find((i) => i.id === a.item.id)!;
    expect(kept).toMatchObject({ run_id: null, artifact_id: null, connection_id: esId });
    expect(kept.data.kind).toBe('chart');
  });

  it('refresh runs each item query on the engine, never the planner, and one failure leaves the others refreshed', async () => {
    const board = await caller.dashboards.create({ name: 'Refresh' });
    await pinned('number of requests per country', board.id);
    await pinned('requests per day', board.id);
    const down = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
    const doomed = await caller.connections.create({
      name: 'Goes down',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(down.url),
    });
    const run = await caller.runs.run({
      question: 'number of requests per country',
      connection_id: doomed.id,
    });
    const failing = await caller.dashboards.addItem({ id: board.id, artifact_id: run.artifacts[0]!.id });
    await down.stop();

    const planned = counting.calls();
    const queries = cluster.stats().started;
    const { outcomes, dashboard } = await caller.dashboards.refresh({ id: board.id });
    expect(cluster.stats().started).toBe(queries + 2);
    expect(counting.calls()).toBe(planned);
    expect(outcomes.filter((o) => o.status === 'refreshed')).toHaveLength(2);
    expect(outcomes.find((o) => o.item_id === failing.id)).toMatchObject({ status: 'failed' });
    expect(dashboard.items.find((i) => i.id === failing.id)?.last_error?.type).toBe(
      'data_source_unreachable',
    );
  });

  it('an item whose connection was deleted keeps its data and says why at its refresh', async () => {
    const board = await caller.dashboards.create({ name: 'Orphan' });
    const gone = await caller.connections.create({
      name: 'Soon deleted',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(cluster.url),
    });
    const run = await caller.runs.run({ question: 'requests per day', connection_id: gone.id });
    const item = await caller.dashboards.addItem({ id: board.id, artifact_id: run.artifacts[0]!.id });
    await caller.connections.delete({ id: gone.id });

    const queries = cluster.stats().started;
    const { outcomes, dashboard } = await caller.dashboards.refreshItem({ id: board.id, item_id: item.id });
    expect(cluster.stats().started).toBe(queries);
    expect(outcomes[0]).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/deleted/) },
    });
    const kept = dashboard.items.find((i) => i.id === item.id)!;
    expect(kept.connection_id).toBeNull();
    expect(kept.data).toEqual(item.data);
    expect(kept.last_error?.message).toMatch(/ask the question again on another connection/);
  });

  it('two refreshes of one dashboard at once run each query once', async () => {
    const board = await caller.dashboards.create({ name: 'Twice' });
    await pinned('number of requests per country', board.id);
    await pinned('requests per day', board.id);
    const queries = cluster.stats().started;
    const [first, second] = await Promise.all([
      caller.dashboards.refresh({ id: board.id }),
      caller.dashboards.refresh({ id: board.id }),
    ]);
    expect(cluster.stats().started).toBe(queries + 2);
    expect(second.outcomes).toEqual(first.outcomes);
  });

  it('a refresh runs at most 2 queries at once on one connection and at most 4 in all (measured on the stand-in)', async () => {
    // Its own workspace: the free plan's 3 connections are all needed here.
    const { principal } = await signedIn();
    const own = await callerOf(principal, { deps: { ...(await harness()).deps, planner: counting.planner } });
    const connections: string[] = [];
    for (const name of ['Logs A', 'Logs B', 'Logs C'])
      connections.push(
        (
          await own.connections.create({
            name,
            dialect: 'elasticsearch',
            auth_mode: 'basic',
            config: weblogsConfig(cluster.url),
          })
        ).id,
      );
    const pin = async (question: string, dashboardId: string, connectionId: string) => {
      const run = await own.runs.run({ question, connection_id: connectionId });
      await own.dashboards.addItem({ id: dashboardId, artifact_id: run.artifacts[0]!.id });
    };
    const single = await own.dashboards.create({ name: 'One source' });
    for (const question of ['number of requests per country', 'requests per day', 'requests per day'])
      await pin(question, single.id, connections[0]!);
    const spread = await own.dashboards.create({ name: 'Three sources' });
    for (const connectionId of connections)
      for (const question of ['number of requests per country', 'requests per day'])
        await pin(question, spread.id, connectionId);

    // Long enough that queries started together overlap on a loaded machine.
    cluster.setQueryDelay(500);
    try {
      cluster.resetPeak();
      const one = await own.dashboards.refresh({ id: single.id });
      expect(one.outcomes.every((o) => o.status === 'refreshed')).toBe(true);
      expect(cluster.stats().peakActive).toBe(2);

      cluster.resetPeak();
      const started = cluster.stats().started;
      const three = await own.dashboards.refresh({ id: spread.id });
      expect(three.outcomes.every((o) => o.status === 'refreshed')).toBe(true);
      expect(cluster.stats().started).toBe(started + 6);
      expect(cluster.stats().peakActive).toBe(4);
    } finally {
      cluster.setQueryDelay(0);
    }
  });

  it('foreign and unknown ids are 404; pinning another workspace artifact is a 404', async () => {
    const board = await caller.dashboards.create({ name: 'Mine' });
    const { caller: other } = await signedIn();
    expect(await codeOf(other.dashboards.get({ id: board.id }))).toBe('NOT_FOUND');
    const run = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const theirs = await other.dashboards.create({ name: 'Theirs' });
    expect(await codeOf(other.dashboards.addItem({ id: theirs.id, artifact_id: run.artifacts[0]!.id }))).toBe(
      'NOT_FOUND',
    );
  });
});
