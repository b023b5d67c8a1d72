import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { connections as connectionsTable } from '@aqs/db';
import { apiKeys } from '@aqs/core';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import type { Browser } from '../src/testing.ts';
import { signedInBrowser, startTestServer, uniqueEmail, type TestServer } from '../src/testing.ts';

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

describe('dialects and auth modes', () => {
  it('lists the available engines with their auth modes and form fields, and planned ones as unavailable', async () => {
    const browser = await signedInBrowser(server);
    const res = await browser.get('/api/v1/connections/dialects');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.json.dialects.map((d: any) => [d.id, d]));
    expect(byId.elasticsearch.availability).toBe('available');
    expect(byId.postgres.availability).toBe('available');
    expect(byId.opensearch.availability).toBe('unavailable');
    expect(byId.elasticsearch.auth_modes.map((m: any) => m.id).sort()).toEqual(['api_key', 'basic']);
    expect(byId.postgres.auth_modes.map((m: any) => m.id)).toEqual(['password']);
    const apiKeyFields = byId.elasticsearch.auth_modes
      .find((m: any) => m.id === 'api_key')
      .fields.map((f: any) => f.name);
    expect(apiKeyFields).toEqual(
      expect.arrayContaining([
        'cluster_url',
        'api_key_id',
        'api_key_secret',
        'verify_tls',
        'ca_cert_pem',
        'allowed_indices',
        'index_pattern',
      ]),
    );
    const secretField = byId.elasticsearch.auth_modes
      .find((m: any) => m.id === 'api_key')
      .fields.find((f: any) => f.name === 'api_key_secret');
    expect(secretField).toMatchObject({
      secret: true,
      label: expect.any(String),
      help: expect.any(String),
      required: true,
    });
    expect(byId.elasticsearch.auth_modes.find((m: any) => m.id === 'basic').warning).toMatch(/development/i);
  });

  it('answers auth modes per dialect, 422 naming `dialect` when missing or unknown', async () => {
    const browser = await signedInBrowser(server);
    const ok = await browser.get('/api/v1/connections/auth-modes?dialect=elasticsearch');
    expect(ok.status).toBe(200);
    expect(ok.json.dialect).toBe('elasticsearch');
    const missing = await browser.get('/api/v1/connections/auth-modes');
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0].field).toBe('dialect');
    const unknown = await browser.get('/api/v1/connections/auth-modes?dialect=oracle');
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0]).toMatchObject({
      field: 'dialect',
      message: expect.stringMatching(/not a known dialect/),
    });
  });
});

