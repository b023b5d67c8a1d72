import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { usageCounters } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { Principal } from '@aqs/core';
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
let principal: Principal;
let esId: string;

const counting = countingPlanner();

async function countingCaller(): Promise<Caller> {
  return callerOf(principal, { deps: { ...(await harness()).deps, planner: counting.planner } });
}

async function questionsUsed(workspaceId: string): Promise<number> {
  const rows = await (
    await harness()
  ).store.db
    .select()
    .from(usageCounters)
    .where(eq(usageCounters.workspaceId, workspaceId));
  return rows.reduce((n, r) => n + (r.metric === 'questions' ? r.count : 0), 0);
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  ({ caller, principal } = await signedIn());
  const es = await caller.connections.create({
    name: 'Web logs',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: weblogsConfig(cluster.url),
  });
  esId = es.id;
}, 120_000);

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

describe('artifacts.get', () => {
  it('answers the record: the shape of the run result plus run, conversation, question, version and times', async () => {
    const run = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    for (const artifact of run.artifacts) {
      const record = await caller.artifacts.get({ artifact_id: artifact.id });
      expect(record).toMatchObject({
        id: artifact.id,
        kind: artifact.kind,
        run_id: run.id,
        conversation_id: run.conversation_id,
        question: 'number of requests per country',
        version: 1,
        refreshed_at: null,
      });
      expect(Date.parse(record.created_at)).not.toBeNaN();
      if (record.kind === 'table' && artifact.kind === 'table') expect(record.rows).toEqual(artifact.rows);
      if (record.kind === 'chart' && artifact.kind === 'chart')
        expect(record.option).toEqual(artifact.option);
    }
  });

  it('is a 404 for an unknown id', async () => {
    expect(await codeOf(caller.artifacts.get({ artifact_id: 'art_nope' }))).toBe('NOT_FOUND');
  });
});

describe('artifacts.refresh', () => {
  it('re-executes the stored query on the engine, never the planner, and charges no question', async () => {
    const counted = await countingCaller();
    const run = await counted.runs.run({ question: 'number of requests per country', connection_id: esId });
    const table = run.artifacts.find((a) => a.kind === 'table')!;
    const chart = run.artifacts.find((a) => a.kind === 'chart')!;
    const planned = counting.calls();
    const queries = cluster.stats().started;
    const used = await questionsUsed(principal.workspaceId);

    const refreshed = await counted.artifacts.refresh({ run_id: run.id, artifact_id: table.id });
    expect(refreshed.version).toBe(2);
    expect(refreshed.refreshed_at).not.toBeNull();
    expect(cluster.stats().started).toBe(queries + 1);
    expect(counting.calls()).toBe(planned);
    expect(await questionsUsed(principal.workspaceId)).toBe(used);
    // The chart of the run was rebuilt from the same fresh rows.
    const chartAfter = await counted.artifacts.get({ artifact_id: chart.id });
    expect(chartAfter.version).toBe(2);
    expect(chartAfter.refreshed_at).toBe(refreshed.refreshed_at);
  });

  it('an engine failure leaves the old version in place and answers the connector symptom', async () => {
    const { caller: user } = await signedIn();
    const down = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
    const conn = await user.connections.create({
      name: 'Goes down',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(down.url),
    });
    const run = await user.runs.run({ question: 'number of requests per country', connection_id: conn.id });
    const table = run.artifacts.find((a) => a.kind === 'table')!;
    await down.stop();
    const refused = await problemOf(user.artifacts.refresh({ run_id: run.id, artifact_id: table.id }));
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('data_source_unreachable');
    expect(refused.body.symptom).toBeTruthy();
    const kept = await user.artifacts.get({ artifact_id: table.id });
    expect(kept.version).toBe(1);
    expect(kept.refreshed_at).toBeNull();
    if (kept.kind === 'table' && table.kind === 'table') expect(kept.rows).toEqual(table.rows);
  });

  it('is a 404 when the artifact is addressed through another run, and a 409 for a run without a query', async () => {
    const first = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const second = await caller.runs.run({ question: 'requests per day', connection_id: esId });
    expect(
      await codeOf(caller.artifacts.refresh({ run_id: second.id, artifact_id: first.artifacts[0]!.id })),
    ).toBe('NOT_FOUND');
    const failed = await caller.runs.run({ question: 'what is the meaning of life', connection_id: esId });
    expect(failed.status).toBe('failed');
    // A failed run has no artifacts: even its own id path has nothing to refresh.
    expect(await codeOf(caller.artifacts.refresh({ run_id: failed.id, artifact_id: 'art_nope' }))).toBe(
      'NOT_FOUND',
    );
  });

  it('is a 409 with the way out when the connection is paused', async () => {
    const run = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    await caller.connections.paused({ id: esId, paused: true });
    try {
      const refused = await problemOf(
        caller.artifacts.refresh({ run_id: run.id, artifact_id: run.artifacts[0]!.id }),
      );
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/paused/);
    } finally {
      await caller.connections.paused({ id: esId, paused: false });
    }
  });
});
