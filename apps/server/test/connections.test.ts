import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { Browser } from '../src/testing.ts';
import { signedInBrowser, startTestServer, type TestServer } from '../src/testing.ts';

const fixtures = fixtureDir('es-test');
const SECRET = 'read-secret';

let server: TestServer;
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures, version: '8.15.0', tls: true });
  server = await startTestServer({ env: { ALLOW_PRIVATE_NETWORKS: 'true' } });
});
afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

function esConfig(overrides: Record<string, unknown> = {}) {
  return {
    cluster_url: cluster.url,
    api_key_id: 'read-key',
    api_key_secret: SECRET,
    verify_tls: true,
    ca_cert_pem: cluster.caPem,
    allowed_indices: ['employees', 'logs-*'],
    ...overrides,
  };
}

async function createEs(
  browser: Browser,
  overrides: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return browser.post('/api/v1/connections', {
    name: 'Cluster',
    dialect: 'elasticsearch',
    auth_mode: 'api_key',
    config: esConfig(overrides),
    ...extra,
  });
}

// What the connection and schema procedures do is tested through a caller in packages/api/test
// (connections.test.ts, schema.test.ts); here, the REST and tRPC wiring: routes, methods, statuses,
// query parameters, what goes over the wire and into the server's log.
describe('connection routes', () => {
  it('answers auth modes for the dialect in the query string, 422 naming `dialect` when it is missing', async () => {
    const browser = await signedInBrowser(server);
    const dialects = await browser.get('/api/v1/connections/dialects');
    expect(dialects.status).toBe(200);
    expect(dialects.json.dialects.length).toBeGreaterThan(1);
    const ok = await browser.get('/api/v1/connections/auth-modes?dialect=elasticsearch');
    expect(ok.status).toBe(200);
    expect(ok.json.dialect).toBe('elasticsearch');
    const missing = await browser.get('/api/v1/connections/auth-modes');
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0].field).toBe('dialect');
  });

  it('creates (201), gets, lists by tag, patches, tests, duplicates (201), tags, pauses and deletes a connection', async () => {
    const browser = await signedInBrowser(server);
    const created = await createEs(browser, {}, { tags: ['blue'] });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(SECRET);
    const id = created.json.id;
    expect((await browser.get(`/api/v1/connections/${id}`)).json.name).toBe('Cluster');
    const blue = await browser.get('/api/v1/connections?tag=blue');
    expect(blue.json.connections.map((c: any) => c.id)).toEqual([id]);
    const patched = await browser.request('PATCH', `/api/v1/connections/${id}`, { name: 'Renamed' });
    expect(patched.status).toBe(200);
    expect(patched.json.name).toBe('Renamed');
    const tested = await browser.post(`/api/v1/connections/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.json.ok).toBe(true);
    const copy = await browser.post(`/api/v1/connections/${id}/duplicate`);
    expect(copy.status).toBe(201);
    const tagged = await browser.request('PUT', `/api/v1/connections/${id}/tags`, { tags: ['a'] });
    expect(tagged.json.tags).toEqual(['a']);
    const paused = await browser.post(`/api/v1/connections/${id}/paused`, { paused: true });
    expect(paused.json.paused).toBe(true);
    const deleted = await browser.request('DELETE', `/api/v1/connections/${id}`);
    expect(deleted.status).toBe(200);
    const gone = await browser.get(`/api/v1/connections/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.detail).toMatch(/was not found/);
  });

  it('answers the quota problem as a 429 with its code', async () => {
    const browser = await signedInBrowser(server);
    for (let i = 0; i < 3; i++) expect((await createEs(browser)).status).toBe(201);
    const fourth = await createEs(browser);
    expect(fourth.status).toBe(429);
    expect(fourth.json.code).toBe('quota_connections_exceeded');
  });
});

describe('schema routes', () => {
  it('introspect, schemas, tables, a table by name (404 for an unknown one), metadata and selection', async () => {
    const browser = await signedInBrowser(server);
    const { json: conn } = await createEs(browser);
    const introspected = await browser.post(`/api/v1/connections/${conn.id}/introspect`);
    expect(introspected.status).toBe(200);
    expect((await browser.get(`/api/v1/connections/${conn.id}/schemas`)).status).toBe(200);
    const tables = await browser.get(`/api/v1/schema/${conn.id}/tables`);
    expect(tables.json.tables.map((t: any) => t.name)).toContain('employees');
    const employees = await browser.get(`/api/v1/schema/${conn.id}/tables/employees`);
    expect(employees.status).toBe(200);
    expect((await browser.get(`/api/v1/schema/${conn.id}/tables/nope`)).status).toBe(404);
    expect((await browser.get(`/api/v1/connections/${conn.id}/metadata/status`)).json.stale).toBe(true);
    const curated = await browser.request('PUT', `/api/v1/connections/${conn.id}/metadata`, {
      tables: [{ name: 'employees', description: 'One row per employee', columns: [] }],
    });
    expect(curated.status).toBe(200);
    const badSelection = await browser.request('PUT', `/api/v1/connections/${conn.id}/selected-tables`, {
      tables: ['employees', 'ghost'],
    });
    expect(badSelection.status).toBe(422);
    expect(badSelection.json.errors).toEqual([
      { field: 'tables.1', message: 'names an unknown table "ghost"' },
    ]);
    const overrides = await browser.request('PUT', `/api/v1/connections/${conn.id}/schema-overrides`, {
      primary_keys: [],
      relationships: [],
    });
    expect(overrides.status).toBe(200);
    const selection = await browser.request('PUT', `/api/v1/connections/${conn.id}/schema-selection`, {
      tables: [{ name: 'employees', columns: [] }],
    });
    expect(selection.status).toBe(200);
  });
});

describe('stored credentials', () => {
  it('never appear in any REST or tRPC response or server log line: create, read, list, duplicate, patch, test, introspect, tables', async () => {
    const canary = 'canary-secret-7f3a9c';
    const browser = await signedInBrowser(server);
    const texts: string[] = [];
    const created = await browser.post('/api/v1/connections', {
      name: 'Canary',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: cluster.url,
        username: 'reader',
        password: canary,
        ca_cert_pem: cluster.caPem,
        allowed_indices: ['employees'],
      },
    });
    texts.push(created.text);
    const id = created.json.id;
    texts.push((await browser.get(`/api/v1/connections/${id}`)).text);
    texts.push((await browser.get('/api/v1/connections')).text);
    texts.push((await browser.post(`/api/v1/connections/${id}/duplicate`)).text);
    texts.push((await browser.request('PATCH', `/api/v1/connections/${id}`, { name: 'Canary 2' })).text);
    texts.push((await browser.post(`/api/v1/connections/${id}/test`)).text);
    texts.push((await browser.post(`/api/v1/connections/${id}/introspect`)).text);
    texts.push((await browser.get(`/api/v1/schema/${id}/tables`)).text);
    texts.push((await browser.get(`/trpc/connections.list?input=${encodeURIComponent('{}')}`)).text);
    for (const text of texts) expect(text).not.toContain(canary);
    expect(server.logs()).not.toContain(canary);
  });
});
