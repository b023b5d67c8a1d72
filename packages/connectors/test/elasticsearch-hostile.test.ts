/**
 * A tenant controls the server at the other end of an Elasticsearch connection. Against servers that
 * misbehave below and above HTTP (tooling/hostile-servers), every operation of the connector, taken
 * through the registry as the service does (`connectorFor`, so wrapped by `bounded()`), must end
 * with a clear failure, on time, without an uncaught exception, unbounded memory, or a socket or
 * retry left behind. The race in `bounded()` is not enough: the tests also show that the connector
 * itself stops (it answers well before `bounded()`'s deadline, its sockets close, and nothing more
 * is sent afterwards).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  HTTP_SCENARIOS,
  startHostileHttp,
  type HostileHttpServer,
  type HttpScenario,
} from '@aqs/hostile-servers';
import { generateTls } from '../../../tooling/es-test-cluster/src/tls.ts';
import { closeConnectors, connectorFor } from '../src/index.ts';
import { MAX_RESPONSE_BYTES, cachedClient, dropElasticsearchClient } from '../src/elasticsearch/client.ts';
import { elasticsearchConnector } from '../src/elasticsearch/connector.ts';
import { ConnectorError } from '../src/errors.ts';
import type { ConnectionTarget, ConnectorContext, TestResult } from '../src/types.ts';

const es = connectorFor('elasticsearch')!;
const TIMEOUT = 1000;
const SECRET = 'hostile-test-secret-value';
const ctx: ConnectorContext = {
  allowPrivateNetworks: true,
  allowInsecureTransport: true,
  requestTimeoutMs: TIMEOUT,
};
const QUERY = 'FROM logs-* | KEEP message | LIMIT 10';

// ---------- nothing may escape: recorders for what would end the process ----------
const escaped: unknown[] = [];
const onUncaught = (error: unknown): void => void escaped.push(error);
beforeAll(() => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterEach(() => {
  expect(escaped).toEqual([]);
});
afterAll(async () => {
  await closeConnectors();
  // Late events of the last test (sockets closing) would land here.
  await new Promise((resolve) => setTimeout(resolve, 100));
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  expect(escaped).toEqual([]);
});

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function hostile(
  scenario: HttpScenario,
  options: Parameters<typeof startHostileHttp>[1] = {},
): Promise<HostileHttpServer> {
  const s = await startHostileHttp(scenario, options);
  servers.push(s);
  return s;
}

let nextId = 0;
function target(url: string, o: { id?: string; ca?: string } = {}): ConnectionTarget {
  return {
    id: o.id ?? `hostile-${++nextId}`,
    dialect: 'elasticsearch',
    authMode: 'api_key',
    config: {
      cluster_url: url,
      api_key_id: 'hostile-key',
      verify_tls: true,
      ca_cert_pem: o.ca ?? null,
      allowed_indices: ['logs-*'],
      index_pattern: null,
    },
    secrets: { api_key_secret: SECRET },
  };
}

type Op = 'test' | 'introspect' | 'execute';
const OPS: Op[] = ['test', 'introspect', 'execute'];

interface Failure {
  symptom: string;
  cause: string;
  fix: string;
  kind: string | null;
  ms: number;
}

/** Runs one operation through the registry and returns how it failed (it must fail) and how long it took. */
async function fail(op: Op, t: ConnectionTarget, c: ConnectorContext = ctx): Promise<Failure> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  if (op === 'test') {
    const r: TestResult = await es.test(t, c);
    expect(r.ok).toBe(false);
    return { symptom: r.symptom ?? '', cause: r.cause ?? '', fix: r.fix ?? '', kind: null, ms: ms() };
  }
  try {
    if (op === 'introspect') await es.introspect(t, c);
    else await es.execute(t, QUERY, c, { rowCap: 5000, timeoutMs: c.requestTimeoutMs });
  } catch (e) {
    if (!(e instanceof ConnectorError)) throw e;
    return { symptom: e.symptom, cause: e.cause_, fix: e.fix, kind: e.kind, ms: ms() };
  }
  throw new Error(`${op} succeeded against a hostile server`);
}

