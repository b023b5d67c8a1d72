import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, fixtureDir, startTestCluster } from '@aqs/es-test-cluster';
import type { TestCluster } from '@aqs/es-test-cluster';
import { cachedClientCount, createGuardedAgent } from '../src/elasticsearch/client.ts';
import { closeElasticsearchClients, elasticsearchConnector as es } from '../src/elasticsearch/connector.ts';
import { ConnectorError } from '../src/errors.ts';
import type {
  ConnectionTarget,
  ConnectorContext,
  ExecuteResult,
  IntrospectedTable,
  TestResult,
} from '../src/types.ts';
import { unrelatedCa } from './fixtures/elasticsearch/pem.ts';

const ES_TEST = fixtureDir('es-test');
const WEBLOGS = fixtureDir('weblogs');
const SECRETS = [
  'read-secret',
  'emp-secret',
  'admin-secret',
  'weblogs-secret',
  'changeme',
  'reader-pass',
  'emp-pass',
  'meta-pass',
  'wrong-secret-xyz',
];
const ctx: ConnectorContext = {
  allowPrivateNetworks: true,
  allowInsecureTransport: true,
  requestTimeoutMs: 5000,
};
const SCOPE = ['employees', 'languages', 'logs-*', 'metrics-*'];

/** Everything the connector returned or threw, checked for secrets at the end. */
const seen: string[] = [];
function record(x: unknown): void {
  if (x instanceof ConnectorError)
    seen.push(
      JSON.stringify({ message: x.message, symptom: x.symptom, cause: x.cause_, fix: x.fix, query: x.query }),
    );
  else seen.push(JSON.stringify(x));
}

let nextId = 0;
interface TargetOptions {
  auth?: { id: string; secret: string } | { username: string; password: string };
  allowed?: string[];
  indexPattern?: string | null;
  verifyTls?: boolean;
  ca?: string | null;
  url?: string;
  id?: string;
}
function target(cluster: TestCluster, o: TargetOptions = {}): ConnectionTarget {
  const auth = o.auth ?? { id: 'read-key', secret: 'read-secret' };
  const basic = 'username' in auth;
  return {
    id: o.id ?? `es-${++nextId}`,
    dialect: 'elasticsearch',
    authMode: basic ? 'basic' : 'api_key',
    config: {
      cluster_url: o.url ?? cluster.url,
      ...(basic ? { username: auth.username } : { api_key_id: auth.id }),
      verify_tls: o.verifyTls ?? true,
      ca_cert_pem: o.ca === undefined ? cluster.caPem : o.ca,
      allowed_indices: o.allowed ?? SCOPE,
      index_pattern: o.indexPattern ?? null,
    },
    secrets: basic ? { password: auth.password } : { api_key_secret: auth.secret },
  };
}

async function runTest(t: ConnectionTarget, c: ConnectorContext = ctx): Promise<TestResult> {
  const r = await es.test(t, c);
  record(r);
  return r;
}
async function run(
  t: ConnectionTarget,
  q: string,
  opts: Partial<{ rowCap: number; timeoutMs: number; signal: AbortSignal }> = {},
  c = ctx,
): Promise<ExecuteResult> {
  const r = await es.execute(t, q, opts.signal ? { ...c, signal: opts.signal } : c, {
    rowCap: opts.rowCap ?? 5000,
    timeoutMs: opts.timeoutMs ?? 5000,
  });
  record(r);
  return r;
}
async function failure(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (e) {
    record(e);
    if (e instanceof ConnectorError) return e;
    throw e;
  }
  throw new Error('expected a ConnectorError');
}
const statuses = (r: TestResult): Record<string, string> =>
  Object.fromEntries(r.checks.map((c) => [c.id, c.status]));

const clusters: Record<string, TestCluster> = {};

