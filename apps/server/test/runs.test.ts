import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { Browser } from '../src/testing.ts';
import { signedInBrowser, startTestServer, type TestServer } from '../src/testing.ts';
import { weblogsConnection } from './weblogs.ts';
import { readSse } from './sse.ts';

const weblogs = fixtureDir('weblogs');

let server: TestServer;
let cluster: TestCluster;
let browser: Browser;
let esId: string;

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
  esId = await weblogsConnection(browser, cluster.url);
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

// What the run and conversation procedures do is tested through a caller in packages/api/test
// (runs.test.ts, conversations.test.ts); here, the REST routes, statuses and the event stream.
describe('POST /api/v1/run', () => {
  it('answers 200 with the finished run, which GET /api/v1/runs/{run_id} and the history serve', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'number of requests per country',
      connection_id: esId,
      chart_requested: true,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'succeeded', connection_id: esId });
    expect(res.json.artifacts.map((a: any) => a.kind)).toEqual(expect.arrayContaining(['table', 'chart']));
    expect((await browser.get(`/api/v1/runs/${res.json.id}`)).json).toEqual(res.json);
    const followUp = await browser.post('/api/v1/run', {
      question: 'only the top 3',
      connection_id: esId,
      conversation_id: res.json.conversation_id,
    });
    expect(followUp.json).toMatchObject({ conversation_id: res.json.conversation_id, turn_index: 1 });
    expect((await browser.get(`/api/v1/runs/${followUp.json.id}`)).json).toEqual(followUp.json);
    const history = await browser.get(`/api/v1/runs?connection_id=${esId}&status=succeeded&limit=5`);
    expect(history.status).toBe(200);
    expect(history.json.runs.map((r: any) => r.id)).toContain(res.json.id);
  });

  it('answers 404 for an unknown connection, and 409 for a paused one on /run and /run/stream', async () => {
    const unknown = await browser.post('/api/v1/run', {
      question: 'count requests',
      connection_id: 'con_nope',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toMatch(/con_nope/);
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
    expect(res.json.detail).toMatch(/paused/);
    const streamed = await stream({ question: 'count requests', connection_id: paused.json.id });
    expect(streamed.status).toBe(409);
  });
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

  it('sends each event as it happens, on the embedded demo too (whose work waits on no I/O)', async () => {
    const connections = await browser.get('/api/v1/connections');
    const demoId = connections.json.connections.find((c: any) => c.is_demo).id;
    const question = { question: 'how many orders per status', connection_id: demoId };
    // The first run opens the demo database and samples it (file reads); the next does no I/O.
    expect((await browser.post('/api/v1/run', question)).status).toBe(200);
    const res = await stream(question);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read())
      chunks.push(decoder.decode(read.value, { stream: true }));
    // Held back until the run ended, the whole stream arrived as one chunk.
    expect(chunks[0]).toContain('event: status');
    expect(chunks[0]).not.toContain('event: complete');
    expect(chunks.join('')).toContain('event: complete');
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

describe('conversation routes', () => {
  it('serve a conversation, its runs and the list; truncate from a turn; delete it (then 404)', async () => {
    const first = await browser.post('/api/v1/run', {
      question: 'number of requests per country',
      connection_id: esId,
    });
    const conversationId = first.json.conversation_id;
    await browser.post('/api/v1/run', {
      question: 'now by month',
      connection_id: esId,
      conversation_id: conversationId,
    });
    const detail = await browser.get(`/api/v1/conversations/${conversationId}`);
    expect(detail.status).toBe(200);
    expect(detail.json.turn_count).toBe(2);
    const list = await browser.get(`/api/v1/conversations?connection_id=${esId}&limit=1`);
    expect(list.json.conversations[0].id).toBe(conversationId);
    const truncated = await browser.request('DELETE', `/api/v1/conversations/${conversationId}/runs/from/1`);
    expect(truncated.status).toBe(200);
    expect(truncated.json.removed).toBe(1);
    const runs = await browser.get(`/api/v1/conversations/${conversationId}/runs`);
    expect(runs.json.runs.map((r: any) => r.turn_index)).toEqual([0]);
    expect((await browser.request('DELETE', `/api/v1/conversations/${conversationId}`)).status).toBe(200);
    expect((await browser.get(`/api/v1/conversations/${conversationId}`)).status).toBe(404);
    expect((await browser.get(`/api/v1/runs/${first.json.id}`)).status).toBe(404);
  });
});