const timeoutSymptom = (op: Op): string =>
  op === 'execute' ? 'Query timed out' : 'Cluster did not answer in time';
const EXPECTED: Record<HttpScenario, (op: Op) => string> = {
  'reset-after-status-line': () => 'Connection reset',
  'reset-after-headers': () => 'Connection reset',
  'reset-mid-body': () => 'Connection reset',
  garbage: () => 'Not an Elasticsearch cluster',
  'half-open': timeoutSymptom,
  'accept-and-close': () => 'Connection reset',
  trickle: timeoutSymptom,
  'huge-content-length': () => 'Response too large',
  'endless-chunked': () => 'Response too large',
  'gzip-bomb': () => 'Response too large',
  redirect: () => 'Redirect not followed',
  'malformed-json': () => 'Invalid response',
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('memory stays bounded on an enormous answer', () => {
  it(`reads at most ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB of an endless or huge body, then fails clearly`, async () => {
    const figures: string[] = [];
    for (const scenario of ['huge-content-length', 'endless-chunked', 'gzip-bomb'] as const) {
      const server = await hostile(scenario);
      const base = process.memoryUsage();
      let peakRss = base.rss;
      let peakHeap = base.heapUsed + base.arrayBuffers;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
      }, 2);
      const f = await fail('execute', target(server.url));
      clearInterval(sampler);
      expect(f.symptom).toBe('Response too large');
      expect(f.cause).toMatch(/32 MiB/);
      expect(f.fix).toMatch(/KEEP only the columns needed/);
      const mib = (n: number): number => Math.round(n / 1024 / 1024);
      figures.push(
        `${scenario}: rss +${mib(peakRss - base.rss)} MiB, heap+buffers +${mib(peakHeap - base.heapUsed - base.arrayBuffers)} MiB, ${mib(server.bytesOut())} MiB sent by the server, ${f.ms} ms`,
      );
      expect(peakHeap - base.heapUsed - base.arrayBuffers).toBeLessThan(3 * MAX_RESPONSE_BYTES);
      expect(peakRss - base.rss).toBeLessThan(256 * 1024 * 1024);
      expect(await server.settled(1000)).toBe(0);
    }
    console.log(`[figures] peak memory on enormous answers: ${figures.join('; ')}`);
  });
});

describe('every hostile scenario, for test(), introspect() and execute()', () => {
  it.each(HTTP_SCENARIOS.map((s) => [s]))(
    '%s: a clear failure, on time, at most 2 connections, sockets closed after',
    async (scenario) => {
      const server = await hostile(scenario, { trickleIntervalMs: 200 });
      const t = target(server.url);
      for (const op of OPS) {
        const before = server.stats.connections;
        const f = await fail(op, t);
        expect(f.symptom, `${scenario} ${op}`).toBe(EXPECTED[scenario](op));
        expect(f.cause.length, `${scenario} ${op}`).toBeGreaterThan(20);
        expect(f.fix.length).toBeGreaterThan(20);
        expect(`${f.symptom} ${f.cause} ${f.fix}`).not.toContain(SECRET);
        // The connector answered by itself, well before bounded()'s deadline (timeout + 5 s).
        expect(f.ms, `${scenario} ${op} took ${f.ms} ms`).toBeLessThan(TIMEOUT + 1000);
        expect(server.stats.connections - before, `${scenario} ${op}`).toBeLessThanOrEqual(2);
        expect(await server.settled(1000), `${scenario} ${op}: sockets left open`).toBe(0);
        expect(cachedClient(t.id)?.connection.inFlightCount ?? 0).toBe(0);
      }
    },
  );
});

