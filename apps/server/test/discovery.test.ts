import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { signedInBrowser, startTestServer, type Browser, type TestServer } from '../src/testing.ts';
import { startServerProcess } from './process.ts';
import { readSse, type SseEvent } from './sse.ts';
import { companyConnection } from './weblogs.ts';

// What discovery finds and charges is tested in packages/api/test/discovery.test.ts; here, the REST
// routes, the streams (replay, Last-Event-ID, follow) and a job surviving its server process.
let server: TestServer;
let browser: Browser;
let demoId: string;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  browser = await signedInBrowser(server);
  const list = await browser.get('/api/v1/connections');
  demoId = list.json.connections.find((c: { is_demo: boolean }) => c.is_demo).id;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

function stream(as: Browser, method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}) {
  return fetch(`${as.baseUrl}${path}`, {
    method,
    headers: {
      ...(as.cookie ? { cookie: as.cookie } : {}),
      ...(method === 'POST' ? { origin: as.origin, 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
}

const ids = (events: SseEvent[]) => events.map((e) => Number(e.id));

describe('discovery routes', () => {
  it('streams an analysis with an id on every event; the job stream replays it, or only what follows Last-Event-ID', async () => {
    const res = await stream(browser, 'POST', `/api/v1/connections/${demoId}/discover/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const { events } = await readSse(res);
    expect(events[0]).toMatchObject({ event: 'status', data: { phase: 'queued' } });
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['progress', 'table_complete', 'complete']),
    );
    const phases = events.filter((e) => e.event === 'status').map((e) => e.data.phase);
    expect(phases).toEqual(['queued', 'introspecting', 'sampling', 'analysing', 'relationships', 'saving']);
    expect(ids(events)).toEqual(events.map((_, i) => i + 1));
    const complete = events.at(-1)!;
    expect(complete).toMatchObject({ event: 'complete', data: { state: 'succeeded' } });
    expect(complete.data.summary.table_count).toBeGreaterThan(0);

    const active = await browser.get(`/api/v1/connections/${demoId}/discover/jobs/active`);
    expect(active.json.job).toBeNull();
    const jobs = await browser.post(`/api/v1/connections/${demoId}/discover/jobs`, {});
    expect(jobs.status).toBe(202);
    const jobId = jobs.json.job.id as string;
    const replay = await readSse(
      await stream(browser, 'GET', `/api/v1/connections/${demoId}/discover/jobs/${jobId}/stream`),
    );
    expect(replay.events.at(-1)).toMatchObject({ event: 'complete', data: { state: 'succeeded' } });
    const after = await readSse(
      await stream(browser, 'GET', `/api/v1/connections/${demoId}/discover/jobs/${jobId}/stream`, {
        'Last-Event-ID': '3',
      }),
    );
    expect(ids(after.events)).toEqual(ids(replay.events).slice(3));

    const job = await browser.get(`/api/v1/connections/${demoId}/discover/jobs/${jobId}`);
    expect(job.json).toMatchObject({ id: jobId, state: 'succeeded' });
    expect(job.json.finished_at).not.toBeNull();
  });

  it('cancel answers 202 and the job ends cancelled; another workspace gets 404 on every route', async () => {
    // A source whose every query takes a second: the worker, woken by the start, cannot finish first.
    const slow = await startTestCluster({
      fixtures: fixtureDir('es-test'),
      version: '8.15.0',
      queryDelayMs: 1000,
    });
    try {
      const id = await companyConnection(browser, slow.url);
      const started = await browser.post(`/api/v1/connections/${id}/discover/jobs`, {});
      const jobId = started.json.job.id as string;
      const cancel = await browser.post(`/api/v1/connections/${id}/discover/jobs/${jobId}/cancel`, {});
      expect(cancel.status).toBe(202);
      const { events } = await readSse(
        await stream(browser, 'GET', `/api/v1/connections/${id}/discover/jobs/${jobId}/stream`),
      );
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { state: 'cancelled' } });
      expect((await browser.get(`/api/v1/connections/${id}/discover/jobs/${jobId}`)).json.state).toBe(
        'cancelled',
      );
      await intruderIsRefused(id, jobId);
    } finally {
      await slow.stop();
    }
  });
});

/** Another workspace's user gets 404 on every discovery route of the connection; no one signed in, 401. */
async function intruderIsRefused(connectionId: string, jobId: string) {
  const intruder = await signedInBrowser(server);
  const base = `/api/v1/connections/${connectionId}/discover`;
  expect((await intruder.post(base, {})).status).toBe(404);
  expect((await intruder.post(`${base}/jobs`, {})).status).toBe(404);
  expect((await intruder.get(`${base}/jobs/${jobId}`)).status).toBe(404);
  expect((await stream(intruder, 'GET', `${base}/jobs/${jobId}/stream`)).status).toBe(404);
  expect((await stream(intruder, 'POST', `${base}/stream`)).status).toBe(404);
  expect(
    (
      await stream(
        new (browser.constructor as typeof Browser)(server.url),
        'GET',
        `${base}/jobs/${jobId}/stream`,
      )
    ).status,
  ).toBe(401);
}

describe('discovery streams per principal', () => {
  it('at most 3 open at once per user: the 4th is a 429, and a closed one frees its place', async () => {
    // No worker here: a started job stays queued, so its streams stay open.
    const quiet = await startTestServer({
      env: { RATE_LIMIT_PER_MINUTE: '100000', DISCOVERY_WORKER: 'false' },
    });
    try {
      const as = await signedInBrowser(quiet);
      const list = await as.get('/api/v1/connections');
      const id = list.json.connections.find((c: { is_demo: boolean }) => c.is_demo).id;
      const jobId = (await as.post(`/api/v1/connections/${id}/discover/jobs`, {})).json.job.id as string;
      const path = `/api/v1/connections/${id}/discover/jobs/${jobId}/stream`;
      const controllers = [new AbortController(), new AbortController(), new AbortController()];
      const open = await Promise.all(
        controllers.map((controller) =>
          fetch(`${quiet.url}${path}`, { headers: { cookie: as.cookie! }, signal: controller.signal }),
        ),
      );
      expect(open.map((r) => r.status)).toEqual([200, 200, 200]);
      const fourth = await fetch(`${quiet.url}${path}`, { headers: { cookie: as.cookie! } });
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('5');
      expect(((await fourth.json()) as { detail: string }).detail).toMatch(/At most 3 discovery streams/);
      controllers[0]!.abort();
      await open[0]!.body?.cancel().catch(() => undefined);
      const deadline = Date.now() + 5000;
      let again = await fetch(`${quiet.url}${path}`, { headers: { cookie: as.cookie! } });
      while (again.status === 429 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        again = await fetch(`${quiet.url}${path}`, { headers: { cookie: as.cookie! } });
      }
      expect(again.status).toBe(200);
      await again.body?.cancel();
      for (const c of controllers) c.abort();
    } finally {
      await quiet.close();
    }
  }, 60_000);
});

describe('a discovery job outlives its server process', () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    // Every engine query takes a while, so the job is still running when its process is killed.
    cluster = await startTestCluster({
      fixtures: fixtureDir('es-test'),
      version: '8.15.0',
      queryDelayMs: 150,
    });
    dir = mkdtempSync(join(tmpdir(), 'aqs-discovery-'));
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a process killed mid-job: the restarted one resumes from the last finished table and finishes', async () => {
    const env = {
      DATA_DIR: join(dir, 'data'),
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      DISCOVERY_JOB_STALE_SECONDS: '1',
      SECRET_KEY: 'discovery-restart-test-secret-of-32-characters',
    };
    const first = await startServerProcess(env);
    let jobId = '';
    let connectionId = '';
    let finishedBeforeKill = 0;
    let as: Browser;
    try {
      as = await signedInBrowser({ url: first.url } as TestServer);
      connectionId = await companyConnection(as, cluster.url);
      const started = await as.post(`/api/v1/connections/${connectionId}/discover/jobs`, {});
      expect(started.status).toBe(202);
      jobId = started.json.job.id;
      // Kill it (no shutdown) once it has finished a table.
      const res = await stream(
        as,
        'GET',
        `/api/v1/connections/${connectionId}/discover/jobs/${jobId}/stream`,
      );
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = '';
      while (!seen.includes('event: table_complete')) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += value;
      }
      expect(seen).toContain('event: table_complete');
      first.child.kill('SIGKILL');
      finishedBeforeKill = seen.split('event: table_complete').length - 1;
      await reader.cancel().catch(() => undefined);
    } finally {
      await first.stop();
    }

    const second = await startServerProcess(env);
    try {
      const again = new (as!.constructor as typeof Browser)(second.url);
      again.cookie = as!.cookie;
      const { events } = await readSse(
        await stream(again, 'GET', `/api/v1/connections/${connectionId}/discover/jobs/${jobId}/stream`),
      );
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { state: 'succeeded' } });
      const finished = events.filter((e) => e.event === 'table_complete').map((e) => e.data.table as string);
      // Each table was analysed once: the one finished before the kill was not done again.
      expect(new Set(finished).size).toBe(finished.length);
      expect(finished.length).toBe(events.at(-1)!.data.summary.table_count);
      // The kill came mid-job: the restarted process did the rest.
      expect(finishedBeforeKill).toBeLessThan(finished.length);
      expect(ids(events)).toEqual(events.map((_, i) => i + 1));
    } finally {
      await second.stop();
    }
  }, 120_000);
});
