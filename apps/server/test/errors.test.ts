import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@aqs/db';
import { createTestStore, testStoreKinds } from '@aqs/db/testing';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/runtime.ts';
import { Browser, PASSWORD, signedInBrowser, startTestServer, type TestServer } from '../src/testing.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('bad input gets the documented status and a detail naming the problem', () => {
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${server.url}/auth/email/login`, { method: 'POST', headers, body }).then(async (r) => ({
      status: r.status,
      json: (await r.json()) as Record<string, any>,
    }));

  it('malformed JSON is a 400', async () => {
    const res = await post('{"email": ');
    expect(res).toEqual({ status: 400, json: { detail: 'The request body is not valid JSON.' } });
  });

  it('wrong types and unknown fields are a 422 naming each field', async () => {
    const res = await post(JSON.stringify({ email: 42, password: ['x'], role: 'admin' }));
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([
      { field: 'email', message: expect.stringMatching(/expected string/) },
      { field: 'password', message: expect.stringMatching(/expected string/) },
      { field: 'role', message: 'is not a known field; remove it' },
    ]);
    expect(res.json.detail).toMatch(/`email`.*`password`.*`role`/);
  });

  it('missing fields are a 422 saying they are required', async () => {
    const res = await post('{}');
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([
      { field: 'email', message: 'is required' },
      { field: 'password', message: 'is required' },
    ]);
  });

  it('a body that is not an object is a 422', async () => {
    const res = await post('[1,2]');
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe('body');
  });

  it('an oversize body is a 413, whatever Content-Length says', async () => {
    const big = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1024 * 1024) });
    expect((await post(big)).status).toBe(413);
    const chunked = await fetch(`${server.url}/auth/email/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(100 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as { detail: string }).detail).toMatch(/larger than 1 MiB/);
  });

  it('a non-JSON content type is a 415', async () => {
    const res = await post('email=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.json.detail).toMatch(/application\/json/);
  });

  it('an empty POST body is read as {}', async () => {
    const res = await fetch(`${server.url}/auth/logout`, { method: 'POST' });
    expect(res.status).toBe(200);
  });

  it('unknown routes are a JSON 404 naming the route, under /api/v1 and elsewhere', async () => {
    for (const path of ['/api/v1/nope', '/auth/nope', '/nope']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: `No route GET ${path}. The API reference is at /docs.` });
    }
  });

  it('tRPC callers get the same problem body', async () => {
    const res = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email: 'nope', password: PASSWORD }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { message: string; problem: { errors: unknown[] } } };
    expect(body.error.problem.errors).toEqual([
      { field: 'email', message: 'must be an email address such as ada@example.com' },
    ]);
    expect(JSON.stringify(body)).not.toContain('stack');
  });
});

describe('one error mapping, strict JSON bodies', () => {
  it("a tRPC caller gets the error's own code (NOT_FOUND for a foreign id) with the problem body", async () => {
    const browser = await signedInBrowser(server);
    const res = await browser.get(
      `/trpc/connections.get?input=${encodeURIComponent(JSON.stringify({ id: 'not-a-connection' }))}`,
    );
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({
      code: -32004,
      data: { code: 'NOT_FOUND', httpStatus: 404 },
      problem: { detail: expect.stringMatching(/not-a-connection was not found/) },
    });
  });

  it('a tRPC caller with a bad input is told UNPROCESSABLE_CONTENT', async () => {
    const bad = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email: 'nope', password: PASSWORD }),
    });
    expect(((await bad.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'UNPROCESSABLE_CONTENT',
    );
  });

  it('JSON body values are never coerced: a string for a boolean is a 422 naming the field, and nothing changes', async () => {
    const browser = await signedInBrowser(server);
    const demo = (await browser.get('/api/v1/connections')).json.connections[0];
    const res = await browser.post(`/api/v1/connections/${demo.id}/paused`, { paused: 'false' });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([
      { field: 'paused', message: expect.stringMatching(/expected boolean/) },
    ]);
    expect((await browser.get(`/api/v1/connections/${demo.id}`)).json.paused).toBe(false);
    const run = await browser.post('/api/v1/run', {
      question: 'how many orders',
      connection_id: demo.id,
      chart_requested: 'false',
    });
    expect(run.status).toBe(422);
    expect(run.json.errors[0].field).toBe('chart_requested');
  });

  it('query-string values are read as the type their parameter expects, and refused by name otherwise', async () => {
    const browser = await signedInBrowser(server);
    expect((await browser.get('/api/v1/runs?limit=2')).status).toBe(200);
    const res = await browser.get('/api/v1/runs?limit=two');
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe('limit');
    const twice = await browser.get('/api/v1/runs?limit=2&limit=3');
    expect(twice.status).toBe(422);
    expect(twice.json.errors[0].field).toBe('limit');
  });

  it('a path that exists under another method is a 405 naming the methods it takes', async () => {
    const res = await fetch(`${server.url}/auth/me`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    // The route is decided before the body is read: an unknown one is a 404 whatever was sent.
    const unknown = await fetch(`${server.url}/api/v1/nope`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(unknown.status).toBe(404);
  });
});