describe('bounded and cancellable', () => {
  it('accept-and-close: one TCP connection per operation, and none afterwards (no retry, no reconnect)', async () => {
    const server = await hostile('accept-and-close');
    const t = target(server.url);
    const perOp: Record<string, number> = {};
    for (const op of OPS) {
      const before = server.stats.connections;
      await fail(op, t);
      perOp[op] = server.stats.connections - before;
    }
    const total = server.stats.connections;
    await sleep(1000);
    expect(server.stats.connections).toBe(total);
    console.log(`[figures] connections per operation against accept-and-close: ${JSON.stringify(perOp)}`);
    expect(perOp).toEqual({ test: 1, introspect: 1, execute: 1 });
  });

  it('ends at the deadline: trickle and half-open take no longer than the request timeout', async () => {
    for (const scenario of ['trickle', 'half-open'] as const) {
      const server = await hostile(scenario, { trickleIntervalMs: 100 });
      for (const op of OPS) {
        const f = await fail(op, target(server.url));
        expect(f.kind === null || f.kind === 'timeout').toBe(true);
        expect(f.ms, `${scenario} ${op}`).toBeGreaterThanOrEqual(TIMEOUT - 50);
        expect(f.ms, `${scenario} ${op}`).toBeLessThan(TIMEOUT + 1000);
      }
      expect(await server.settled(500)).toBe(0);
    }
  });

  it('an aborted signal closes the sockets within a second and nothing continues afterwards', async () => {
    const settle: number[] = [];
    for (const scenario of ['half-open', 'trickle'] as const) {
      const server = await hostile(scenario, { trickleIntervalMs: 100 });
      for (const op of OPS) {
        const t = target(server.url);
        const controller = new AbortController();
        const c: ConnectorContext = { ...ctx, requestTimeoutMs: 20_000, signal: controller.signal };
        const before = server.stats.connections;
        const pending = fail(op, t, c);
        await expect.poll(() => server.stats.open, { timeout: 2000 }).toBe(1);
        if (scenario === 'trickle')
          await expect.poll(() => server.requests.length > 0, { timeout: 2000 }).toBe(true);
        const aborted = performance.now();
        controller.abort();
        const f = await pending;
        expect(f.symptom, `${scenario} ${op}`).toBe('Query cancelled');
        expect(await server.settled(1000), `${scenario} ${op}`).toBe(0);
        settle.push(Math.round(performance.now() - aborted));
        expect(cachedClient(t.id)?.connection.inFlightCount ?? 0).toBe(0);
        const connections = server.stats.connections;
        expect(connections - before).toBe(1);
        await sleep(op === 'execute' ? 1000 : 200);
        expect(server.stats.connections, `${scenario} ${op}: reconnected after the abort`).toBe(connections);
        expect(server.stats.open).toBe(0);
      }
    }
    console.log(`[figures] ms from abort to all sockets closed: ${settle.join(', ')}`);
    expect(Math.max(...settle)).toBeLessThan(1000);
  });

  it('the connector itself honours the signal, without bounded() around it', async () => {
    const server = await hostile('trickle', { trickleIntervalMs: 100 });
    const raw = elasticsearchConnector;
    for (const op of OPS) {
      const controller = new AbortController();
      const c: ConnectorContext = { ...ctx, requestTimeoutMs: 20_000, signal: controller.signal };
      const t = target(server.url);
      const started = performance.now();
      const outcome =
        op === 'test'
          ? raw.test(t, c).then((r) => r.symptom)
          : (op === 'introspect'
              ? raw.introspect(t, c)
              : raw.execute(t, QUERY, c, { rowCap: 10, timeoutMs: 20_000 })
            ).then(
              () => 'succeeded',
              (e: unknown) => (e instanceof ConnectorError ? e.symptom : String(e)),
            );
      await expect.poll(() => server.stats.open, { timeout: 2000 }).toBe(1);
      controller.abort();
      expect(await outcome, op).toBe('Query cancelled');
      expect(performance.now() - started).toBeLessThan(3000);
      expect(await server.settled(1000)).toBe(0);
    }
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await hostile('half-open');
    for (const op of OPS) {
      const f = await fail(op, target(server.url), { ...ctx, signal: AbortSignal.abort() });
      expect(f.symptom).toBe('Query cancelled');
    }
    expect(server.stats.connections).toBe(0);
  });
});