describe('the connection resource', () => {
  it('creates an Elasticsearch connection over TLS with its CA; the secret never comes back', async () => {
    const browser = await signedInBrowser(server);
    const res = await createEs(browser, {}, { tags: ['prod', 'logs'] });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'Cluster',
      dialect: 'elasticsearch',
      auth_mode: 'api_key',
      tags: ['prod', 'logs'],
      paused: false,
      is_demo: false,
      warnings: [],
      config: {
        cluster_url: cluster.url,
        api_key_id: 'read-key',
        api_key_secret_set: true,
        allowed_indices: ['employees', 'logs-*'],
      },
    });
    expect(res.text).not.toContain(SECRET);
    const [row] = await server.store.db
      .select()
      .from(connectionsTable)
      .where(eq(connectionsTable.id, res.json.id));
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.secrets.api_key_secret).toMatch(/^v1:/);
  });

  it('tests the connection: every check passes, and a wrong key reports the 401 symptom with its fix', async () => {
    const browser = await signedInBrowser(server);
    const good = await createEs(browser);
    const result = await browser.post(`/api/v1/connections/${good.json.id}/test`);
    expect(result.status).toBe(200);
    expect(result.json.ok).toBe(true);
    expect(result.json.checks.length).toBeGreaterThanOrEqual(4);
    expect(result.json.checks.every((c: any) => c.status === 'passed' || c.status === 'warning')).toBe(true);

    const bad = await createEs(browser, { api_key_secret: 'wrong-secret' });
    const failed = await browser.post(`/api/v1/connections/${bad.json.id}/test`);
    expect(failed.json.ok).toBe(false);
    expect(failed.json.symptom).toBe('401 Unauthorized');
    expect(failed.json.fix).toMatch(/read.*view_index_metadata/);
    expect(failed.text).not.toContain('wrong-secret');
  });

  it('names every invalid field: scope missing, bad URL, unknown field, unknown and unavailable dialects', async () => {
    const browser = await signedInBrowser(server);
    const noScope = await createEs(browser, { allowed_indices: [], index_pattern: undefined });
    expect(noScope.status).toBe(422);
    expect(noScope.json.errors.map((e: any) => e.field).join(' ')).toMatch(
      /config\.(allowed_indices|index_pattern)/,
    );
    const badUrl = await createEs(browser, { cluster_url: 'not a url' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.json.errors[0].field).toBe('config.cluster_url');
    const unknownField = await createEs(browser, { sslrootcert: '/etc/passwd' });
    expect(unknownField.status).toBe(422);
    expect(unknownField.json.errors.some((e: any) => e.field === 'config.sslrootcert')).toBe(true);
    const unknownDialect = await browser.post('/api/v1/connections', {
      name: 'x',
      dialect: 'oracle',
      auth_mode: 'password',
      config: {},
    });
    expect(unknownDialect.status).toBe(422);
    expect(unknownDialect.json.errors[0].field).toBe('dialect');
    const unavailable = await browser.post('/api/v1/connections', {
      name: 'x',
      dialect: 'opensearch',
      auth_mode: 'basic',
      config: {},
    });
    expect(unavailable.status).toBe(422);
    expect(unavailable.json.errors[0].message).toMatch(/not available/);
    const wrongMode = await browser.post('/api/v1/connections', {
      name: 'x',
      dialect: 'elasticsearch',
      auth_mode: 'password',
      config: esConfig(),
    });
    expect(wrongMode.status).toBe(422);
    expect(wrongMode.json.errors[0].field).toBe('auth_mode');
    const massAssignment = await createEs(browser, {}, { workspace_id: 'wsp_other', paused: true });
    expect(massAssignment.status).toBe(422);
    expect(massAssignment.json.errors.map((e: any) => e.field).sort()).toEqual(['paused', 'workspace_id']);
  });

  it('gets, lists with a tag filter, patches (merging config, keeping secrets), duplicates, tags and deletes', async () => {
    const browser = await signedInBrowser(server);
    const created = await createEs(browser, {}, { tags: ['blue'] });
    const id = created.json.id;
    await createEs(browser, {}, { tags: ['green'] });
    expect((await browser.get(`/api/v1/connections/${id}`)).json.name).toBe('Cluster');
    const blue = await browser.get('/api/v1/connections?tag=blue');
    expect(blue.json.connections.map((c: any) => c.id)).toEqual([id]);

    const patched = await browser.request('PATCH', `/api/v1/connections/${id}`, {
      name: 'Renamed',
      config: { allowed_indices: ['employees'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      name: 'Renamed',
      config: { allowed_indices: ['employees'], api_key_secret_set: true },
    });
    expect((await browser.post(`/api/v1/connections/${id}/test`)).json.ok).toBe(true);

    const toBasic = await browser.request('PATCH', `/api/v1/connections/${id}`, {
      auth_mode: 'basic',
      config: { username: 'reader', password: 'reader-pass' },
    });
    expect(toBasic.status).toBe(200);
    expect(toBasic.json.auth_mode).toBe('basic');
    expect(toBasic.json.config).toMatchObject({ username: 'reader', password_set: true });
    expect(toBasic.json.config.api_key_id).toBeUndefined();
    expect(toBasic.json.warnings.join(' ')).toMatch(/development/i);
    expect(toBasic.text).not.toContain('reader-pass');

    const copy = await browser.post(`/api/v1/connections/${id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.json.name).toBe('Renamed (copy)');
    expect(copy.json.id).not.toBe(id);
    expect((await browser.post(`/api/v1/connections/${copy.json.id}/test`)).json.ok).toBe(true);

    const tagged = await browser.request('PUT', `/api/v1/connections/${id}/tags`, { tags: ['a', 'b', 'a'] });
    expect(tagged.json.tags).toEqual(['a', 'b']);

    const deleted = await browser.request('DELETE', `/api/v1/connections/${id}`);
    expect(deleted.status).toBe(200);
    expect((await browser.get(`/api/v1/connections/${id}`)).status).toBe(404);
  });

  it('introspects and serves schemas, tables and a table with dot-notation columns', async () => {
    const browser = await signedInBrowser(server);
    const { json: conn } = await createEs(browser);
    const introspected = await browser.post(`/api/v1/connections/${conn.id}/introspect`);
    expect(introspected.status).toBe(200);
    expect(introspected.json.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const names = introspected.json.tables.map((t: any) => t.name);
    expect(names).toContain('employees');
    const schemas = await browser.get(`/api/v1/connections/${conn.id}/schemas`);
    expect(schemas.json.schemas.map((s: any) => s.name)).toEqual(['employees', 'logs-*']);
    const tables = await browser.get(`/api/v1/schema/${conn.id}/tables`);
    expect(tables.json.tables.length).toBe(names.length);
    const employees = await browser.get(`/api/v1/schema/${conn.id}/tables/employees`);
    expect(employees.status).toBe(200);
    expect(employees.json.columns.length).toBeGreaterThan(5);
    expect(employees.json.columns.some((c: any) => c.name.includes('.'))).toBe(true);
    expect((await browser.get(`/api/v1/schema/${conn.id}/tables/nope`)).status).toBe(404);

    const status = await browser.get(`/api/v1/connections/${conn.id}/metadata/status`);
    expect(status.json).toMatchObject({ stale: true, structure_fingerprint: introspected.json.fingerprint });

    const curated = await browser.request('PUT', `/api/v1/connections/${conn.id}/metadata`, {
      tables: [
        {
          name: 'employees',
          description: 'One row per employee',
          columns: [{ name: employees.json.columns[0].name, description: 'curated' }],
        },
      ],
    });
    expect(curated.status).toBe(200);
    const after = await browser.get(`/api/v1/schema/${conn.id}/tables/employees`);
    expect(after.json.description).toBe('One row per employee');
    expect(after.json.columns[0].description).toBe('curated');

    const badSelection = await browser.request('PUT', `/api/v1/connections/${conn.id}/selected-tables`, {
      tables: ['employees', 'ghost'],
    });
    expect(badSelection.status).toBe(422);
    expect(badSelection.json.errors).toEqual([
      { field: 'tables.1', message: 'names an unknown table "ghost"' },
    ]);
    const selected = await browser.request('PUT', `/api/v1/connections/${conn.id}/selected-tables`, {
      tables: ['employees'],
    });
    expect(selected.json.selected_tables).toEqual(['employees']);
    const list = await browser.get(`/api/v1/schema/${conn.id}/tables`);
    expect(list.json.tables.filter((t: any) => t.selected).map((t: any) => t.name)).toEqual(['employees']);

    const overrides = await browser.request('PUT', `/api/v1/connections/${conn.id}/schema-overrides`, {
      primary_keys: [{ table: 'employees', columns: ['emp_no'] }],
      relationships: [],
    });
    expect(overrides.status).toBe(200);
    expect((await browser.get(`/api/v1/schema/${conn.id}/tables/employees`)).json.primary_key).toEqual([
      'emp_no',
    ]);
    const selection = await browser.request('PUT', `/api/v1/connections/${conn.id}/schema-selection`, {
      tables: [{ name: 'employees', columns: ['emp_no', 'nope'] }],
    });
    expect(selection.status).toBe(422);
  });
});

describe('plan slots', () => {
  it('allows 3 active connections on the free plan; pausing frees a slot and deletes nothing', async () => {
    const browser = await signedInBrowser(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createEs(browser)).json.id);
    const fourth = await createEs(browser);
    expect(fourth.status).toBe(429);
    expect(fourth.json.code).toBe('quota_connections_exceeded');
    expect(fourth.json.detail).toMatch(/Pause or delete/);
    const paused = await browser.post(`/api/v1/connections/${ids[0]}/paused`, { paused: true });
    expect(paused.json.paused).toBe(true);
    expect((await createEs(browser)).status).toBe(201);
    const resume = await browser.post(`/api/v1/connections/${ids[0]}/paused`, { paused: false });
    expect(resume.status).toBe(429);
    expect(resume.json.code).toBe('quota_connections_exceeded');
    expect((await browser.get(`/api/v1/connections/${ids[0]}`)).json.paused).toBe(true);
  });

  it('gives the last slot to exactly one of several concurrent requests', async () => {
    const email = uniqueEmail('slots');
    const browser = await signedInBrowser(server, email);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    await createEs(browser);
    await createEs(browser);
    const body = JSON.stringify({
      name: 'race',
      dialect: 'elasticsearch',
      auth_mode: 'api_key',
      config: esConfig(),
    });
    const statuses = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${server.url}/api/v1/connections`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body,
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('the demo connection', () => {
  it('is ready in every new workspace and answers test and introspection', async () => {
    const browser = await signedInBrowser(server);
    const list = await browser.get('/api/v1/connections');
    const demo = list.json.connections.find((c: any) => c.is_demo);
    expect(demo).toMatchObject({ dialect: 'postgres', paused: false });
    const test = await browser.post(`/api/v1/connections/${demo.id}/test`);
    expect(test.json.ok).toBe(true);
    const tables = await browser.get(`/api/v1/schema/${demo.id}/tables`);
    expect(tables.json.tables.map((t: any) => t.name)).toEqual(
      expect.arrayContaining(['shop.customers', 'shop.orders', 'shop.products']),
    );
    const orders = await browser.get(`/api/v1/schema/${demo.id}/tables/orders`);
    expect(orders.json.primary_key.length).toBe(1);
    expect(orders.json.foreign_keys.length).toBeGreaterThan(0);
    const status = await browser.get('/auth/me/onboarding-status');
    expect(status.json.steps.first_connection).toBe(false);
  }, 60_000);
});

describe('outbound address rules', () => {
  it('refuses loopback targets unless the operator allows private networks', async () => {
    const strict = await startTestServer();
    try {
      const browser = await signedInBrowser(strict);
      const created = await browser.post('/api/v1/connections', {
        name: 'local',
        dialect: 'elasticsearch',
        auth_mode: 'api_key',
        config: esConfig(),
      });
      expect(created.status).toBe(201);
      const test = await browser.post(`/api/v1/connections/${created.json.id}/test`);
      expect(test.json.ok).toBe(false);
      expect(`${test.json.symptom} ${test.json.cause}`).toMatch(/not allowed|loopback|private/i);
    } finally {
      await strict.close();
    }
  });
});

describe('stored credentials', () => {
  it('never appear in any response or log line: create, read, list, duplicate, patch, test, introspect, tables', async () => {
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
    expect(JSON.stringify(await server.store.db.select().from(connectionsTable))).not.toContain(canary);
  });

  it('a ciphertext copied to another connection row does not decrypt, and the error says what to do', async () => {
    const browser = await signedInBrowser(server);
    const a = await createEs(browser);
    const b = await createEs(browser, { api_key_secret: 'another-secret' });
    const [rowA] = await server.store.db
      .select()
      .from(connectionsTable)
      .where(eq(connectionsTable.id, a.json.id));
    await server.store.db
      .update(connectionsTable)
      .set({ secrets: rowA!.secrets })
      .where(eq(connectionsTable.id, b.json.id));
    const res = await browser.post(`/api/v1/connections/${b.json.id}/test`);
    expect(res.status).toBe(503);
    expect(res.json.detail).toMatch(/could not be decrypted.*Re-enter it/);
    expect((await browser.post(`/api/v1/connections/${a.json.id}/test`)).json.ok).toBe(true);
  });
});
