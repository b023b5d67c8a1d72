// A tenant points its connections at servers it controls, which misbehave below the protocol. Through
// the real HTTP API: each test and run ends with the data source's symptom, the process stays up, other
// tenants are served, and a client that goes away stops the work toward the data source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHostileHttp,
  startHostilePostgres,
  type HostileServer,
  type HttpScenario,
  type PostgresScenario,
} from '@aqs/hostile-servers';
import { signedInBrowser, startTestServer, type Browser, type TestServer } from '../src/testing.ts';

let server: TestServer;
const hostile: HostileServer[] = [];
const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      QUERY_TIMEOUT_SECONDS: '2',
    },
  });
});
afterAll(async () => {
  await server?.close();
  for (const h of hostile) await h.close();
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
});

async function connectTo(
  browser: Browser,
  dialect: 'postgres' | 'elasticsearch',
  target: HostileServer,
): Promise<string> {
  const body =
    dialect === 'postgres'
      ? {
          name: 'hostile pg',
          dialect,
          auth_mode: 'password',
          config: {
            host: target.host,
            port: target.port,
            database: 'db',
            username: 'u',
            password: 'tenant-password',
            ssl_mode: 'disable',
          },
        }
      : {
          name: 'hostile es',
          dialect,
          auth_mode: 'basic',
          config: {
            cluster_url: `http://${target.host}:${target.port}`,
            username: 'u',
            password: 'tenant-password',
            allowed_indices: ['logs'],
          },
        };
  const res = await browser.post('/api/v1/connections', body);
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

const postgresScenarios: PostgresScenario[] = [
  'reset-after-login',
  'reset-mid-row',
  'garbage-after-login',
  'close-after-login',
  'accept-and-close',
  'hang-after-login',
  'cleartext-password',
];
const httpScenarios: HttpScenario[] = [
  'reset-mid-body',
  'reset-after-headers',
  'garbage',
  'accept-and-close',
  'half-open',
  'trickle',
  'malformed-json',
];
const cases: Array<['postgres' | 'elasticsearch', string, () => Promise<HostileServer>]> = [
  ...postgresScenarios.map(
    (s) =>
      ['postgres', s, () => startHostilePostgres(s)] as ['postgres', string, () => Promise<HostileServer>],
  ),
  ...httpScenarios.map(
    (s) =>
      ['elasticsearch', s, () => startHostileHttp(s)] as [
        'elasticsearch',
        string,
        () => Promise<HostileServer>,
      ],
  ),
];

describe('hostile data sources through the API', () => {
  it.each(cases)(
    '%s %s: test and run end with a symptom; the service stays up',
    async (dialect, _scenario, start) => {
      const target = await start();
      hostile.push(target);
      const browser = await signedInBrowser(server);
      const id = await connectTo(browser, dialect, target);

      const test = await browser.post(`/api/v1/connections/${id}/test`);
      expect(test.status).toBe(200);
      expect(test.json.ok).toBe(false);
      expect(test.json.symptom).toEqual(expect.any(String));
      expect(test.json.fix).toEqual(expect.any(String));

      const run = await browser.post('/api/v1/run', { question: 'how many rows', connection_id: id });
      expect(run.status).toBe(200);
      expect(run.json.status).toBe('failed');
      expect(run.json.error.message).toEqual(expect.any(String));
      expect(run.text).not.toContain('tenant-password');

      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(await target.settled(1500)).toBe(0);
      expect(uncaught).toEqual([]);
    },
  );

  it('keeps serving other tenants while one tenant hammers hostile sources', async () => {
    const attacker = await signedInBrowser(server);
    const targets = await Promise.all([
      startHostilePostgres('reset-mid-row'),
      startHostilePostgres('hang-after-login'),
      startHostileHttp('trickle'),
    ]);
    hostile.push(...targets);
    const ids = [
      await connectTo(attacker, 'postgres', targets[0]!),
      await connectTo(attacker, 'postgres', targets[1]!),
      await connectTo(attacker, 'elasticsearch', targets[2]!),
    ];
    const attack = Promise.all(
      ids.flatMap((id) => [
        attacker.post(`/api/v1/connections/${id}/test`),
        attacker.post(`/api/v1/connections/${id}/introspect`),
      ]),
    );

    const tenant = await signedInBrowser(server);
    const demo = (
      (await tenant.get('/api/v1/connections')).json.connections as Array<{ id: string; is_demo: boolean }>
    ).find((c) => c.is_demo)!.id;
    const answer = await tenant.post('/api/v1/run', {
      question: 'how many orders per status',
      connection_id: demo,
    });
    expect(answer.json.status).toBe('succeeded');

    const outcomes = await attack;
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 200, 200, 502, 502, 502]);
    expect(uncaught).toEqual([]);
  });

  it('stops the work toward the data source when the client goes away', async () => {
    const target = await startHostilePostgres('hang-after-login');
    hostile.push(target);
    const browser = await signedInBrowser(server);
    const id = await connectTo(browser, 'postgres', target);
    const controller = new AbortController();
    const pending = fetch(`${server.url}/api/v1/connections/${id}/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url, cookie: browser.cookie ?? '' },
      body: '{}',
      signal: controller.signal,
    }).catch(() => 'aborted');
    const until = Date.now() + 5000;
    while (target.stats.open === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(target.stats.open).toBeGreaterThan(0);
    controller.abort();
    expect(await pending).toBe('aborted');
    // Well within the 2 s query timeout: the socket closes because the request ended.
    expect(await target.settled(1500)).toBe(0);
    const seen = target.stats.connections;
    await new Promise((r) => setTimeout(r, 1000));
    expect(target.stats.connections).toBe(seen);
  });
});