beforeAll(async () => {
  const wide = buildIndex(
    'wide',
    {
      properties: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, { type: 'keyword' }])),
    },
    [{ f0: 'a' }],
  );
  const specs: [string, Parameters<typeof startTestCluster>[0]][] = [
    ['v815', { fixtures: ES_TEST, version: '8.15.0' }],
    ['tls', { fixtures: ES_TEST, version: '8.15.0', tls: true }],
    ['v810', { fixtures: ES_TEST, version: '8.10.4' }],
    ['v811', { fixtures: ES_TEST, version: '8.11.0' }],
    ['v819', { fixtures: ES_TEST, version: '8.19.0' }],
    ['v91', { fixtures: ES_TEST, version: '9.1.0', tls: true }],
    ['serverless', { fixtures: ES_TEST, version: 'serverless' }],
    ['weblogs', { fixtures: WEBLOGS, version: '8.18.0' }],
    [
      'wide',
      {
        fixtures: { dir: '(memory)', indices: new Map([['wide', wide]]), aliases: new Map(), security: null },
        version: '8.15.0',
      },
    ],
  ];
  const started = await Promise.all(specs.map(([, o]) => startTestCluster(o)));
  specs.forEach(([name], i) => (clusters[name] = started[i] as TestCluster));
});

afterAll(async () => {
  await closeElasticsearchClients();
  await Promise.all(Object.values(clusters).map((c) => c.stop()));
});

