// Attacks from the hardening review that the HTTP layer must answer safely: bad text (NUL, lone
// surrogates, invalid UTF-8), odd methods, out-of-range integers, amplification by huge bad requests,
// anonymous floods, oversized tRPC batches, data-source work inside a batch. What the connection
// service answers (data-source failures on schema routes, stored credentials following a re-pointed
// connection) is tested through a caller in packages/api/test (schema.test.ts, connections.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  awaitMinuteRoom,
  Browser,
  signedInBrowser,
  startTestServer,
  type TestServer,
} from '../src/testing.ts';
import { startServerProcess } from './process.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: { ALLOW_PRIVATE_NETWORKS: 'true', ALLOW_INSECURE_TRANSPORT: 'true', RATE_LIMIT_PER_MINUTE: '1000' },
  });
});
afterAll(async () => {
  await server?.close();
});

/** One request with raw bytes and any method (fetch refuses TRACE and re-encodes bodies). */
function raw(
  base: string,
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

async function demoConnectionId(browser: Browser): Promise<string> {
  const list = await browser.get('/api/v1/connections');
  return (list.json.connections as Array<{ id: string; is_demo: boolean }>).find((c) => c.is_demo)!.id;
}

describe('text the API cannot accept', () => {
  it('answers 422 naming the field for a NUL or an unpaired surrogate in a JSON body, on REST and tRPC', async () => {
    const browser = await signedInBrowser(server);
    const demo = await demoConnectionId(browser);
    const nul = await browser.post(
      '/api/v1/run',
      `{"question": "how many orders\\u0000", "connection_id": "${demo}"}`,
    );
    expect(nul.status).toBe(422);
    expect(nul.json.errors).toEqual([{ field: 'question', message: expect.stringMatching(/NUL/) }]);

    const surrogate = await browser.post(
      '/api/v1/connections',
      '{"name": "x\\ud800", "dialect": "postgres", "auth_mode": "password", "config": {}}',
    );
    expect(surrogate.status).toBe(422);
    expect(surrogate.json.errors[0]).toMatchObject({
      field: 'name',
      message: expect.stringMatching(/surrogate/),
    });

    const inKey = await browser.post('/api/v1/connections', '{"na\\u0000me": "x"}');
    expect(inKey.status).toBe(422);
    expect(inKey.json.errors[0].message).toMatch(/name that must not contain a NUL/);

    const trpc = await browser.post(
      '/trpc/connections.create',
      '{"name": "a\\u0000", "dialect": "postgres", "auth_mode": "password", "config": {}}',
    );
    expect(trpc.status).toBe(422);
    expect(trpc.json.errors[0].field).toBe('name');
  });

  it('answers 422 for a NUL in a path parameter, a query parameter or a tRPC input, and 400 for invalid UTF-8', async () => {
    const browser = await signedInBrowser(server);
    const path = await browser.get('/api/v1/connections/con_abc%00def');
    expect(path.status).toBe(422);
    expect(path.json.errors[0].field).toBe('path');
    const query = await browser.get('/api/v1/runs?connection_id=abc%00');
    expect(query.status).toBe(422);
    expect(query.json.errors[0].field).toBe('connection_id');
    const input = await browser.get(`/trpc/connections.get?input=${encodeURIComponent('{"id":"a\\u0000"}')}`);
    expect(input.status).toBe(422);
    expect(input.json.errors[0].field).toBe('input.id');

    const badPercent = await browser.get('/api/v1/connections/con_%C3%28');
    expect(badPercent.status).toBe(400);
    expect(badPercent.json.detail).toMatch(/UTF-8/);
    // {"email":"<0xC3 0x28>"}: invalid UTF-8 in the body is refused, not silently replaced.
    const invalid = await raw(
      server.url,
      'POST',
      '/auth/email/login',
      Buffer.from([0x7b, 0x22, 0x65, 0x6d, 0x61, 0x69, 0x6c, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      {
        'content-type': 'application/json',
        origin: server.url,
      },
    );
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text).detail).toMatch(/not valid UTF-8/);
  });

  it('answers 405 with Allow for TRACE and other methods it does not serve, never 500', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'LINK']) {
      const res = await raw(server.url, method, '/api/v1/connections');
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toMatch(/GET/);
    }
    // Node's HTTP parser itself refuses methods it does not know (TRACK): a 400, still not a 500.
    expect((await raw(server.url, 'TRACK', '/api/v1/connections')).status).toBe(400);
  });

  it('answers 422 for integers beyond int32 (a turn index of 2147483648), and accepts the largest one', async () => {
    const browser = await signedInBrowser(server);
    const tooBig = await browser.request('DELETE', '/api/v1/conversations/cnv_x/runs/from/2147483648');
    expect(tooBig.status).toBe(422);
    expect(tooBig.json.errors[0]).toMatchObject({
      field: 'from_turn_index',
      message: expect.stringMatching(/at most 2147483647/),
    });
    const largest = await browser.request('DELETE', '/api/v1/conversations/cnv_x/runs/from/2147483647');
    expect(largest.status).toBe(404);
    const offset = await browser.get('/api/v1/runs?offset=99999999999');
    expect(offset.status).toBe(422);
  });
});

