import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { apiKeys } from '@aqs/core';
import { testStoreKinds } from '@aqs/db/testing';
import {
  awaitMinuteRoom,
  signedInBrowser,
  startTestServer,
  uniqueEmail,
  type Browser,
  type TestServer,
} from '../src/testing.ts';

const TOKEN = 'a-metrics-token-for-the-tests';
const LIMIT = 6;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  browser = await signedInBrowser(server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function scrape(token: string | null = TOKEN): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${server.url}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** The value of one series, by its exact labels (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics', () => {
  it('asks for the token when one is set, and is not rate limited', async () => {
    const none = await scrape(null);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).detail).toMatch(/METRICS_TOKEN/);
    expect((await scrape('not-the-token-at-all')).status).toBe(401);
    // More scrapes than the per-minute limit, all answered.
    for (let i = 0; i < LIMIT + 2; i++) expect((await scrape()).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ok = await scrape();
    expect(ok.type).toMatch(/^text\/plain/);
    // Plain routes by their own pattern (not the web app's catch-all, which every GET also matches).
    expect(sample(ok.text, 'aqs_http_requests_total{route="/metrics",method="GET",status="200"}')).toBe(
      LIMIT + 2,
    );
    expect(sample(ok.text, 'aqs_http_requests_total{route="/metrics",method="GET",status="401"}')).toBe(2);
    expect(sample(ok.text, 'aqs_http_requests_total{route="/healthz",method="GET",status="200"}')).toBe(1);
    expect(ok.text).toContain('# TYPE aqs_http_requests_total counter');
    expect(ok.text).toContain('aqs_process_resident_memory_bytes');
    expect(sample(ok.text, 'aqs_discovery_jobs_queued')).toBe(0);
    expect(sample(ok.text, 'aqs_open_streams{kind="run"}')).toBe(0);
    // The embedded store is one session in this process: no connection pool to report.
    expect(ok.text).not.toMatch(/^aqs_store_connections/m);
  });

  it('counts requests by documented route, method and status (never by an id), and refusals by code', async () => {
    await awaitMinuteRoom(20);
    const email = uniqueEmail('metrics');
    const owner = await signedInBrowser(server, email);
    const list = await owner.get('/api/v1/connections');
    const demoId: string = list.json.connections.find((c: { is_demo: boolean }) => c.is_demo).id;
    expect((await owner.get(`/api/v1/connections/${demoId}`)).status).toBe(200);
    const before = await scrape();

    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++)
      statuses.push((await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': key } })).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const invalid = await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': 'aqs_nope' } });
    expect(invalid.status).toBe(401);

    const after = await scrape();
    const me = 'aqs_http_requests_total{route="/auth/me",method="GET",status="200"}';
    expect(sample(after.text, me) - sample(before.text, me)).toBe(LIMIT);
    const refused = 'aqs_http_requests_total{route="/auth/me",method="GET",status="429"}';
    expect(sample(after.text, refused) - sample(before.text, refused)).toBe(2);
    const limited = 'aqs_refusals_total{code="rate_limited"}';
    expect(sample(after.text, limited) - sample(before.text, limited)).toBe(2);
    expect(
      sample(
        after.text,
        'aqs_http_requests_total{route="/api/v1/connections/{id}",method="GET",status="200"}',
      ),
    ).toBe(1);
    expect(after.text).not.toContain(demoId);
    expect(
      sample(
        after.text,
        'aqs_http_request_duration_seconds_count{route="/auth/me",method="GET",status="200"}',
      ),
    ).toBeGreaterThanOrEqual(LIMIT);
  });

  it('counts runs by status and planner, and their engine time by language', async () => {
    await awaitMinuteRoom(20);
    const list = await browser.get('/api/v1/connections');
    const demoId: string = list.json.connections.find((c: { is_demo: boolean }) => c.is_demo).id;
    const before = await scrape();
    const run = await browser.post('/api/v1/run', { question: 'how many customers', connection_id: demoId });
    expect(run.status).toBe(200);
    expect(run.json.status).toBe('succeeded');
    const after = await scrape();
    const runs = `aqs_runs_total{status="succeeded",planner="${run.json.planner}"}`;
    expect(sample(after.text, runs) - sample(before.text, runs)).toBe(1);
    const engine = `aqs_engine_duration_seconds_count{dialect="${run.json.query.dialect}"}`;
    expect(sample(after.text, engine) - sample(before.text, engine)).toBe(1);
  });
});

describe('refusals by what refused them', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ env: { METRICS_TOKEN: TOKEN, AUTH_RATE_LIMIT_PER_CLIENT: '2' } });
  }, 60_000);
  afterAll(async () => {
    await limited?.close();
  });

  it('names the sign-in limit apart from the rate limit, and counts a refused call inside a tRPC batch', async () => {
    const scrapeLimited = async () =>
      (await fetch(`${limited.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const login = { email: uniqueEmail('refusals'), password: 'not the password 123' };
    const post = (path: string, body: unknown) =>
      fetch(`${limited.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: limited.url },
        body: JSON.stringify(body),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post('/auth/email/login', login)).status);
    expect(statuses).toEqual([401, 401, 429]);
    // A batch whose one call is refused and the other answered: 207, the refusal still counted.
    const batch = await post('/trpc/auth.logout,auth.login?batch=1', { '0': {}, '1': login });
    expect(batch.status).toBe(207);
    const calls = (await batch.json()) as { result?: unknown; error?: { data: { httpStatus: number } } }[];
    expect(calls.map((call) => call.error?.data.httpStatus ?? 200)).toEqual([200, 429]);
    const text = await scrapeLimited();
    expect(sample(text, 'aqs_refusals_total{code="sign_in_limit"}')).toBe(2);
    expect(sample(text, 'aqs_refusals_total{code="rate_limited"}')).toBe(0);
  });
});

describe.runIf((await testStoreKinds()).includes('postgres'))('on a PostgreSQL store', () => {
  it("reports this instance's store connections by state, and their maximum", async () => {
    const onPostgres = await startTestServer({ storeKind: 'postgres', env: { METRICS_TOKEN: TOKEN } });
    try {
      const scrapeIt = async () =>
        (await fetch(`${onPostgres.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      // Two statements hold their connections while the scrape reads the pool.
      const busy = Promise.all([1, 2].map(() => onPostgres.store.db.execute(sql`select pg_sleep(1.5)`)));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const during = await scrapeIt();
      await busy;
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the one read a scrape shares
      // The test store's 20, and half as many relaxed ones (counters and touches).
      expect(sample(during, 'aqs_store_connections_max')).toBe(30);
      expect(sample(during, 'aqs_store_connections{state="active"}')).toBe(2);
      expect(sample(during, 'aqs_store_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
      const after = await scrapeIt();
      expect(sample(after, 'aqs_store_connections{state="active"}')).toBe(0);
    } finally {
      await onPostgres.close();
    }
  });
});