describe('test(): the symptom table', () => {
  it('passes every check with the recommended API key (8.15, http on loopback)', async () => {
    const r = await runTest(target(clusters.v815!));
    expect(r.ok).toBe(true);
    expect(statuses(r)).toEqual({
      reachability: 'passed',
      tls: 'warning',
      credentials: 'passed',
      query_endpoint: 'passed',
      privileges: 'passed',
      scope: 'passed',
    });
    expect(r.checks.find((c) => c.id === 'tls')!.detail).toMatch(/plain http/);
    expect(r.checks.find((c) => c.id === 'scope')!.detail).toMatch(
      /^6 indices, 0 aliases, 0 data streams in scope: employees, languages, logs-2024.01/,
    );
    // The recommended key cannot call GET /: the version is simply not known.
    expect(r.server).toEqual({ version: null, flavor: null });
    expect(r).toMatchObject({ symptom: null, cause: null, fix: null });
  });

  it('reports the version when the credential may read it', async () => {
    const r = await runTest(target(clusters.v815!, { auth: { id: 'admin-key', secret: 'admin-secret' } }));
    expect(r.ok).toBe(true);
    expect(r.server).toEqual({ version: '8.15.0', flavor: 'default' });
    const s = await runTest(
      target(clusters.serverless!, { auth: { id: 'admin-key', secret: 'admin-secret' } }),
    );
    expect(s.ok).toBe(true);
    expect(s.server).toEqual({ version: null, flavor: 'serverless' });
  });

  it('verifies TLS against the CA cert PEM', async () => {
    const r = await runTest(target(clusters.tls!));
    expect(r.ok).toBe(true);
    expect(r.checks.find((c) => c.id === 'tls')).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/supplied CA/),
    });
  });

  it('fails with TLS verify failed for a wrong or missing CA, and skips the rest', async () => {
    for (const ca of [unrelatedCa().caPem, null]) {
      const r = await runTest(target(clusters.tls!, { ca }));
      expect(r.ok).toBe(false);
      expect(r.symptom).toBe('TLS verify failed');
      expect(r.fix).toBe('Supply the CA cert PEM, or disable TLS verification in development.');
      expect(statuses(r)).toEqual({
        reachability: 'passed',
        tls: 'failed',
        credentials: 'skipped',
        query_endpoint: 'skipped',
        privileges: 'skipped',
        scope: 'skipped',
      });
    }
  });

  it('connects with TLS verification off, with a warning', async () => {
    const t = target(clusters.tls!, { ca: null, verifyTls: false });
    const r = await runTest(t);
    expect(r.ok).toBe(true);
    expect(r.checks.find((c) => c.id === 'tls')).toMatchObject({
      status: 'warning',
      detail: expect.stringMatching(/man-in-the-middle/),
    });
    expect(es.warnings(t)[0]).toMatch(/man-in-the-middle/);
  });

  it('401 Unauthorized for a wrong secret, a wrong key id and a wrong password', async () => {
    for (const auth of [
      { id: 'read-key', secret: 'wrong-secret-xyz' },
      { id: 'no-such-key', secret: 'read-secret' },
      { username: 'reader', password: 'wrong-secret-xyz' },
    ]) {
      const r = await runTest(target(clusters.v815!, { auth }));
      expect(r.ok).toBe(false);
      expect(r.symptom).toBe('401 Unauthorized');
      expect(r.cause).toMatch(/API key rotated, expired, or lacking privileges/);
      expect(r.fix).toBe('Recreate the key with `read` and `view_index_metadata`.');
      expect(statuses(r)).toMatchObject({
        reachability: 'passed',
        credentials: 'failed',
        query_endpoint: 'skipped',
      });
    }
  });

  it('basic auth works on a self-managed cluster and is refused by serverless', async () => {
    const r = await runTest(
      target(clusters.v815!, { auth: { username: 'reader', password: 'reader-pass' } }),
    );
    expect(r.ok).toBe(true);
    expect(r.checks.find((c) => c.id === 'credentials')!.detail).toMatch(/reader/);
    const s = await runTest(
      target(clusters.serverless!, { auth: { username: 'elastic', password: 'changeme' } }),
    );
    expect(s.symptom).toBe('401 Unauthorized');
  });

  it('unknown URI [/_query] on a cluster older than 8.11', async () => {
    const r = await runTest(target(clusters.v810!));
    expect(r.ok).toBe(false);
    expect(r.symptom).toBe('unknown URI [/_query]');
    expect(r.cause).toMatch(/older than 8\.11/);
    expect(r.fix).toBe('Upgrade the cluster.');
    expect(statuses(r)).toMatchObject({
      credentials: 'passed',
      query_endpoint: 'failed',
      privileges: 'skipped',
      scope: 'skipped',
    });
  });

  it('reports missing read / view_index_metadata per scope pattern', async () => {
    const meta = await runTest(
      target(clusters.v815!, { auth: { username: 'meta_only', password: 'meta-pass' } }),
    );
    expect(meta.ok).toBe(false);
    expect(statuses(meta)).toMatchObject({
      query_endpoint: 'passed',
      privileges: 'failed',
      scope: 'skipped',
    });
    expect(meta.cause).toMatch(/lacks read on employees/);
    expect(meta.fix).toMatch(/read.*view_index_metadata/);
    const emp = await runTest(
      target(clusters.v815!, {
        auth: { id: 'emp-key', secret: 'emp-secret' },
        allowed: ['employees', 'logs-*'],
      }),
    );
    expect(emp.ok).toBe(false);
    expect(emp.cause).toMatch(/read and view_index_metadata on logs-\*/);
    expect(emp.cause).not.toMatch(/on employees/);
    const empOnly = await runTest(
      target(clusters.v815!, {
        auth: { username: 'emp_only', password: 'emp-pass' },
        allowed: ['employees'],
      }),
    );
    expect(empOnly.cause).toMatch(/lacks view_index_metadata on employees/);
  });

  it('Empty schema after discovery when nothing in scope is visible', async () => {
    const r = await runTest(target(clusters.v815!, { allowed: ['nothing-*'] }));
    expect(r.ok).toBe(false);
    expect(r.symptom).toBe('Empty schema after discovery');
    expect(r.cause).toMatch(/view_index_metadata/);
    expect(r.fix).toBe("Confirm cluster version 8.11 or later and re-check the key's privileges.");
    expect(statuses(r)).toMatchObject({ privileges: 'passed', scope: 'failed' });
  });

  it('reports an unreachable cluster and skips the rest', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const r = await runTest(target(clusters.v815!, { url: `http://127.0.0.1:${port}` }));
    expect(r.ok).toBe(false);
    expect(r.symptom).toBe('Cluster unreachable');
    expect(statuses(r)).toEqual({
      reachability: 'failed',
      tls: 'skipped',
      credentials: 'skipped',
      query_endpoint: 'skipped',
      privileges: 'skipped',
      scope: 'skipped',
    });
    expect(r.server).toBeNull();
  });

  it('works on 8.11, 9.1 (TLS) and serverless', async () => {
    for (const name of ['v811', 'v91', 'serverless', 'v819']) {
      const r = await runTest(target(clusters[name]!));
      expect(r.ok, name).toBe(true);
    }
  });
});

