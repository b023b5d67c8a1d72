import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { usageCounters } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import {
  createCascadePlanner,
  createLlmPlanner,
  createOpenAiCompatibleModel,
  offlinePlanner,
} from '@aqs/planner';
import {
  callerOf,
  closePools,
  codeOf,
  demoConnectionId,
  harness,
  problemOf,
  signedIn,
  type Caller,
} from './harness.ts';

const weblogs = fixtureDir('weblogs');
const weblogsConfig = (url: string) => ({
  cluster_url: url,
  username: 'elastic',
  password: 'changeme',
  allowed_indices: ['weblogs'],
});

let cluster: TestCluster;
let caller: Caller;
let esId: string;
let demoId: string;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  ({ caller } = await signedIn());
  const es = await caller.connections.create({
    name: 'Web logs',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: weblogsConfig(cluster.url),
  });
  esId = es.id;
  demoId = await demoConnectionId(caller);
}, 120_000);

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

describe('runs.run', () => {
  it('answers a question over Elasticsearch with ES|QL, a table and a chart', async () => {
    const run = await caller.runs.run({
      question: 'number of requests per country',
      connection_id: esId,
      chart_requested: true,
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      planner: 'offline',
      turn_index: 0,
      connection_id: esId,
      error: null,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    });
    expect(run.query!.dialect).toBe('esql');
    // `requests` are the documents with request fields.
    expect(run.query!.text).toMatch(
      /^FROM weblogs \| WHERE http\.request\.method IS NOT NULL \| STATS .* BY geo\.country_name/,
    );
    expect(run.query!.text).toMatch(/LIMIT \d+$/);
    const table = run.artifacts.find((a) => a.kind === 'table') as any;
    expect(table.row_count).toBeGreaterThan(1);
    expect(table.columns.map((c: any) => c.type)).toContain('long');
    const chart = run.artifacts.find((a) => a.kind === 'chart') as any;
    expect(chart.chart_type).toBe('bar');
    expect(JSON.stringify(chart.option)).not.toMatch(/function|=>/);
    expect(run.timings_ms.executing).toBeGreaterThanOrEqual(0);
    // What a client reads back is what it was answered (as JSON, the way both adapters send it).
    expect(JSON.parse(JSON.stringify(await caller.runs.get({ run_id: run.id })))).toEqual(
      JSON.parse(JSON.stringify(run)),
    );
    // The values sampled for planning are shown by the schema procedures.
    const weblogsTable = await caller.schema.table({ connection_id: esId, table_name: 'weblogs' });
    const column = (name: string) => weblogsTable.columns.find((c) => c.name === name)!;
    expect(column('geo.country_name').sample_values).toEqual(
      expect.arrayContaining(['France', 'United States']),
    );
    expect(column('user.id').sample_values).toEqual([]);
    // A widened small integer (ES `short`, read as `integer`) is sampled by its native type.
    expect(column('http.response.status_code').sample_values).toEqual(expect.arrayContaining([200, 404]));
  });

  it('answers a question over the demo database with SQL', async () => {
    const run = await caller.runs.run({ question: 'how many orders per status', connection_id: demoId });
    expect(run.status).toBe('succeeded');
    expect(run.query!.dialect).toBe('sql');
    expect(run.query!.text).toMatch(/"shop"\."orders"/);
    const table = run.artifacts.find((a) => a.kind === 'table') as any;
    expect(table.rows.length).toBeGreaterThanOrEqual(3);
    // How the question was read, from the spec: shown above the answer.
    expect(run.interpretation).toBe('Number of orders, by status, sorted by count (highest first).');
    expect((await caller.runs.get({ run_id: run.id })).interpretation).toBe(run.interpretation);
  });

  it('fails a question it cannot map with a helpful message, stored as a failed run', async () => {
    const run = await caller.runs.run({ question: 'what is the meaning of life', connection_id: esId });
    expect(run.status).toBe('failed');
    expect(run.error!.type).toBe('unanswerable');
    expect(run.error!.message.length).toBeGreaterThan(40);
    expect(run.artifacts).toEqual([]);
    expect(run.interpretation).toBeNull();
    expect((await caller.runs.get({ run_id: run.id })).status).toBe('failed');
  });

  it('validates the request: question length, unknown fields, list limits', async () => {
    const empty = await problemOf(caller.runs.run({ question: '', connection_id: esId }));
    expect(empty.status).toBe(422);
    expect(empty.body.errors![0]!.field).toBe('question');
    const long = await problemOf(caller.runs.run({ question: 'x'.repeat(2001), connection_id: esId }));
    expect(long.status).toBe(422);
    expect(long.body.errors![0]).toEqual({ field: 'question', message: 'must be at most 2000 characters' });
    const unknown = await problemOf(
      caller.runs.run({ question: 'count requests', connection_id: esId, mode: 'x' } as any),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ field: 'mode', message: 'is not a known field; remove it' }]);
    const limit = await problemOf(caller.runs.list({ limit: 101 }));
    expect(limit.status).toBe(422);
    expect(limit.body.errors![0]).toEqual({ field: 'limit', message: 'must be at most 100' });
    expect((await problemOf(caller.conversations.list({ limit: 101 }))).status).toBe(422);
  });

  it('NOT_FOUND for unknown or foreign connections and conversations; CONFLICT with a way out for a paused connection', async () => {
    expect(await codeOf(caller.runs.run({ question: 'count requests', connection_id: 'con_nope' }))).toBe(
      'NOT_FOUND',
    );
    const other = await signedIn();
    expect(await codeOf(other.caller.runs.run({ question: 'count requests', connection_id: esId }))).toBe(
      'NOT_FOUND',
    );
    expect(
      await codeOf(
        caller.runs.run({ question: 'count requests', connection_id: esId, conversation_id: 'cnv_nope' }),
      ),
    ).toBe('NOT_FOUND');

    const paused = await caller.connections.create({
      name: 'Paused',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(cluster.url),
    });
    await caller.connections.paused({ id: paused.id, paused: true });
    const refused = await problemOf(
      caller.runs.run({ question: 'count requests', connection_id: paused.id }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/paused.*"paused": false/);
  });

  it('ends the run as failed with the symptom when the engine is down', async () => {
    const { caller: user } = await signedIn();
    const down = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
    const conn = await user.connections.create({
      name: 'Down',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: weblogsConfig(down.url),
    });
    await user.schema.introspect({ id: conn.id });
    await down.stop();
    const run = await user.runs.run({ question: 'number of requests per country', connection_id: conn.id });
    expect(run.status).toBe('failed');
    expect(run.error!.type).toBe('unreachable');
  });

  it('answers 429 with a code when the monthly questions are used up, and charges nothing', async () => {
    const { caller: user } = await signedIn();
    const me = await user.auth.me();
    const demo = await demoConnectionId(user);
    const { db } = (await harness()).store;
    const period = new Date().toISOString().slice(0, 7);
    await db
      .insert(usageCounters)
      .values({ workspaceId: me.workspace.id, period, metric: 'questions', count: 200 });
    const refused = await problemOf(user.runs.run({ question: 'how many orders', connection_id: demo }));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_questions_exceeded');
    const [row] = await db.select().from(usageCounters).where(eq(usageCounters.workspaceId, me.workspace.id));
    expect(row!.count).toBe(200);
  });

  it('lets exactly one of several concurrent runs take the last unit of the monthly quota', async () => {
    const { caller: user } = await signedIn();
    const me = await user.auth.me();
    const demo = await demoConnectionId(user);
    await user.runs.run({ question: 'how many orders', connection_id: demo });
    const { db } = (await harness()).store;
    const period = new Date().toISOString().slice(0, 7);
    await db.update(usageCounters).set({ count: 199 }).where(eq(usageCounters.workspaceId, me.workspace.id));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => user.runs.run({ question: 'how many orders', connection_id: demo })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(refused).toHaveLength(4);
    for (const error of refused) expect(await codeOf(Promise.reject(error))).toBe('TOO_MANY_REQUESTS');
    const [row] = await db.select().from(usageCounters).where(eq(usageCounters.workspaceId, me.workspace.id));
    expect(row).toMatchObject({ period, count: 200 });
  });
});