describe('TLS', () => {
  const material = generateTls();

  it('a port that never completes the handshake ends at the deadline; one that answers garbage fails the handshake', async () => {
    const halfOpen = await hostile('half-open');
    const garbage = await hostile('garbage');
    for (const op of OPS) {
      const slow = await fail(op, target(`https://127.0.0.1:${halfOpen.port}`, { ca: material.caPem }));
      expect(slow.symptom).toBe(timeoutSymptom(op));
      expect(slow.ms).toBeLessThan(TIMEOUT + 1000);
      const bad = await fail(op, target(`https://127.0.0.1:${garbage.port}`, { ca: material.caPem }));
      expect(bad.symptom).toBe('TLS handshake failed');
    }
    expect(await halfOpen.settled(1000)).toBe(0);
    expect(await garbage.settled(1000)).toBe(0);
  });

  it.each([['trickle'], ['endless-chunked'], ['reset-mid-body'], ['malformed-json']] as [HttpScenario][])(
    '%s behind verified TLS fails the same way',
    async (scenario) => {
      const server = await hostile(scenario, {
        tls: { key: material.keyPem, cert: material.certPem },
        trickleIntervalMs: 200,
      });
      const t = target(server.url, { ca: material.caPem });
      for (const op of OPS) {
        const f = await fail(op, t);
        expect(f.symptom, `${scenario} ${op}`).toBe(EXPECTED[scenario](op));
        expect(f.ms).toBeLessThan(TIMEOUT + 1000);
      }
      expect(await server.settled(1000)).toBe(0);
    },
  );
});

