import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { usageCounters } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { Browser } from '../src/testing.ts';
import { signedInBrowser, startTestServer, type TestServer } from '../src/testing.ts';
import { readSse } from './sse.ts';

const weblogs = fixtureDir('weblogs');

let server: TestServer;
let cluster: TestCluster;
let browser: Browser;
let esId: string;
let demoId: string;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      SSE_HEARTBEAT_SECONDS: '1',
    },
  });
  browser = await signedInBrowser(server);
  const es = await browser.post('/api/v1/connections', {
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
  esId = es.json.id;
  demoId = (await browser.get('/api/v1/connections')).json.connections.find((c: any) => c.is_demo).id;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

function stream(body: object, signal?: AbortSignal) {
  return fetch(`${server.url}/api/v1/run/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: browser.cookie ?? '', origin: server.url },
    body: JSON.stringify(body),
    signal,
  });
}

describe('POST /api/v1/run', () => {
  it('answers a question over Elasticsearch with ES|QL, a table and a chart', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'number of requests per country',
      connection_id: esId,
      chart_requested: true,
    });
    expect(res.status).toBe(200);
    const run = res.json;
    expect(run).toMatchObject({
      status: 'succeeded',
      planner: 'offline',
      turn_index: 0,
      connection_id: esId,
      error: null,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    });
    expect(run.query.dialect).toBe('esql');
    // `requests` are the documents with request fields.
    expect(run.query.text).toMatch(
      /^FROM weblogs \| WHERE http\.request\.method IS NOT NULL \| STATS .* BY geo\.country_name/,
    );
    expect(run.query.text).toMatch(/LIMIT \d+$/);
    const table = run.artifacts.find((a: any) => a.kind === 'table');
    expect(table.row_count).toBeGreaterThan(1);
    expect(table.columns.map((c: any) => c.type)).toContain('long');
    const chart = run.artifacts.find((a: any) => a.kind === 'chart');
    expect(chart.chart_type).toBe('bar');
    expect(JSON.stringify(chart.option)).not.toMatch(/function|=>/);
    expect(run.timings_ms.executing).toBeGreaterThanOrEqual(0);
    expect((await browser.get(`/api/v1/runs/${run.id}`)).json).toEqual(run);
    // The values sampled for planning are shown by the schema routes.
    const weblogsTable = await browser.get(`/api/v1/schema/${esId}/tables/weblogs`);
    const country = weblogsTable.json.columns.find((c: any) => c.name === 'geo.country_name');
    expect(country.sample_values).toEqual(expect.arrayContaining(['France', 'United States']));
    expect(weblogsTable.json.columns.find((c: any) => c.name === 'user.id').sample_values).toEqual([]);
    // A widened small integer (ES `short`, read as `integer`) is sampled by its native type.
    expect(
      weblogsTable.json.columns.find((c: any) => c.name === 'http.response.status_code').sample_values,
    ).toEqual(expect.arrayContaining([200, 404]));
  });

  it('answers a question over the demo database with SQL', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'how many orders per status',
      connection_id: demoId,
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('succeeded');
    expect(res.json.query.dialect).toBe('sql');
    expect(res.json.query.text).toMatch(/"shop"\."orders"/);
    const table = res.json.artifacts.find((a: any) => a.kind === 'table');
    expect(table.rows.length).toBeGreaterThanOrEqual(3);
    // How the question was read, from the spec: shown above the answer.
    expect(res.json.interpretation).toBe('Number of orders, by status, sorted by count (highest first).');
    const stored = await browser.get(`/api/v1/runs/${res.json.id}`);
    expect(stored.json.interpretation).toBe(res.json.interpretation);
  }, 60_000);

  it('fails a question it cannot map with a helpful message, stored as a failed run', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'what is the meaning of life',
      connection_id: esId,
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('failed');
    expect(res.json.error.type).toBe('unanswerable');
    expect(res.json.error.message.length).toBeGreaterThan(40);
    expect(res.json.artifacts).toEqual([]);
    expect(res.json.interpretation).toBeNull();
  });

  it('validates the request: question length, unknown fields, list limits', async () => {
    const empty = await browser.post('/api/v1/run', { question: '', connection_id: esId });
    expect(empty.status).toBe(422);
    expect(empty.json.errors[0].field).toBe('question');
    const long = await browser.post('/api/v1/run', { question: 'x'.repeat(2001), connection_id: esId });
    expect(long.status).toBe(422);
    expect(long.json.errors[0]).toEqual({ field: 'question', message: 'must be at most 2000 characters' });
    const limit = await browser.get('/api/v1/runs?limit=101');
    expect(limit.status).toBe(422);
    expect(limit.json.errors[0]).toEqual({ field: 'limit', message: 'must be at most 100' });
    expect((await browser.get('/api/v1/conversations?limit=101')).status).toBe(422);
  });

  it('404 for unknown or foreign connections and conversations; 409 with a way out for a paused connection', async () => {
    expect(
      (await browser.post('/api/v1/run', { question: 'count requests', connection_id: 'con_nope' })).status,
    ).toBe(404);
    const other = await signedInBrowser(server);
    expect(
      (await other.post('/api/v1/run', { question: 'count requests', connection_id: esId })).status,
    ).toBe(404);
    expect(
      (
        await browser.post('/api/v1/run', {
          question: 'count requests',
          connection_id: esId,
          conversation_id: 'cnv_nope',
        })
      ).status,
    ).toBe(404);

    const paused = await browser.post('/api/v1/connections', {
      name: 'Paused',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: cluster.url,
        username: 'elastic',
        password: 'changeme',
        allowed_indices: ['weblogs'],
      },
    });
    await browser.post(`/api/v1/connections/${paused.json.id}/paused`, { paused: true });
    const res = await browser.post('/api/v1/run', {
      question: 'count requests',
      connection_id: paused.json.id,
    });
    expect(res.status).toBe(409);
    expect(res.json.detail).toMatch(/paused.*"paused": false/);
    const streamed = await stream({ question: 'count requests', connection_id: paused.json.id });
    expect(streamed.status).toBe(409);
  });

  it('ends the run as failed with the symptom when the engine is down, and the service stays up', async () => {
    const down = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
    const conn = await browser.post('/api/v1/connections', {
      name: 'Down',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: down.url,
        username: 'elastic',
        password: 'changeme',
        allowed_indices: ['weblogs'],
      },
    });
    await browser.post(`/api/v1/connections/${conn.json.id}/introspect`);
    await down.stop();
    const res = await browser.post('/api/v1/run', {
      question: 'number of requests per country',
      connection_id: conn.json.id,
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('failed');
    expect(res.json.error.type).toBe('unreachable');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 429 with a code when the monthly questions are used up', async () => {
    const user = await signedInBrowser(server);
    const me = await user.get('/auth/me');
    const demo = (await user.get('/api/v1/connections')).json.connections.find((c: any) => c.is_demo).id;
    const period = new Date().toISOString().slice(0, 7);
    await server.store.db
      .insert(usageCounters)
      .values({ workspaceId: me.json.workspace.id, period, metric: 'questions', count: 200 });
    const res = await user.post('/api/v1/run', { question: 'how many orders', connection_id: demo });
    expect(res.status).toBe(429);
    expect(res.json.code).toBe('quota_questions_exceeded');
    const [row] = await server.store.db
      .select()
      .from(usageCounters)
      .where(eq(usageCounters.workspaceId, me.json.workspace.id));
    expect(row!.count).toBe(200);
  });
});

describe('the monthly question quota under concurrency', () => {
  it('lets exactly one of several concurrent runs take the last unit', async () => {
    const user = await signedInBrowser(server);
    const me = await user.get('/auth/me');
    const demo = (await user.get('/api/v1/connections')).json.connections.find((c: any) => c.is_demo).id;
    await user.post('/api/v1/run', { question: 'how many orders', connection_id: demo });
    const period = new Date().toISOString().slice(0, 7);
    await server.store.db
      .update(usageCounters)
      .set({ count: 199 })
      .where(eq(usageCounters.workspaceId, me.json.workspace.id));
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () =>
        user.post('/api/v1/run', { question: 'how many orders', connection_id: demo }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    const [row] = await server.store.db
      .select()
      .from(usageCounters)
      .where(eq(usageCounters.workspaceId, me.json.workspace.id));
    expect(row).toMatchObject({ period, count: 200 });
  }, 60_000);
});

describe('POST /api/v1/run/stream', () => {
  it('streams phases and steps in order, then the full result', async () => {
    const res = await stream({ question: 'requests per day', connection_id: esId, chart_requested: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    const { events } = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('status');
    expect(events[0]!.data).toEqual({ phase: 'building_context' });
    expect(names.at(-1)).toBe('complete');
    const phases = events.filter((e) => e.event === 'status').map((e) => e.data.phase);
    expect(phases.indexOf('building_context')).toBeLessThan(phases.indexOf('planning'));
    expect(phases.indexOf('planning')).toBeLessThan(phases.indexOf('executing'));
    const starts = events.filter((e) => e.event === 'step_start');
    const completes = events.filter((e) => e.event === 'step_complete');
    expect(starts.map((e) => e.data.index)).toEqual(completes.map((e) => e.data.index));
    expect(starts.map((e) => e.data.op)).toEqual(
      expect.arrayContaining(['load_schema', 'plan', 'compile', 'validate', 'execute', 'build_artifacts']),
    );
    for (const s of starts) {
      const at = events.indexOf(s);
      const done = events.findIndex((e) => e.event === 'step_complete' && e.data.index === s.data.index);
      expect(done).toBeGreaterThan(at);
    }
    expect(completes.every((e) => e.data.status === 'ok' && typeof e.data.elapsed_ms === 'number')).toBe(
      true,
    );
    const result = events.at(-1)!.data;
    expect(result.status).toBe('succeeded');
    expect(result.artifacts.find((a: any) => a.kind === 'chart').chart_type).toBe('line');
  });

  it('sends heartbeat comments while the engine is quiet', async () => {
    cluster.setQueryDelay(2500);
    try {
      const res = await stream({ question: 'number of requests per country', connection_id: esId });
      const { events, pings } = await readSse(res);
      expect(pings).toBeGreaterThanOrEqual(1);
      expect(events.at(-1)!.event).toBe('complete');
    } finally {
      cluster.setQueryDelay(0);
    }
  });

  it('closing the stream cancels the run and the query on the engine', async () => {
    const before = cluster.cancelledQueries;
    cluster.setQueryDelay(10_000);
    const controller = new AbortController();
    try {
      const res = await stream(
        { question: 'number of requests by city', connection_id: esId },
        controller.signal,
      );
      const reading = readSse(res).catch(() => undefined);
      await cluster.waitForActiveQueries(1, 8000);
      controller.abort();
      await reading;
      for (let i = 0; i < 50 && cluster.cancelledQueries === before; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(cluster.cancelledQueries).toBe(before + 1);
    } finally {
      cluster.setQueryDelay(0);
    }
    let cancelled: any[] = [];
    for (let i = 0; i < 50 && cancelled.length === 0; i++) {
      cancelled = (await browser.get(`/api/v1/runs?status=cancelled&connection_id=${esId}`)).json.runs;
      if (cancelled.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(cancelled[0]).toMatchObject({
      question: 'number of requests by city',
      status: 'cancelled',
      artifacts: [],
    });
  });

  it('caps open run streams at 3 per user; closing one frees its place', async () => {
    cluster.setQueryDelay(10_000);
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    try {
      const open = await Promise.all(
        controllers.map((c) =>
          stream({ question: 'number of requests by city', connection_id: esId }, c.signal),
        ),
      );
      expect(open.map((r) => r.status)).toEqual([200, 200, 200]);
      const readers = open.map((r) => readSse(r).catch(() => undefined));
      const fourth = await stream({ question: 'number of requests by city', connection_id: esId });
      expect(fourth.status).toBe(429);
      const body = (await fourth.json()) as { detail: string; code?: string };
      expect(body.detail).toMatch(/At most 3 run streams/);
      expect(body.code).toBeUndefined();
      controllers[0]!.abort();
      await readers[0];
      let again = 429;
      for (let i = 0; i < 40 && again === 429; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const res = await stream({ question: 'count requests', connection_id: esId });
        again = res.status;
        if (again === 200) await res.body?.cancel();
      }
      expect(again).toBe(200);
    } finally {
      cluster.setQueryDelay(0);
      controllers.forEach((c) => c.abort());
    }
  });

  it('answers request problems as JSON before the stream opens', async () => {
    const res = await stream({ question: '', connection_id: esId });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).errors[0].field).toBe('question');
    const anonymous = await fetch(`${server.url}/api/v1/run/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('conversations', () => {
  it('continues a conversation, lists it, truncates it and replays a question in place', async () => {
    const first = await browser.post('/api/v1/run', {
      question: 'number of requests per country',
      connection_id: esId,
    });
    const conversationId = first.json.conversation_id;
    const second = await browser.post('/api/v1/run', {
      question: 'now by month',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(second.json).toMatchObject({
      conversation_id: conversationId,
      turn_index: 1,
      status: 'succeeded',
    });
    const third = await browser.post('/api/v1/run', {
      question: 'as a line graph',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(third.json.turn_index).toBe(2);

    const detail = await browser.get(`/api/v1/conversations/${conversationId}`);
    expect(detail.json).toMatchObject({
      id: conversationId,
      turn_count: 3,
      connection_id: esId,
      title: 'number of requests per country',
    });
    expect(detail.json.runs.map((r: any) => r.turn_index)).toEqual([0, 1, 2]);
    const list = await browser.get(`/api/v1/conversations?connection_id=${esId}&limit=1`);
    expect(list.json.conversations[0].id).toBe(conversationId);
    expect(list.json.limit).toBe(1);

    const truncated = await browser.request('DELETE', `/api/v1/conversations/${conversationId}/runs/from/1`);
    expect(truncated.json.removed).toBe(2);
    const runs = await browser.get(`/api/v1/conversations/${conversationId}/runs`);
    expect(runs.json.runs.map((r: any) => r.turn_index)).toEqual([0]);
    const replay = await browser.post('/api/v1/run', {
      question: 'now by month',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(replay.json.turn_index).toBe(1);

    expect((await browser.request('DELETE', `/api/v1/conversations/${conversationId}`)).status).toBe(200);
    expect((await browser.get(`/api/v1/conversations/${conversationId}`)).status).toBe(404);
    expect((await browser.get(`/api/v1/runs/${first.json.id}`)).status).toBe(404);
  });

  it('refuses a conversation of another connection, naming conversation_id', async () => {
    const first = await browser.post('/api/v1/run', { question: 'how many orders', connection_id: demoId });
    const res = await browser.post('/api/v1/run', {
      question: 'count requests',
      connection_id: esId,
      conversation_id: first.json.conversation_id,
    });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe('conversation_id');
  }, 60_000);

  it('filters run history by connection and status, newest first, with limit and offset', async () => {
    const all = await browser.get(`/api/v1/runs?connection_id=${esId}&limit=100`);
    expect(all.json.total).toBeGreaterThan(2);
    const times = all.json.runs.map((r: any) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const page = await browser.get(`/api/v1/runs?connection_id=${esId}&limit=1&offset=1`);
    expect(page.json.runs[0].id).toBe(all.json.runs[1].id);
    const failed = await browser.get('/api/v1/runs?status=failed');
    expect(failed.json.runs.every((r: any) => r.status === 'failed')).toBe(true);
    expect((await browser.get('/api/v1/runs?status=weird')).status).toBe(422);
  });
});
