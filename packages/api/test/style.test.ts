import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { usageCounters } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { ChartArtifact, RunResult } from '@aqs/contracts';
import { closePools, codeOf, harness, problemOf, signedIn, type Caller } from './harness.ts';

let cluster: TestCluster;
let caller: Caller;
let workspaceId: string;
let esId: string;

const chartOf = (run: RunResult) => run.artifacts.find((a): a is ChartArtifact => a.kind === 'chart');

async function questionsUsed(): Promise<number> {
  const rows = await (
    await harness()
  ).store.db
    .select()
    .from(usageCounters)
    .where(eq(usageCounters.workspaceId, workspaceId));
  return rows.reduce((n, r) => n + (r.metric === 'questions' ? r.count : 0), 0);
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
  const signed = await signedIn();
  caller = signed.caller;
  workspaceId = signed.principal.workspaceId;
  const es = await caller.connections.create({
    name: 'Web logs',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: {
      cluster_url: cluster.url,
      username: 'elastic',
      password: 'changeme',
      allowed_indices: ['weblogs'],
    },
  });
  esId = es.id;
}, 120_000);

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

describe('conversation style', () => {
  it('starts as the default style at version 0, and a patch bumps the version and shows on every chart', async () => {
    const run = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const initial = await caller.style.get({ id: run.conversation_id });
    expect(initial).toMatchObject({ conversation_id: run.conversation_id, version: 0, preset: 'default' });

    const palette = ['#112233', '#445566'];
    const updated = await caller.style.update({
      id: run.conversation_id,
      palette,
      legend_position: 'bottom',
    });
    expect(updated).toMatchObject({ version: 1, palette, legend_position: 'bottom' });
    expect((await caller.style.update({ id: run.conversation_id, theme: 'dark' })).version).toBe(2);

    const again = await caller.runs.get({ run_id: run.id });
    expect(chartOf(again)!.option.color).toEqual(palette);
    const restyled = await caller.style.restyle({
      id: run.conversation_id,
      run_id: run.id,
      artifact_id: chartOf(run)!.id,
    });
    expect(restyled).toMatchObject({ run_id: run.id, style_version: 2 });
    expect(restyled.option.color).toEqual(palette);
    expect(restyled.option).toEqual(chartOf(again)!.option);
    // A conversation's style is its own.
    const other = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    expect(chartOf(other)!.option.color).not.toEqual(palette);
  });

  it('refuses unknown settings and bad values, naming each field', async () => {
    const run = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const unknown = await problemOf(
      caller.style.update({ id: run.conversation_id, legend_colour: 'red' } as never),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors?.map((e) => e.field)).toContain('legend_colour');
    const bad = await problemOf(
      caller.style.update({
        id: run.conversation_id,
        legend_position: 'middle',
        palette: ['#fff', 'not a colour!'],
        axis_label_rotation: 400,
      } as never),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors?.map((e) => e.field)).toEqual(
      expect.arrayContaining(['legend_position', 'palette.1', 'axis_label_rotation']),
    );
    expect((await caller.style.get({ id: run.conversation_id })).version).toBe(0);
  });

  it('restyle needs the run and the artifact of that conversation, and a chart', async () => {
    const a = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const b = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    expect(
      await codeOf(
        caller.style.restyle({ id: a.conversation_id, run_id: b.id, artifact_id: chartOf(b)!.id }),
      ),
    ).toBe('NOT_FOUND');
    expect(
      await codeOf(
        caller.style.restyle({ id: a.conversation_id, run_id: a.id, artifact_id: chartOf(b)!.id }),
      ),
    ).toBe('NOT_FOUND');
    const table = a.artifacts.find((x) => x.kind === 'table')!;
    const refused = await problemOf(
      caller.style.restyle({ id: a.conversation_id, run_id: a.id, artifact_id: table.id }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.errors?.[0]?.field).toBe('artifact_id');
  });

  it('lists at least six presets, with a colour-blind-safe one and a monochrome print one', async () => {
    const { presets } = await caller.style.presets({});
    expect(presets.length).toBeGreaterThanOrEqual(6);
    expect(presets.map((p) => p.name)).toEqual(expect.arrayContaining(['colourblind', 'print', 'dark']));
    const print = presets.find((p) => p.name === 'print')!;
    for (const colour of print.palette) {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
      expect(r === g && g === b, `${colour} is grey`).toBe(true);
    }
  });
});

describe('style requests in plain language', () => {
  it('change the style, not the query: no planner, no engine query, no question charged', async () => {
    const first = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const queries = cluster.stats().started;
    const used = await questionsUsed();

    const styled = await caller.runs.run({
      question: 'dark theme with the legend at the bottom',
      connection_id: esId,
      conversation_id: first.conversation_id,
    });
    expect(styled.status).toBe('succeeded');
    expect(styled.planner).toBe('style');
    expect(styled.query).toEqual(first.query);
    expect(styled.warnings.map((w) => w.code)).toContain('style_changed');
    expect(cluster.stats().started).toBe(queries);
    expect(await questionsUsed()).toBe(used);
    const style = await caller.style.get({ id: first.conversation_id });
    expect(style).toMatchObject({ version: 1, theme: 'dark', legend_position: 'bottom' });

    const line = await caller.runs.run({
      question: 'make it a line chart',
      connection_id: esId,
      conversation_id: first.conversation_id,
    });
    expect(line.planner).toBe('style');
    expect(chartOf(line)?.chart_type).toBe('line');
    // What a style turn answers is what is stored, its chart in the conversation's new style.
    expect(await caller.runs.get({ run_id: styled.id })).toEqual(styled);
    expect(await caller.runs.get({ run_id: line.id })).toEqual(line);
    // The earlier answer keeps its own chart type.
    expect(chartOf(await caller.runs.get({ run_id: first.id }))?.chart_type).toBe(chartOf(first)?.chart_type);
  });

  it('a data question in the same conversation is planned and run as usual', async () => {
    const first = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const queries = cluster.stats().started;
    const next = await caller.runs.run({
      question: 'number of requests per day',
      connection_id: esId,
      conversation_id: first.conversation_id,
    });
    expect(next.planner).toBe('offline');
    expect(cluster.stats().started).toBeGreaterThan(queries);
  });

  it("restyles only answers of the connection asked on (a deleted connection's answers are not replayed)", async () => {
    const gone = await caller.connections.create({
      name: 'Soon gone',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: cluster.url,
        username: 'elastic',
        password: 'changeme',
        allowed_indices: ['weblogs'],
      },
    });
    const first = await caller.runs.run({
      question: 'number of requests per country',
      connection_id: gone.id,
    });
    await caller.connections.delete({ id: gone.id });
    const next = await caller.runs.run({
      question: 'dark theme',
      connection_id: esId,
      conversation_id: first.conversation_id,
    });
    expect(next.planner).not.toBe('style');
    expect(next.query).not.toEqual(first.query);
  });

  it('a conversation holds at most 50 style turns; then the answer says how to restyle instead', async () => {
    const first = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const ask = (question: string) =>
      caller.runs.run({ question, connection_id: esId, conversation_id: first.conversation_id });
    for (let i = 0; i < 50; i++)
      expect((await ask(i % 2 ? 'legend at the top' : 'legend at the bottom')).planner).toBe('style');
    const refused = await problemOf(ask('dark theme'));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`/api/v1/conversations/${first.conversation_id}/style`);
  });

  it('outside a conversation with an answer, a style request is a question like any other', async () => {
    const run = await caller.runs.run({ question: 'legend at the bottom', connection_id: esId });
    expect(run.planner).not.toBe('style');
  });
});