describe('amplification', () => {
  it('answers a 70,000-key body with a bounded 422, one info line and no error-level log', async () => {
    const before = server.logs().length;
    const keys = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, 1]));
    const body = JSON.stringify(keys);
    expect(body.length).toBeGreaterThan(700_000);
    const res = await new Browser(server.url).post('/auth/logout', body);
    expect(res.status).toBe(422);
    expect(res.json.errors).toHaveLength(20);
    expect(res.text.length).toBeLessThan(4_000);
    const logged = server.logs().slice(before);
    expect(logged.length).toBeLessThan(4_000);
    expect(logged).not.toMatch(/"level":50/);
    expect(logged).toMatch(/"level":30.*request refused/);
  });

  it('limits callers without a credential per client address, and not signed-in callers', async () => {
    const limited = await startTestServer({ env: { ANON_RATE_LIMIT_PER_MINUTE: '6' } });
    try {
      const browser = await signedInBrowser(limited); // register + login: 2 anonymous requests
      const anonymous = new Browser(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await anonymous.get('/auth/me')).status);
      expect(statuses).toEqual([401, 401, 401, 401]);
      const refused = await anonymous.get('/auth/me');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const badKey = await anonymous.get('/api/v1/connections', { 'x-api-key': 'aqs_nope_nope' });
      expect(badKey.status).toBe(429);
      expect((await browser.get('/api/v1/connections')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('tRPC batches', () => {
  it('refuses a batch of more than 10 procedures with 413 and serves one of 10', async () => {
    const browser = await signedInBrowser(server);
    const batch = (n: number) =>
      `/trpc/${Array.from({ length: n }, () => 'auth.me').join(',')}?batch=1&input=%7B%7D`;
    const over = await browser.get(batch(11));
    expect(over.status).toBe(413);
    expect(over.json.detail).toMatch(/at most 10 procedures/);
    const ten = await browser.get(batch(10));
    expect(ten.status).toBe(200);
    expect(ten.json).toHaveLength(10);
  });

  it('counts each procedure that reaches a data source as one request, the rest of a batch as one', async () => {
    const browser = await signedInBrowser(server);
    const demo = await demoConnectionId(browser);
    const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
    await awaitMinuteRoom(20);
    const start = remaining(await browser.get('/auth/me'));
    const reads = await browser.get(
      `/trpc/auth.me,connections.list,auth.me?batch=1&input=${encodeURIComponent('{"1":{}}')}`,
    );
    expect(reads.status).toBe(200);
    expect(remaining(reads)).toBe(start - 1);
    const tests = await browser.post('/trpc/connections.test,connections.test,connections.test?batch=1', {
      0: { id: demo },
      1: { id: demo },
      2: { id: demo },
    });
    expect(tests.status).toBe(200);
    expect(tests.json.map((r: { result?: { data?: { ok?: boolean } } }) => r.result?.data?.ok)).toEqual([
      true,
      true,
      true,
    ]);
    expect(remaining(tests)).toBe(start - 1 - 3);
    const mixed = await browser.post('/trpc/connections.test,connections.duplicate?batch=1', {
      0: { id: demo },
      1: { id: demo },
    });
    expect(mixed.json.map((r: { result?: unknown }) => r.result !== undefined)).toEqual([true, true]);
    expect(remaining(mixed)).toBe(start - 1 - 3 - 2);
  }, 90_000);
});

describe('the process survives what nothing caught', () => {
  it('logs an uncaught exception and an unhandled rejection at error and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aqs-guard-'));
    const bomb = join(dir, 'bomb.mjs');
    const trigger = join(dir, 'go');
    // Preloaded into the server process: once the test says go, one throw in a timer and one rejection nobody handles.
    writeFileSync(
      bomb,
      `import { existsSync } from 'node:fs';
const poll = setInterval(() => {
  if (!existsSync(${JSON.stringify(trigger)})) return;
  clearInterval(poll);
  setTimeout(() => { throw new Error('bomb: uncaught in a timer'); }, 10);
  setTimeout(() => { Promise.reject(new Error('bomb: nobody handles this')); }, 20);
}, 50);
poll.unref();
`,
    );
    const proc = await startServerProcess({ DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--import=${bomb}` });
    try {
      writeFileSync(trigger, '');
      await new Promise((r) => setTimeout(r, 600));
      expect(proc.child.exitCode).toBeNull();
      const health = await fetch(`${proc.url}/healthz`);
      expect(health.status).toBe(200);
      const lines = proc
        .output()
        .split('\n')
        .filter((l) => l.includes('"level":50'));
      expect(
        lines.some((l) => l.includes('uncaught exception') && l.includes('bomb: uncaught in a timer')),
      ).toBe(true);
      expect(
        lines.some((l) => l.includes('unhandled rejection') && l.includes('bomb: nobody handles this')),
      ).toBe(true);
    } finally {
      expect(await proc.stop()).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