describe('SSRF and redirects', () => {
  it('refuses loopback when private networks are not allowed, before any request', async () => {
    const c = clusters.v815!;
    const before = c.stats().started;
    const denied: ConnectorContext = {
      allowPrivateNetworks: false,
      allowInsecureTransport: true,
      requestTimeoutMs: 2000,
    };
    const r = await runTest(target(c), denied);
    expect(r.ok).toBe(false);
    expect(r.symptom).toBe('Address not allowed');
    expect(statuses(r)).toMatchObject({ reachability: 'failed', credentials: 'skipped' });
    const localhost = target(c, { url: c.url.replace('127.0.0.1', 'localhost') });
    expect(
      (await failure(es.execute(localhost, 'FROM employees', denied, { rowCap: 10, timeoutMs: 2000 }))).kind,
    ).toBe('blocked_address');
    expect((await failure(es.introspect(target(c), denied))).kind).toBe('blocked_address');
    expect(c.stats().started).toBe(before);
    // Allowed by the operator setting: the same target works.
    expect((await run(localhost, 'FROM employees | LIMIT 1')).rows).toHaveLength(1);
  });

  it('guards every socket at connect time (DNS rebinding)', async () => {
    const c = clusters.v815!;
    const blocked = { error: null as ConnectorError | null };
    const agent = createGuardedAgent('http:', { rejectUnauthorized: true }, false, blocked);
    const port = new URL(c.url).port;
    const err = await new Promise<Error>((resolve) => {
      http
        .get({ host: 'localhost', port, path: '/', agent }, () => resolve(new Error('connected')))
        .on('error', resolve);
    });
    agent.destroy();
    expect(err).toBeInstanceOf(ConnectorError);
    expect((err as ConnectorError).kind).toBe('blocked_address');
    expect(blocked.error).toBe(err);
  });

  it('does not follow redirects', async () => {
    const c = clusters.v815!;
    let hits = 0;
    const redirector = http.createServer((req, res) => {
      hits++;
      res.writeHead(307, { Location: `${c.url}${req.url ?? '/'}`, 'X-Elastic-Product': 'Elasticsearch' });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      const before = c.stats().started;
      const e = await failure(run(target(c, { url }), 'FROM employees | LIMIT 1'));
      expect(e.symptom).toBe('Redirect not followed');
      expect(hits).toBe(1);
      expect(c.stats().started).toBe(before);
      const r = await runTest(target(c, { url }));
      expect(r).toMatchObject({ ok: false, symptom: 'Redirect not followed' });
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });
});

describe('introspect()', () => {
  const byName = (tables: IntrospectedTable[], name: string): IntrospectedTable => {
    const t = tables.find((x) => x.name === name);
    if (!t) throw new Error(`no table ${name}`);
    return t;
  };

  it('lists indices and aliases with flattened, widened columns (es-test)', async () => {
    const t = target(clusters.v815!, {
      allowed: ['employees', 'staff', 'logs-*', 'logs', 'languages', '.internal-*'],
    });
    const intro = await es.introspect(t, ctx);
    record(intro);
    expect(intro.dialect).toBe('elasticsearch');
    expect(intro.tables.map((x) => [x.name, x.kind])).toEqual([
      ['.internal-logs', 'index'],
      ['employees', 'index'],
      ['languages', 'index'],
      ['logs', 'alias'],
      ['logs-2024.01', 'index'],
      ['logs-2024.02', 'index'],
      ['staff', 'alias'],
    ]);
    expect(intro.schemas).toEqual([
      { name: 'employees', table_count: 1 },
      { name: 'staff', table_count: 1 },
      { name: 'logs-*', table_count: 2 },
      { name: 'logs', table_count: 1 },
      { name: 'languages', table_count: 1 },
      { name: '.internal-*', table_count: 1 },
    ]);
    expect(byName(intro.tables, 'staff').members).toEqual(['employees']);
    expect(byName(intro.tables, 'logs').members).toEqual(['logs-2024.01', 'logs-2024.02']);
    const emp = byName(intro.tables, 'employees');
    expect(emp.row_estimate).toBeNull();
    const col = (name: string) => emp.columns.find((c) => c.name === name);
    expect(col('_id')).toBeUndefined();
    expect(col('address')).toBeUndefined();
    expect(col('address.city')).toMatchObject({ type: 'keyword', queryable: true });
    expect(col('languages')).toMatchObject({ type: 'integer', native_type: 'byte' });
    expect(col('languages.long')).toMatchObject({ type: 'long' });
    expect(col('languages.short')).toMatchObject({ type: 'integer', native_type: 'short' });
    expect(col('height.float')).toMatchObject({ type: 'double', native_type: 'float' });
    expect(col('height.scaled_float')).toMatchObject({ type: 'double', native_type: 'scaled_float' });
    expect(col('height.half_float')).toMatchObject({ type: 'double', native_type: 'half_float' });
    expect(col('bio')).toMatchObject({ type: 'text' });
    expect(col('bio.keyword')).toMatchObject({ type: 'keyword' });
    expect(col('salary_change.keyword')).toMatchObject({ type: 'keyword' });
    expect(col('projects')).toBeUndefined();
    expect(col('projects.name')).toMatchObject({
      queryable: false,
      note: expect.stringMatching(/nested field 'projects'/),
    });
    expect(col('photo')).toMatchObject({ type: 'unsupported', native_type: 'binary', queryable: false });
    expect(col('last_login')).toMatchObject({ type: 'ip' });
    expect(col('app_version')).toMatchObject({ type: 'version' });
    const logs = byName(intro.tables, 'logs-2024.01');
    expect(logs.columns.find((c) => c.name === 'message')).toMatchObject({
      type: 'text',
      native_type: 'match_only_text',
    });
    expect(logs.columns.find((c) => c.name === 'service')).toMatchObject({
      type: 'keyword',
      native_type: 'wildcard',
    });
    expect(logs.columns.find((c) => c.name === 'host.name')).toMatchObject({ type: 'keyword' });
    expect(logs.columns.find((c) => c.name === 'status')!.note).toMatch(
      /unsupported when queried through logs-\*/,
    );
    // The alias spans both indices: status is integer in one and keyword in the other.
    const status = byName(intro.tables, 'logs').columns.find((c) => c.name === 'status');
    expect(status).toMatchObject({ type: 'unsupported', native_type: 'integer, keyword', queryable: false });
    expect(status!.note).toMatch(/Conflicting types.*integer in logs-2024\.01.*keyword in logs-2024\.02/);
    expect(intro.warnings.some((w) => /FROM logs-\*: field 'status' has conflicting types/.test(w))).toBe(
      true,
    );
    // Hidden indices only through a pattern that starts with a dot.
    expect(intro.tables.some((x) => x.name === 'logs-archive')).toBe(false);
  });

  it('describes the weblogs fixture (deep objects, multi-fields, nested)', async () => {
    const t = target(clusters.weblogs!, {
      auth: { id: 'weblogs-key', secret: 'weblogs-secret' },
      allowed: ['weblogs', 'web'],
    });
    const intro = await es.introspect(t, ctx);
    record(intro);
    expect(intro.tables.map((x) => [x.name, x.kind])).toEqual([
      ['web', 'alias'],
      ['weblogs', 'index'],
    ]);
    const cols = Object.fromEntries(byName(intro.tables, 'weblogs').columns.map((c) => [c.name, c]));
    expect(cols['http.response.status_code']).toMatchObject({ type: 'integer', native_type: 'short' });
    expect(cols['http.response.body.bytes']).toMatchObject({ type: 'long' });
    expect(cols['user_agent.original']).toMatchObject({ type: 'text' });
    expect(cols['user_agent.original.keyword']).toMatchObject({ type: 'keyword' });
    expect(cols['url.original']).toMatchObject({ type: 'keyword', native_type: 'wildcard' });
    expect(cols['geo.location']).toMatchObject({ type: 'geo_point' });
    expect(cols['client.ip']).toMatchObject({ type: 'ip' });
    expect(cols['request_headers.name']).toMatchObject({ queryable: false });
    expect(cols['@timestamp']).toMatchObject({ type: 'date', queryable: true });
    expect(intro.warnings).toEqual([]);
  });

  it('warns about indices above 1000 fields', async () => {
    const c = clusters.wide!;
    const intro = await es.introspect(target(c, { allowed: ['wide'] }), ctx);
    expect(intro.tables[0]!.columns).toHaveLength(1001);
    expect(intro.tables[0]!.warnings[0]).toMatch(
      /above 1000 fields may hit prompt-size limits during planning; narrow Allowed indices/,
    );
    expect(intro.warnings).toHaveLength(1);
  });

  it('lists data streams with their backing indices (stand-in server answering like ES)', async () => {
    // The test cluster has no data streams: a minimal server answers the two discovery calls.
    const server = http.createServer((req, res) => {
      const headers = { 'Content-Type': 'application/json', 'X-Elastic-Product': 'Elasticsearch' };
      const url = decodeURIComponent(req.url ?? '');
      let body: unknown = { error: { type: 'x', reason: `no ${url}` }, status: 404 };
      let status = 404;
      if (url.startsWith('/_resolve/index/logs-app*')) {
        status = 200;
        body = {
          indices: [
            {
              name: '.ds-logs-app-2024.06.01-000001',
              attributes: ['hidden', 'open'],
              data_stream: 'logs-app-web',
            },
          ],
          aliases: [],
          data_streams: [
            {
              name: 'logs-app-web',
              backing_indices: ['.ds-logs-app-2024.06.01-000001'],
              timestamp_field: '@timestamp',
            },
          ],
        };
      } else if (url.startsWith('/logs-app-web/_field_caps')) {
        status = 200;
        body = {
          indices: ['.ds-logs-app-2024.06.01-000001'],
          fields: {
            '@timestamp': {
              date: { type: 'date', metadata_field: false, searchable: true, aggregatable: true },
            },
            _id: { _id: { type: '_id', metadata_field: true, searchable: true, aggregatable: false } },
            'event.dataset': {
              constant_keyword: {
                type: 'constant_keyword',
                metadata_field: false,
                searchable: true,
                aggregatable: true,
              },
            },
            event: {
              object: { type: 'object', metadata_field: false, searchable: false, aggregatable: false },
            },
            labels: {
              flattened: { type: 'flattened', metadata_field: false, searchable: true, aggregatable: true },
            },
          },
        };
      } else if (url.startsWith('/logs-app*/_field_caps')) {
        status = 200;
        body = { indices: [], fields: {} };
      }
      res.writeHead(status, headers);
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const intro = await es.introspect(target(clusters.v815!, { url, allowed: ['logs-app*'] }), ctx);
      expect(intro.tables.map((t) => [t.name, t.kind, t.members])).toEqual([
        ['logs-app-web', 'data_stream', ['.ds-logs-app-2024.06.01-000001']],
      ]);
      expect(intro.tables[0]!.columns.map((c) => [c.name, c.type, c.native_type, c.queryable])).toEqual([
        ['@timestamp', 'date', 'date', true],
        ['event.dataset', 'keyword', 'constant_keyword', true],
        ['labels', 'unsupported', 'flattened', false],
      ]);
      expect(intro.schemas).toEqual([{ name: 'logs-app*', table_count: 1 }]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('an empty scope answers with the empty-schema warning', async () => {
    const intro = await es.introspect(target(clusters.v815!, { allowed: ['nothing-*'] }), ctx);
    expect(intro.tables).toEqual([]);
    expect(intro.schemas).toEqual([{ name: 'nothing-*', table_count: 0 }]);
    expect(intro.warnings[0]).toMatch(/^Empty schema after discovery/);
  });
});

describe('execute()', () => {
  it('runs a query and keeps the column types', async () => {
    const t = target(clusters.v815!);
    const q = await es.validateQuery(
      t,
      'FROM employees | STATS avg_salary = AVG(salary), n = COUNT(*) BY gender | SORT gender',
      { rowCap: 5000 },
    );
    const r = await run(t, q.text);
    expect(r.columns).toEqual([
      { name: 'avg_salary', type: 'double' },
      { name: 'n', type: 'long' },
      { name: 'gender', type: 'keyword' },
    ]);
    expect(r.rows.length).toBeGreaterThan(1);
    expect(r).toMatchObject({ truncated: false, partial: false });
    const k = await run(t, 'FROM employees | KEEP emp_no, first_name | SORT emp_no | LIMIT 2');
    expect(k.columns.map((c) => c.name)).toEqual(['emp_no', 'first_name']);
    expect(k.rows[0]![0]).toBe(10001);
  });

  it('enforces the row cap and tells truncated from exact', async () => {
    const t = target(clusters.v815!);
    const capped = await run(t, 'FROM employees', { rowCap: 10 });
    expect(capped.rows).toHaveLength(10);
    expect(capped.truncated).toBe(true);
    expect(capped.warnings.map((w) => w.code)).toContain('row_cap');
    const exact = await run(t, 'FROM employees', { rowCap: 100 });
    expect(exact.rows).toHaveLength(100);
    expect(exact.truncated).toBe(false);
    const limited = await run(t, 'FROM employees | LIMIT 5', { rowCap: 10 });
    expect(limited).toMatchObject({ truncated: false });
    expect(limited.rows).toHaveLength(5);
    const above = await run(t, 'FROM employees | LIMIT 50 // | LIMIT 1', { rowCap: 20 });
    expect(above.rows).toHaveLength(20);
    expect(above.truncated).toBe(true);
  });

  it('re-validates: scope is enforced even for text that skipped validateQuery', async () => {
    const c = clusters.v815!;
    const before = c.stats().started;
    const e = await failure(run(target(c, { allowed: ['logs-*'] }), 'FROM employees'));
    expect(e.message).toBe("Index 'employees' is not in allowlist");
    expect(c.stats().started).toBe(before);
  });

  it('works across versions: 8.11 (no took/is_partial), 8.19, 9.1 over TLS, serverless', async () => {
    for (const name of ['v811', 'v819', 'v91', 'serverless']) {
      const r = await run(target(clusters[name]!), 'FROM employees | STATS n = COUNT(*)');
      expect(r.rows, name).toEqual([[100]]);
      expect(r.partial).toBe(false);
    }
  });

  it('partial shards: partial=true warning where partial results exist, a clear error where they do not', async () => {
    for (const name of ['v819', 'v91']) {
      const r = await run(target(clusters[name]!), 'FROM metrics-* | STATS n = COUNT(*)');
      expect(r.partial, name).toBe(true);
      const w = r.warnings.find((x) => x.code === 'partial_results');
      expect(w?.message).toMatch(/partial=true/);
      expect(w?.message).toMatch(/Re-run when cluster health is yellow or green\./);
    }
    const e = await failure(run(target(clusters.v815!), 'FROM metrics-*'));
    expect(e.symptom).toBe('Shards unavailable');
    expect(e.fix).toBe('Re-run when cluster health is yellow or green.');
  });

  it('maps cluster errors to the symptom table', async () => {
    const t = target(clusters.v815!);
    const unknown = await failure(run(t, 'FROM employees | KEEP no_such_column'));
    expect(unknown).toMatchObject({
      kind: 'unknown_column',
      symptom: 'verification_exception',
      recoverable: true,
      query: 'FROM employees | KEEP no_such_column | LIMIT 5000',
    });
    expect(unknown.cause_).toMatch(/Unknown column \[no_such_column\]/);
    // LOOKUP JOIN is newer than 8.15: the cluster's own parser refuses it.
    const join = await failure(run(t, 'FROM employees | LOOKUP JOIN languages ON language_code'));
    expect(join).toMatchObject({
      kind: 'query_syntax',
      symptom: 'parsing_exception',
      fix: 'Report the question and the generated query to the operator.',
    });
    expect(join.query).toContain('LOOKUP JOIN languages');
    const joined = await run(
      target(clusters.v91!),
      'FROM employees | EVAL language_code = languages | LOOKUP JOIN languages ON language_code | KEEP emp_no, language_name | SORT emp_no | LIMIT 1',
    );
    expect(joined.columns.map((c) => c.name)).toEqual(['emp_no', 'language_name']);
    const bad = await failure(
      run(target(clusters.v815!, { auth: { id: 'read-key', secret: 'wrong-secret-xyz' } }), 'FROM employees'),
    );
    expect(bad).toMatchObject({
      kind: 'auth',
      symptom: '401 Unauthorized',
      fix: 'Recreate the key with `read` and `view_index_metadata`.',
    });
    const forbidden = await failure(
      run(
        target(clusters.v815!, { auth: { username: 'emp_only', password: 'emp-pass' } }),
        'FROM employees, languages',
      ),
    );
    expect(forbidden).toMatchObject({ kind: 'privileges', symptom: '403 Forbidden' });
    const old = await failure(run(target(clusters.v810!), 'FROM employees'));
    expect(old).toMatchObject({
      kind: 'unsupported_version',
      symptom: 'unknown URI [/_query]',
      fix: 'Upgrade the cluster.',
    });
    const tls = await failure(run(target(clusters.tls!, { ca: unrelatedCa().caPem }), 'FROM employees'));
    expect(tls).toMatchObject({
      kind: 'tls',
      symptom: 'TLS verify failed',
      fix: 'Supply the CA cert PEM, or disable TLS verification in development.',
    });
  });

  it('cancels the query on the engine when the signal aborts', async () => {
    const c = clusters.v815!;
    c.setQueryDelay(3000);
    try {
      const controller = new AbortController();
      const before = c.cancelledQueries;
      const started = Date.now();
      const p = failure(run(target(c), 'FROM employees', { signal: controller.signal, timeoutMs: 10_000 }));
      await c.waitForActiveQueries(1, 2000);
      controller.abort();
      const e = await p;
      expect(e).toMatchObject({ kind: 'cancelled', symptom: 'Query cancelled' });
      expect(Date.now() - started).toBeLessThan(2500);
      await expect.poll(() => c.cancelledQueries, { timeout: 2000 }).toBe(before + 1);
      expect(c.activeQueries()).toEqual([]);
      // Already aborted: nothing is sent.
      const startedBefore = c.stats().started;
      expect((await failure(run(target(c), 'FROM employees', { signal: AbortSignal.abort() }))).kind).toBe(
        'cancelled',
      );
      expect(c.stats().started).toBe(startedBefore);
    } finally {
      c.setQueryDelay(0);
    }
  });

  it('times out and stops the query on the engine', async () => {
    const c = clusters.v815!;
    c.setQueryDelay(3000);
    try {
      const before = c.cancelledQueries;
      const e = await failure(run(target(c), 'FROM employees', { timeoutMs: 300 }));
      expect(e).toMatchObject({ kind: 'timeout', symptom: 'Query timed out', recoverable: true });
      await expect.poll(() => c.cancelledQueries, { timeout: 2000 }).toBe(before + 1);
    } finally {
      c.setQueryDelay(0);
    }
  });

  it('never reuses a stale client after the config changes', async () => {
    const c = clusters.v815!;
    const good = target(c, { id: 'stable-id' });
    expect((await run(good, 'FROM employees | LIMIT 1')).rows).toHaveLength(1);
    const count = cachedClientCount();
    const rotated = { ...good, secrets: { api_key_secret: 'wrong-secret-xyz' } };
    expect((await failure(run(rotated, 'FROM employees | LIMIT 1'))).symptom).toBe('401 Unauthorized');
    expect(cachedClientCount()).toBe(count);
    const scoped = { ...good, config: { ...good.config, allowed_indices: ['logs-*'] } };
    expect((await failure(run(scoped, 'FROM employees'))).kind).toBe('out_of_scope');
    expect((await run(good, 'FROM employees | LIMIT 1')).rows).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('no secret appears in any result or error produced above', () => {
    expect(seen.length).toBeGreaterThan(40);
    const all = seen.join('\n');
    for (const s of SECRETS) expect(all, s).not.toContain(s);
  });
});
