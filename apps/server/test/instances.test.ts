import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { apiKeys } from '@aqs/core';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { awaitMinuteRoom, Browser, PASSWORD, uniqueEmail } from '../src/testing.ts';
import { startServerProcess, type ServerProcess } from './process.ts';
import { readSse, type SseEvent } from './sse.ts';
import { companyConnection, weblogsConnection } from './weblogs.ts';

// Instances behind one address: every browser sends the origin of the shared APP_URL.
const APP_URL = 'http://127.0.0.1:9';
const SECRET_KEY = 'instances-test-secret-of-at-least-32-characters';

async function signUp(instance: { url: string }, email = uniqueEmail('inst')): Promise<Browser> {
  const browser = new Browser(instance.url, APP_URL);
  const reg = await browser.post('/auth/email/register', { email, password: PASSWORD });
  expect(reg.status).toBe(202);
  const login = await browser.post('/auth/email/login', { email, password: PASSWORD });
  expect(login.status).toBe(200);
  return browser;
}

/** The same signed-in caller, through another instance. */
function via(instance: { url: string }, browser: Browser): Browser {
  const other = new Browser(instance.url, APP_URL);
  other.cookie = browser.cookie;
  return other;
}

function runStream(as: Browser, body: object, signal?: AbortSignal) {
  return fetch(`${as.baseUrl}/api/v1/run/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: as.cookie ?? '', origin: APP_URL },
    body: JSON.stringify(body),
    signal,
  });
}

function jobStream(as: Browser, connectionId: string, jobId: string) {
  return fetch(`${as.baseUrl}/api/v1/connections/${connectionId}/discover/jobs/${jobId}/stream`, {
    headers: { cookie: as.cookie ?? '' },
  });
}

/** Reads a stream's events until `until` says stop (the stream stays open). */
async function readUntil(res: Response, until: (e: SseEvent, all: SseEvent[]) => boolean) {
  const seen: SseEvent[] = [];
  let resolveReached: () => void;
  const reached = new Promise<void>((resolve) => (resolveReached = resolve));
  const done = readSse(res, (e) => {
    seen.push(e);
    if (until(e, seen)) resolveReached();
  }).catch(() => ({ events: seen, pings: 0 }));
  await Promise.race([reached, done]);
  return { seen, done };
}

function exited(instance: ServerProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null)
      return resolve(instance.child.exitCode);
    instance.child.once('exit', (code) => resolve(code));
  });
}

const postgresHere = (await testStoreKinds()).includes('postgres');

describe.runIf(postgresHere)('several instances on one PostgreSQL', () => {
  let store: TestStore;
  let weblogs: TestCluster;
  let company: TestCluster;
  let dir: string;
  const running: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;

  const start = async (name: string, extra: Record<string, string> = {}) => {
    const instance = await startServerProcess({
      DATABASE_URL: store.url!,
      SECRET_KEY,
      APP_URL,
      DATA_DIR: join(dir, name),
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      AUTH_RATE_LIMIT_PER_CLIENT: '100000',
      ANON_RATE_LIMIT_PER_MINUTE: '100000',
      SHUTDOWN_GRACE_SECONDS: '1',
      SSE_HEARTBEAT_SECONDS: '1',
      ...extra,
    });
    running.push(instance);
    return instance;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aqs-instances-'));
    store = await createTestStore('postgres');
    weblogs = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
    company = await startTestCluster({
      fixtures: fixtureDir('es-test'),
      version: '8.15.0',
      queryDelayMs: 150,
    });
    [a, b] = await Promise.all([start('a'), start('b')]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    await weblogs?.stop();
    await company?.stop();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the rate limit is exact across instances: a burst of 50 split over two, exactly 20 pass', async () => {
    const email = uniqueEmail('burst');
    await signUp(a, email);
    const { key } = await apiKeys.createApiKey({ db: store.db }, { email });
    await awaitMinuteRoom(15);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/auth/me`, { headers: { 'x-api-key': key } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it('the open-stream cap holds across instances, and a stream closed on one frees a place on the other', async () => {
    const onA = await signUp(a);
    const onB = via(b, onA);
    const connectionId = await weblogsConnection(onA, weblogs.url);
    const question = { question: 'number of requests by city', connection_id: connectionId };
    weblogs.setQueryDelay(10_000);
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    try {
      const open = await Promise.all([
        runStream(onA, question, controllers[0]!.signal),
        runStream(onA, question, controllers[1]!.signal),
        runStream(onB, question, controllers[2]!.signal),
      ]);
      expect(open.map((r) => r.status)).toEqual([200, 200, 200]);
      const seen: string[][] = [[], [], []];
      const readers = open.map((r, i) =>
        readSse(r, (e) => seen[i]!.push(`${e.event} ${JSON.stringify(e.data).slice(0, 160)}`)).catch(
          () => undefined,
        ),
      );
      // All three runs are in flight on the engine (none ended and gave its place back).
      await weblogs.waitForActiveQueries(3, 8000).catch((error: unknown) => {
        throw new Error(`${String(error)}; the three open streams said: ${JSON.stringify(seen)}`);
      });
      const fourth = await runStream(onB, question);
      expect(
        fourth.status,
        `the 4th stream was answered ${fourth.status}; the three open ones said: ${JSON.stringify(seen)}`,
      ).toBe(429);
      expect(((await fourth.json()) as { detail: string }).detail).toMatch(/At most 3 run streams/);
      controllers[0]!.abort();
      await readers[0];
      let again = 429;
      for (let i = 0; i < 100 && again === 429; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const res = await runStream(onB, { question: 'count requests', connection_id: connectionId });
        again = res.status;
        if (again === 200) await res.body?.cancel();
      }
      expect(again).toBe(200);
    } finally {
      controllers.forEach((c) => c.abort());
      weblogs.setQueryDelay(0);
    }
  });

  it('SIGTERM: open streams end with a recoverable error, the held job goes to the other instance at once, the process exits 0', async () => {
    // Only A runs jobs while this one is claimed.
    expect(await b.stop()).toBe(0);
    const onA = await signUp(a);
    const weblogsId = await weblogsConnection(onA, weblogs.url);
    const companyId = await companyConnection(onA, company.url);
    const started = await onA.post(`/api/v1/connections/${companyId}/discover/jobs`, {});
    expect(started.status).toBe(202);
    const jobId = started.json.job.id as string;
    const following = await readUntil(
      await jobStream(onA, companyId, jobId),
      (e) => e.event === 'table_complete',
    );
    expect(following.seen.some((e) => e.event === 'table_complete')).toBe(true);
    // The job stays mid-way until the instance holding it stops.
    company.setQueryDelay(30_000);

    weblogs.setQueryDelay(10_000);
    try {
      const run = await runStream(onA, { question: 'number of requests by city', connection_id: weblogsId });
      expect(run.status).toBe(200);
      const runEvents = readSse(run);
      await weblogs.waitForActiveQueries(1, 8000);

      const other = await start('b2');
      const stoppedAt = Date.now();
      a.child.kill('SIGTERM');
      company.setQueryDelay(150);
      const [{ events }, followed, code] = await Promise.all([runEvents, following.done, exited(a)]);
      expect(code).toBe(0);
      // Grace (1 s) plus the streams' ending: well under the 30 s a dead holder's job waits.
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(events.at(-1)).toMatchObject({
        event: 'error',
        data: { type: 'unavailable', recoverable: true },
      });
      expect(followed.events.at(-1)).toMatchObject({ event: 'error', data: { recoverable: true } });

      // The other instance took the job as soon as it was handed back, and finished it.
      const onOther = via(other, onA);
      const { events: job } = await readSse(await jobStream(onOther, companyId, jobId));
      expect(job.at(-1)).toMatchObject({ event: 'complete', data: { state: 'succeeded' } });
      const phases = job.filter((e) => e.event === 'status').map((e) => e.data.phase as string);
      const handedBack = phases.lastIndexOf('queued');
      expect(handedBack).toBeGreaterThan(0);
      const finished = job.filter((e) => e.event === 'table_complete').map((e) => e.data.table as string);
      expect(new Set(finished).size).toBe(finished.length);
      expect(Date.now() - stoppedAt).toBeLessThan(25_000);

      // The interrupted run is stored as cancelled, saying why.
      const cancelled = await onOther.get(`/api/v1/runs?status=cancelled&connection_id=${weblogsId}`);
      expect(cancelled.json.runs[0]).toMatchObject({ status: 'cancelled', error: { type: 'unavailable' } });
    } finally {
      weblogs.setQueryDelay(0);
      company.setQueryDelay(150);
    }
  }, 90_000);
});

describe.each(await testStoreKinds())('a process killed (SIGKILL) mid-run on %s', (kind) => {
  let cluster: TestCluster;
  let dir: string;
  let store: TestStore | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aqs-killed-'));
    cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
    if (kind === 'postgres') store = await createTestStore('postgres');
  });

  afterAll(async () => {
    await cluster?.stop();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the restarted process has no half-stored run and charges nothing twice', async () => {
    const env = {
      ...(store ? { DATABASE_URL: store.url! } : {}),
      SECRET_KEY,
      APP_URL,
      DATA_DIR: join(dir, 'data'),
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      AUTH_RATE_LIMIT_PER_CLIENT: '100000',
      ANON_RATE_LIMIT_PER_MINUTE: '100000',
    };
    const first = await startServerProcess(env);
    let as: Browser;
    let connectionId: string;
    let before: { questions: number; runs: number };
    try {
      as = await signUp(first);
      connectionId = await weblogsConnection(as, cluster.url);
      const answered = await as.post('/api/v1/run', {
        question: 'count requests',
        connection_id: connectionId,
      });
      expect(answered.status).toBe(200);
      const summary = await as.get('/api/v1/billing/summary');
      before = { questions: summary.json.usage.questions.used, runs: 1 };
      cluster.setQueryDelay(10_000);
      const res = await runStream(as, {
        question: 'number of requests by city',
        connection_id: connectionId,
      });
      expect(res.status).toBe(200);
      void readSse(res).catch(() => undefined);
      await cluster.waitForActiveQueries(1, 8000);
      first.child.kill('SIGKILL');
      await exited(first);
    } finally {
      cluster.setQueryDelay(0);
      await first.stop();
    }

    const second = await startServerProcess(env);
    try {
      const again = via(second, as);
      const listed = await again.get(`/api/v1/runs?connection_id=${connectionId}`);
      expect(listed.status).toBe(200);
      // The killed run was never stored: nothing half-written, only the run that finished.
      expect(listed.json.runs.map((r: { question: string }) => r.question)).toEqual(['count requests']);
      // Its question was taken once (given back by the stale-charge sweep later), never again on restart.
      const summary = await again.get('/api/v1/billing/summary');
      expect(summary.json.usage.questions.used).toBe(before.questions + 1);
      const next = await again.post('/api/v1/run', {
        question: 'count requests',
        connection_id: connectionId,
      });
      expect(next.status).toBe(200);
      expect((await again.get('/api/v1/billing/summary')).json.usage.questions.used).toBe(
        before.questions + 2,
      );
    } finally {
      await second.stop();
    }
  }, 90_000);
});