describe('operations', () => {
  it('every response carries a request id, and a sane incoming one is kept', async () => {
    const a = await fetch(`${server.url}/healthz`);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await fetch(`${server.url}/nope`, { headers: { 'x-request-id': 'trace-123' } });
    expect(b.headers.get('x-request-id')).toBe('trace-123');
    const c = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces\n' } });
    expect(c.headers.get('x-request-id')).not.toContain('bad');
    expect(server.logs()).toContain('"requestId":"trace-123"');
  });

  it('every kind of response carries the request id and the security headers', async () => {
    const browser = await signedInBrowser(server);
    const responses = await Promise.all([
      fetch(`${server.url}/healthz`),
      fetch(`${server.url}/api/v1/nope`),
      fetch(`${server.url}/auth/me`),
      fetch(`${server.url}/healthz`, { method: 'PROPFIND' }),
      fetch(`${server.url}/openapi.json`),
      fetch(`${server.url}/`, { headers: { accept: 'text/html' } }),
      fetch(`${server.url}/trpc/auth.me,auth.me?batch=1&input=%7B%7D`, {
        headers: { cookie: browser.cookie ?? '' },
      }),
      fetch(`${server.url}/api/v1/runs?limit=two`, { headers: { cookie: browser.cookie ?? '' } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 404, 401, 405, 200, 200, 200, 422]);
    for (const res of responses) {
      expect(res.headers.get('x-request-id'), res.url).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), res.url).toBe('same-origin');
      expect(res.headers.get('x-frame-options'), res.url).toBe('DENY');
    }
  });

  it('healthz and readyz answer', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ok' });
  });

  it('start-up says what it left for first use', () => {
    expect(server.logs()).toMatch(
      /Loaded on first use: the demo database.*no language model SDK.*no Stripe SDK/,
    );
  });

  it('the placeholder web page is served at /', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Analytics Query Service');
  });
});

const storeKinds = await testStoreKinds();

describe('when the store fails', () => {
  it('readyz and requests answer 503 with Retry-After and no internals', async () => {
    const broken = await startTestServer();
    const browser = await signedInBrowser(broken);
    await broken.store.close();
    try {
      const ready = await fetch(`${broken.url}/readyz`);
      expect(ready.status).toBe(503);
      const me = await browser.get('/auth/me');
      expect(me.status).toBe(503);
      expect(me.headers.get('retry-after')).toBe('5');
      expect(me.json).toEqual({ detail: STORE_DOWN });
      const login = await new Browser(broken.url).post('/auth/email/login', {
        email: 'a@b.co',
        password: PASSWORD,
      });
      expect(login.status).toBe(503);
      expect(Object.keys(login.json)).toEqual(['detail']);
    } finally {
      await broken.close().catch(() => undefined);
    }
  });

  it.runIf(storeKinds.includes('postgres'))(
    'PostgreSQL going away: 503 with Retry-After while it is gone, then answers again without a restart',
    async () => {
      const database = await createTestStore('postgres');
      const upstream = new URL(database.url!);
      const cut = await startCuttableProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
      const viaProxy = new URL(database.url!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(cut.port);
      const store = await openStore({ kind: 'postgres', url: viaProxy.toString(), maxConnections: 4 });
      const dataDir = mkdtempSync(join(tmpdir(), 'aqs-outage-'));
      const config = loadConfig({ PORT: '1', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      config.port = 0;
      const server = await startServer(config, { store });
      try {
        const browser = await signedInBrowser(server);
        expect((await browser.get('/auth/me')).status).toBe(200);

        cut.down();
        for (const path of ['/auth/me', '/api/v1/connections']) {
          const res = await browser.get(path);
          expect(res.status, path).toBe(503);
          expect(res.headers.get('retry-after'), path).toBe('5');
          expect(res.json, path).toEqual({ detail: STORE_DOWN });
        }
        expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        // The metrics still answer (the queue gauges keep their last value).
        const scrape = await fetch(`${server.url}/metrics`);
        expect(scrape.status).toBe(200);
        expect(await scrape.text()).toContain(
          'aqs_http_requests_total{route="/auth/me",method="GET",status="503"} 1',
        );

        cut.up();
        // The pool connects again on the next request.
        let status = 0;
        for (let i = 0; i < 20 && status !== 200; i++) {
          status = (await browser.get('/auth/me')).status;
          if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        expect(status).toBe(200);
        expect((await browser.get('/api/v1/connections')).status).toBe(200);
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      } finally {
        await server.close();
        await store.close().catch(() => undefined);
        await cut.close();
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

const STORE_DOWN =
  "The service's database is not reachable right now (it may be restarting). Try again in a few seconds.";

/** A TCP proxy to PostgreSQL that can be cut (every connection reset, new ones refused) and restored. */
async function startCuttableProxy(target: { host: string; port: number }) {
  let open = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!open) return client.resetAndDestroy();
    const upstream = connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      open = false;
      for (const s of sockets) s.resetAndDestroy();
    },
    up() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