describe('runs in a conversation, and the history', () => {
  it('refuses a conversation of another connection, naming conversation_id', async () => {
    const first = await caller.runs.run({ question: 'how many orders', connection_id: demoId });
    const refused = await problemOf(
      caller.runs.run({
        question: 'count requests',
        connection_id: esId,
        conversation_id: first.conversation_id,
      }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.errors![0]!.field).toBe('conversation_id');
  });

  it('filters run history by connection and status, newest first, with limit and offset', async () => {
    // Beside the runs above (one succeeded, one failed on this connection), one more.
    await caller.runs.run({ question: 'requests per day', connection_id: esId });
    const all = await caller.runs.list({ connection_id: esId, limit: 100 });
    expect(all.total).toBeGreaterThan(2);
    const times = all.runs.map((r) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const page = await caller.runs.list({ connection_id: esId, limit: 1, offset: 1 });
    expect(page.runs[0]!.id).toBe(all.runs[1]!.id);
    const failed = await caller.runs.list({ status: 'failed' });
    expect(failed.runs.length).toBeGreaterThan(0);
    expect(failed.runs.every((r) => r.status === 'failed')).toBe(true);
    expect((await problemOf(caller.runs.list({ status: 'weird' } as any))).status).toBe(422);
  });
});

/**
 * ES|QL compares only single values: `labels == "canary"` leaves out every document whose labels
 * hold several values. The service probes which fields hold several values, reads one value of them
 * after MV_EXPAND, and refuses other comparisons; grouping by the field (which counts each value)
 * works as it is.
 */
describe('fields with several values in a document', () => {
  let dir: string;
  let builds: TestCluster;
  let connectionId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aqs-multi-valued-'));
    mkdirSync(join(dir, 'indices', 'builds'), { recursive: true });
    writeFileSync(
      join(dir, 'indices', 'builds', 'mapping.json'),
      JSON.stringify({
        properties: {
          '@timestamp': { type: 'date' },
          labels: { type: 'keyword' },
          outcome: { type: 'keyword' },
        },
      }),
    );
    const labels: (string | string[] | null)[] = [
      'canary',
      ['canary', 'nightly'],
      'nightly',
      ['nightly', 'canary'],
      null,
      'canary',
      ['release', 'canary'],
      'release',
    ];
    const docs = labels.map((l, i) =>
      JSON.stringify({
        '@timestamp': `2025-03-0${1 + (i % 7)}T10:00:00Z`,
        outcome: i % 2 ? 'passed' : 'failed',
        ...(l === null ? {} : { labels: l }),
      }),
    );
    writeFileSync(join(dir, 'indices', 'builds', 'docs.ndjson'), docs.join('\n') + '\n');
    builds = await startTestCluster({ fixtures: dir, version: '8.15.0' });
    const created = await caller.connections.create({
      name: 'Builds',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: builds.url,
        username: 'elastic',
        password: 'changeme',
        allowed_indices: ['builds'],
      },
    });
    connectionId = created.id;
  });

  afterAll(async () => {
    await builds?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tableOf = (run: { artifacts: { kind: string }[] }) =>
    run.artifacts.find((a) => a.kind === 'table') as any;

  it('one of their values is read after expanding them, so every document with it counts once', async () => {
    const run = await caller.runs.run({
      question: 'how many builds were labelled canary',
      connection_id: connectionId,
    });
    expect(run.status).toBe('succeeded');
    expect(run.query!.text).toMatch(/^FROM builds \| MV_EXPAND labels \| WHERE labels == "canary" \| STATS/);
    expect(tableOf(run).rows).toEqual([[5]]);
  });

  it('any other comparison on them is refused, naming the field and the way out', async () => {
    const run = await caller.runs.run({
      question: 'how many builds were not labelled canary',
      connection_id: connectionId,
    });
    expect(run.status).toBe('failed');
    expect(run.error!.message).toMatch(/'labels' holds several values/);
    expect(run.error!.message).toMatch(/group by 'labels'/);
  });

  it('grouping by them counts each value, every document with it included', async () => {
    const run = await caller.runs.run({
      question: 'number of builds per label',
      connection_id: connectionId,
    });
    expect(run.status).toBe('succeeded');
    const table = tableOf(run);
    const rows = Object.fromEntries(
      table.rows.map((r: unknown[]) => [
        r[table.columns.findIndex((c: { name: string }) => c.name === 'labels')],
        r[table.columns.findIndex((c: { name: string }) => c.name === 'count')],
      ]),
    );
    expect(rows).toMatchObject({ canary: 5, nightly: 3, release: 2 });
  });

  it('single-valued fields are filtered as before', async () => {
    const run = await caller.runs.run({ question: 'how many builds failed', connection_id: connectionId });
    expect(run.status).toBe('succeeded');
    expect(run.query!.text).toMatch(/WHERE outcome == "failed"/);
  });
});

/**
 * With a model configured, the planner is a cascade: the offline planner first, the model (an
 * OpenAI-compatible chat-completions server, here a small local one) for what it cannot read. How
 * the server's configuration builds it is tested in apps/server/test/llm.test.ts.
 */
describe('the LLM planner, when configured', () => {
  let model: Server;
  let llmCaller: Caller;
  let demo: string;
  const requests: { auth: string | undefined; model: string; prompt: string }[] = [];
  const answers: string[] = [];

  const countOrdersByStatus = {
    source: 'shop.orders',
    joins: [],
    columns: [],
    filters: [],
    group_by: [{ column: { table: null, column: 'status' }, time_bucket: null, alias: 'status' }],
    aggregates: [
      {
        fn: 'count',
        column: null,
        expression: null,
        percentile: null,
        where: null,
        share: false,
        alias: 'orders',
      },
    ],
    having: [],
    order_by: [{ ref: 'orders', direction: 'desc' }],
    limit: null,
    limit_per_group: null,
    chart_type: 'pie',
  };

  beforeAll(async () => {
    model = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; messages: { content: unknown }[] };
        requests.push({
          auth: req.headers.authorization,
          model: body.model,
          prompt: JSON.stringify(body.messages),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1_718_452_800,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: answers.shift() ?? '{}' },
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 812, completion_tokens: 64, total_tokens: 876 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const { deps } = await harness();
    const llmDeps = {
      ...deps,
      planner: createCascadePlanner({
        offline: offlinePlanner,
        model: createLlmPlanner({
          model: createOpenAiCompatibleModel({ apiKey: 'sk-local-test', baseURL, model: 'local-model' }),
        }),
      }),
    };
    const { principal } = await signedIn(undefined, { deps: llmDeps });
    llmCaller = await callerOf(principal, { deps: llmDeps });
    demo = await demoConnectionId(llmCaller);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => model?.close(() => resolve()));
  });

  it('plans through the model what the offline planner cannot read; the run says so, with token counts', async () => {
    answers.push(JSON.stringify(countOrdersByStatus));
    // The offline planner cannot read this one (`board deck`): the cascade asks the model.
    const run = await llmCaller.runs.run({
      question: 'share of orders per status for the board deck',
      connection_id: demo,
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      planner: 'llm',
      usage: { prompt_tokens: 812, completion_tokens: 64 },
    });
    expect(run.query!.text).toMatch(/GROUP BY "orders"\."status"/);
    expect((run.artifacts.find((a) => a.kind === 'chart') as any)?.chart_type).toBe('pie');
    const sent = requests.at(-1)!;
    expect(sent.auth).toBe('Bearer sk-local-test');
    expect(sent.model).toBe('local-model');
    expect(sent.prompt).toContain('share of orders per status for the board deck');
    expect(sent.prompt).toContain('shop.orders');
  });

  it('answers what the offline planner reads with confidence without calling the model', async () => {
    const before = requests.length;
    const run = await llmCaller.runs.run({ question: 'number of orders per channel', connection_id: demo });
    expect(run).toMatchObject({
      status: 'succeeded',
      planner: 'offline',
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    });
    expect(requests.length).toBe(before);
  });

  it('reads through the model a style request the lexicon cannot read whole, applying only whitelisted settings', async () => {
    const first = await llmCaller.runs.run({ question: 'number of orders per channel', connection_id: demo });
    expect(first.planner).toBe('offline');
    const nulls = Object.fromEntries(
      ['chart_type', 'preset', 'theme', 'title', 'show_title', 'legend_position', 'axis_label_rotation']
        .concat([
          'number_format',
          'date_format',
          'stacked',
          'smooth',
          'area',
          'series_labels',
          'bar_orientation',
        ])
        .map((k) => [k, null]),
    );
    answers.push(JSON.stringify({ ...nulls, is_style_request: true, palette: ['#008080'] }));
    const asked = requests.length;
    const styled = await llmCaller.runs.run({
      question: 'teal bars, a bit like the annual report',
      connection_id: demo,
      conversation_id: first.conversation_id,
    });
    expect(requests.length).toBe(asked + 1);
    expect(styled).toMatchObject({ planner: 'style', usage: { prompt_tokens: 812, completion_tokens: 64 } });
    expect((await llmCaller.style.get({ id: first.conversation_id })).palette).toEqual(['#008080']);
  });

  it('re-asks once after invalid output, then fails the run cleanly', async () => {
    answers.push(JSON.stringify({ ...countOrdersByStatus, source: 'shop.nope' }), 'not json at all');
    const before = requests.length;
    const run = await llmCaller.runs.run({
      question: 'orders per status for the board deck',
      connection_id: demo,
    });
    expect(requests.length - before).toBe(2);
    expect(run.status).toBe('failed');
    expect(run.error!.type).toBe('invalid_model_output');
    expect(run.error!.message).not.toContain('sk-local-test');
  });
});
