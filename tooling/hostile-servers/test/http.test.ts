import http from 'node:http';
import { createGunzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HTTP_SCENARIOS,
  closedPort,
  startHostileHttp,
  type HostileHttpServer,
  type HttpScenario,
} from '../src/index.ts';

let server: HostileHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Outcome {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  error: string | null;
}

/**
 * One GET with a plain node:http client (no agent reuse). `stopAfter` bytes of body end it from the
 * client side (for the endless scenarios); `waitMs` gives up on a silent server.
 */
function get(
  url: string,
  o: { stopAfter?: number; waitMs?: number; agent?: http.Agent } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { status: null, headers: {}, body: Buffer.alloc(0), error: null };
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      out.body = Buffer.concat(chunks);
      resolve(out);
    };
    const req = http.get(`${url}/_query`, { agent: o.agent ?? false }, (res) => {
      out.status = res.statusCode ?? null;
      out.headers = res.headers;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 1024 * 1024) chunks.push(c);
        if (o.stopAfter !== undefined && size >= o.stopAfter) req.destroy();
      });
      res.on('error', (e: NodeJS.ErrnoException) => (out.error ??= e.code ?? e.message));
      res.on('close', done);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      out.error ??= e.code ?? e.message;
      if (out.status === null) done();
    });
    if (o.waitMs !== undefined) setTimeout(() => req.destroy(), o.waitMs);
  });
}

const start = async (scenario: HttpScenario, options = {}): Promise<HostileHttpServer> =>
  (server = await startHostileHttp(scenario, options));

describe('hostile HTTP servers', () => {
  it('lists every scenario once', () => {
    expect(new Set(HTTP_SCENARIOS).size).toBe(HTTP_SCENARIOS.length);
    expect(HTTP_SCENARIOS.length).toBeGreaterThanOrEqual(12);
  });

  it('reset-after-status-line: the client sees ECONNRESET before any header', async () => {
    const s = await start('reset-after-status-line');
    const r = await get(s.url);
    expect(r.status).toBeNull();
    expect(r.error).toBe('ECONNRESET');
    expect(s.requests).toMatchObject([{ method: 'GET', path: '/_query' }]);
  });

  it('reset-after-headers and reset-mid-body: a 200 whose body is cut by a reset', async () => {
    for (const scenario of ['reset-after-headers', 'reset-mid-body'] as const) {
      const s = await start(scenario);
      const r = await get(s.url);
      expect(r.status, scenario).toBe(200);
      expect(r.headers['x-elastic-product']).toBe('Elasticsearch');
      expect(r.error, scenario).toMatch(/ECONNRESET|aborted/);
      expect(r.body.length).toBeLessThan(Number(r.headers['content-length']));
      if (scenario === 'reset-mid-body') expect(r.body.toString()).toMatch(/^\{"columns":/);
      await s.close();
      server = undefined;
    }
  });

  it('garbage: not HTTP, the parser refuses it', async () => {
    const s = await start('garbage');
    const r = await get(s.url);
    expect(r.error).toMatch(/^HPE_/);
    expect(await s.settled()).toBe(0);
  });

  it('half-open: accepts and never answers; the socket stays until the client leaves', async () => {
    const s = await start('half-open');
    const r = await get(s.url, { waitMs: 300 });
    expect(r.status).toBeNull();
    expect(s.stats.connections).toBe(1);
    expect(await s.settled()).toBe(0);
  });

  it('accept-and-close: closed before reading the request', async () => {
    const s = await start('accept-and-close');
    const r = await get(s.url);
    expect(r.error).toBe('ECONNRESET');
    expect(s.requests).toEqual([]);
    expect(s.stats.connections).toBe(1);
  });

  it('trickle: valid headers, then one byte per interval', async () => {
    const s = await start('trickle', { trickleIntervalMs: 50 });
    const r = await get(s.url, { waitMs: 600 });
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.body.length).toBeGreaterThanOrEqual(5);
    expect(r.body.length).toBeLessThanOrEqual(14);
    expect(r.body.toString().trim()).toBe('');
    expect(await s.settled()).toBe(0);
  });

  it('huge-content-length and endless-chunked: stream until the client leaves, then stop', async () => {
    for (const scenario of ['huge-content-length', 'endless-chunked'] as const) {
      const s = await start(scenario);
      const r = await get(s.url, { stopAfter: 4 * 1024 * 1024 });
      expect(r.status, scenario).toBe(200);
      if (scenario === 'huge-content-length')
        expect(Number(r.headers['content-length'])).toBeGreaterThan(4e9);
      else expect(r.headers['transfer-encoding']).toBe('chunked');
      expect(r.body.toString('utf8', 0, 20)).toBe('{"columns":[{"name":');
      expect(await s.settled()).toBe(0);
      const sent = s.bytesOut();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(s.bytesOut(), scenario).toBe(sent);
      // What was sent is bounded by what the client took plus socket buffers.
      expect(sent).toBeLessThan(4 * 1024 * 1024 + 8 * 1024 * 1024);
      await s.close();
      server = undefined;
    }
  });

  it('gzip-bomb: a little compressed data inflates a thousandfold', async () => {
    const s = await start('gzip-bomb');
    const inflated = await new Promise<{
      compressed: number;
      inflated: number;
      encoding: string | undefined;
    }>((resolve) => {
      let compressed = 0;
      let size = 0;
      const req = http.get(`${s.url}/_query`, { agent: false }, (res) => {
        const gunzip = createGunzip();
        res.on('data', (c: Buffer) => (compressed += c.length));
        res.on('error', () => undefined);
        gunzip.on('error', () => undefined);
        gunzip.on('data', (c: Buffer) => {
          size += c.length;
          if (size >= 64 * 1024 * 1024) {
            req.destroy();
            gunzip.destroy();
            resolve({ compressed, inflated: size, encoding: res.headers['content-encoding'] });
          }
        });
        res.pipe(gunzip);
      });
      req.on('error', () => undefined);
    });
    expect(inflated.encoding).toBe('gzip');
    expect(inflated.compressed).toBeLessThan(inflated.inflated / 100);
    expect(await s.settled()).toBe(0);
  });

  it('redirect: a 307 to the metadata address (or the given one), on every request of a kept-alive socket', async () => {
    const s = await start('redirect');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(s.url, { agent });
    const second = await get(s.url, { agent });
    agent.destroy();
    expect(first.status).toBe(307);
    expect(first.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
    expect(second.status).toBe(307);
    expect(s.requests).toHaveLength(2);
    expect(s.stats.connections).toBe(1);
    await s.close();
    const other = `http://127.0.0.1:${await closedPort()}/x`;
    server = await startHostileHttp('redirect', { redirectTo: other });
    expect((await get(server.url)).headers.location).toBe(other);
  });

  it('malformed-json: a 200 that claims JSON and is not', async () => {
    const s = await start('malformed-json');
    const r = await get(s.url);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.length).toBe(Number(r.headers['content-length']));
    expect(() => JSON.parse(r.body.toString())).toThrow();
  });
});