describe('plain http refused unless the operator allows it', () => {
  it('test(), introspect() and execute() refuse a saved http connection when insecure transport is off, sending nothing', async () => {
    const server = await hostile('half-open');
    const strict: ConnectorContext = { ...ctx, allowInsecureTransport: false };
    const t = target(server.url);
    const r = await es.test(t, strict);
    expect(r).toMatchObject({ ok: false, symptom: 'Plain http not allowed' });
    expect(r.checks.find((c) => c.id === 'tls')!.status).toBe('failed');
    expect(r.checks.find((c) => c.id === 'credentials')!.status).toBe('skipped');
    for (const op of OPS) {
      const f = await fail(op, t, strict);
      expect(f.symptom).toBe('Plain http not allowed');
      expect(f.cause).toMatch(/Nothing was sent/);
      expect(f.fix).toMatch(/https:\/\//);
      expect(f.fix).toMatch(/ALLOW_INSECURE_TRANSPORT=true/);
      if (op !== 'test') expect(f.kind).toBe('tls');
    }
    // Not even a TCP connection: no credential can have left.
    expect(server.stats.connections).toBe(0);
    expect(server.stats.bytesIn).toBe(0);
    expect(cachedClient(t.id)).toBeUndefined();
  });
});

/** A well-behaved stand-in answering `_query` (and counting its sockets). */
async function goodServer(
  rows = 1,
  rowBytes = 10,
): Promise<{ url: string; open: () => number; requests: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const filler = 'x'.repeat(rowBytes);
  const body = JSON.stringify({
    took: 1,
    is_partial: false,
    columns: [
      { name: 'message', type: 'keyword' },
      { name: 'n', type: 'long' },
    ],
    values: Array.from({ length: rows }, (_, i) => [filler, i]),
  });
  const server = http.createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Elastic-Product': 'Elasticsearch' });
      res.end(body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stop = {
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(stop);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => sockets.size,
    requests: () => requests,
    ...stop,
  };
}

describe('the client cache', () => {
  it('a 5000-row answer of 2 KB rows fits the cap comfortably', async () => {
    const server = await goodServer(5001, 2000);
    const r = await es.execute(target(server.url), QUERY.replace('LIMIT 10', 'LIMIT 5000'), ctx, {
      rowCap: 5000,
      timeoutMs: 5000,
    });
    expect(r.rows).toHaveLength(5000);
    expect(r.truncated).toBe(true);
  });

  it('a re-pointed connection never reuses the old client, which is closed with its sockets', async () => {
    const a = await goodServer();
    const b = await goodServer();
    const t = target(a.url, { id: 'repointed' });
    expect((await es.execute(t, QUERY, ctx, { rowCap: 10, timeoutMs: 2000 })).rows).toEqual([
      ['xxxxxxxxxx', 0],
    ]);
    expect(a.open()).toBe(1); // kept alive for the next operation
    const old = cachedClient(t.id);
    const moved = { ...t, config: { ...t.config, cluster_url: b.url } };
    await es.execute(moved, QUERY, ctx, { rowCap: 10, timeoutMs: 2000 });
    expect(a.requests()).toBe(1);
    expect(b.requests()).toBe(1);
    expect(cachedClient(t.id)).not.toBe(old);
    await expect.poll(() => a.open(), { timeout: 1000 }).toBe(0);
  });

  it('operations with different time budgets share the client: one does not close it under the other', async () => {
    const slow = await goodServer();
    const t = target(slow.url, { id: 'two-budgets' });
    await es.execute(t, QUERY, { ...ctx, requestTimeoutMs: 30_000 }, { rowCap: 10, timeoutMs: 5000 });
    const first = cachedClient(t.id);
    // A run's sampling passes what is left of its budget; another run on the connection passes the full one.
    const both = await Promise.all([
      es.execute(t, QUERY, { ...ctx, requestTimeoutMs: 9_999 }, { rowCap: 10, timeoutMs: 5000 }),
      es.execute(t, QUERY, { ...ctx, requestTimeoutMs: 30_000 }, { rowCap: 10, timeoutMs: 5000 }),
    ]);
    expect(both.map((r) => r.rows)).toEqual([[['xxxxxxxxxx', 0]], [['xxxxxxxxxx', 0]]]);
    expect(cachedClient(t.id)).toBe(first);
  });

  it('a forgotten (deleted) connection has its client closed and is rebuilt on next use', async () => {
    const a = await goodServer();
    const t = target(a.url, { id: 'deleted' });
    await es.execute(t, QUERY, ctx, { rowCap: 10, timeoutMs: 2000 });
    expect(a.open()).toBe(1);
    dropElasticsearchClient(t.id);
    expect(cachedClient(t.id)).toBeUndefined();
    await expect.poll(() => a.open(), { timeout: 1000 }).toBe(0);
  });

  it('an aborted operation leaves the cached client clean: no request in flight, and the next one works', async () => {
    const slow = await hostile('half-open');
    const good = await goodServer();
    const t = target(slow.url, { id: 'aborted-then-used' });
    const controller = new AbortController();
    const pending = fail('execute', t, { ...ctx, requestTimeoutMs: 20_000, signal: controller.signal });
    await expect.poll(() => slow.stats.open, { timeout: 2000 }).toBe(1);
    controller.abort();
    expect((await pending).symptom).toBe('Query cancelled');
    expect(await slow.settled(1000)).toBe(0);
    const handle = cachedClient(t.id)!;
    expect(handle.connection.inFlightCount).toBe(0);
    // The same connection pointed at a working server afterwards.
    const r = await es.execute({ ...t, config: { ...t.config, cluster_url: good.url } }, QUERY, ctx, {
      rowCap: 10,
      timeoutMs: 2000,
    });
    expect(r.rows).toHaveLength(1);
    expect(slow.stats.connections).toBe(1);
  });
});
