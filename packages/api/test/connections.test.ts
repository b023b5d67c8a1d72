import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { connections as connectionsTable } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { toProblem } from '../src/index.ts';
import {
  callerOf,
  closePools,
  codeOf,
  demoConnectionId,
  harness,
  problemOf,
  signedIn,
  withStatus,
  type Caller,
} from './harness.ts';

const SECRET = 'read-secret';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('es-test'), version: '8.15.0', tls: true });
});
afterAll(async () => {
  await closePools();
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

/** The input of a create, as a client sends it (fields the schema refuses included). */
function esInput(overrides: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): any {
  return {
    name: 'Cluster',
    dialect: 'elasticsearch',
    auth_mode: 'api_key',
    config: esConfig(overrides),
    ...extra,
  };
}

const createEs = (
  caller: Caller,
  overrides: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => caller.connections.create(esInput(overrides, extra));

describe('dialects and auth modes', () => {
  it('lists the available engines with their auth modes and form fields, and planned ones as unavailable', async () => {
    const { caller } = await signedIn();
    const { dialects } = await caller.connections.dialects();
    const byId = Object.fromEntries(dialects.map((d) => [d.id, d])) as Record<string, any>;
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

  it('gives every available dialect its capabilities, and the demo connection where it points', async () => {
    const { caller } = await signedIn();
    const { dialects } = await caller.connections.dialects();
    const available = dialects.filter((d) => d.availability === 'available');
    expect(available.length).toBeGreaterThanOrEqual(2);
    for (const d of available) expect(d.capabilities?.query_language_id).toMatch(/^[a-z]+$/);
    const { connections } = await caller.connections.list({});
    expect(connections.find((c) => c.is_demo)!.target).toMatch(/demo/i);
  });

  it('answers auth modes per dialect, UNPROCESSABLE_CONTENT naming `dialect` when missing or unknown', async () => {
    const { caller } = await signedIn();
    expect((await caller.connections.authModes({ dialect: 'elasticsearch' })).dialect).toBe('elasticsearch');
    const missing = await problemOf(caller.connections.authModes({} as any));
    expect(missing.status).toBe(422);
    expect(missing.body.errors![0]!.field).toBe('dialect');
    const unknown = await problemOf(caller.connections.authModes({ dialect: 'oracle' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors![0]).toMatchObject({
      field: 'dialect',
      message: expect.stringMatching(/not a known dialect/),
    });
  });
});

describe('the connection resource', () => {
  it('creates an Elasticsearch connection over TLS with its CA; the secret never comes back', async () => {
    const { principal } = await signedIn();
    const { result, status } = await withStatus(principal, (c) =>
      createEs(c, {}, { tags: ['prod', 'logs'] }),
    );
    expect(status).toBe(201);
    expect(result).toMatchObject({
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
    expect(JSON.stringify(result)).not.toContain(SECRET);
    const { db } = (await harness()).store;
    const [row] = await db.select().from(connectionsTable).where(eq(connectionsTable.id, result.id));
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.secrets.api_key_secret).toMatch(/^v1:/);
  });

  it('tests the connection: every check passes, and a wrong key reports the 401 symptom with its fix', async () => {
    const { caller } = await signedIn();
    const good = await createEs(caller);
    const result = await caller.connections.test({ id: good.id });
    expect(result.ok).toBe(true);
    expect(result.checks.length).toBeGreaterThanOrEqual(4);
    expect(result.checks.every((c) => c.status === 'passed' || c.status === 'warning')).toBe(true);

    const bad = await createEs(caller, { api_key_secret: 'wrong-secret' });
    const failed = await caller.connections.test({ id: bad.id });
    expect(failed.ok).toBe(false);
    expect(failed.symptom).toBe('401 Unauthorized');
    expect(failed.fix).toMatch(/read.*view_index_metadata/);
    expect(JSON.stringify(failed)).not.toContain('wrong-secret');
  });

  it('names every invalid field: scope missing, bad URL, unknown field, unknown and unavailable dialects', async () => {
    const { caller } = await signedIn();
    const fields = (problem: { body: { errors?: { field: string }[] } }) =>
      (problem.body.errors ?? []).map((e) => e.field);
    const noScope = await problemOf(createEs(caller, { allowed_indices: [], index_pattern: undefined }));
    expect(noScope.status).toBe(422);
    expect(fields(noScope).join(' ')).toMatch(/config\.(allowed_indices|index_pattern)/);
    const badUrl = await problemOf(createEs(caller, { cluster_url: 'not a url' }));
    expect(badUrl.status).toBe(422);
    expect(fields(badUrl)[0]).toBe('config.cluster_url');
    const unknownField = await problemOf(createEs(caller, { sslrootcert: '/etc/passwd' }));
    expect(unknownField.status).toBe(422);
    expect(fields(unknownField)).toContain('config.sslrootcert');
    const unknownDialect = await problemOf(
      caller.connections.create({ name: 'x', dialect: 'oracle', auth_mode: 'password', config: {} } as any),
    );
    expect(unknownDialect.status).toBe(422);
    expect(fields(unknownDialect)[0]).toBe('dialect');
    const unavailable = await problemOf(
      caller.connections.create({ name: 'x', dialect: 'opensearch', auth_mode: 'basic', config: {} } as any),
    );
    expect(unavailable.status).toBe(422);
    expect(unavailable.body.errors![0]!.message).toMatch(/not available/);
    const wrongMode = await problemOf(
      caller.connections.create({
        name: 'x',
        dialect: 'elasticsearch',
        auth_mode: 'password',
        config: esConfig(),
      } as any),
    );
    expect(wrongMode.status).toBe(422);
    expect(fields(wrongMode)[0]).toBe('auth_mode');
    const massAssignment = await problemOf(createEs(caller, {}, { workspace_id: 'wsp_other', paused: true }));
    expect(massAssignment.status).toBe(422);
    expect(fields(massAssignment).sort()).toEqual(['paused', 'workspace_id']);
    expect(
      await codeOf(
        caller.connections.create({
          name: 'x',
          dialect: 'no-such-engine',
          auth_mode: 'password',
          config: {},
          tags: [],
        }),
      ),
    ).toBe('UNPROCESSABLE_CONTENT');
  });

  it('gets, lists with a tag filter, patches (merging config, keeping secrets), duplicates, tags and deletes', async () => {
    const { caller, principal } = await signedIn();
    const created = await createEs(caller, {}, { tags: ['blue'] });
    const id = created.id;
    await createEs(caller, {}, { tags: ['green'] });
    expect((await caller.connections.get({ id })).name).toBe('Cluster');
    const blue = await caller.connections.list({ tag: 'blue' });
    expect(blue.connections.map((c) => c.id)).toEqual([id]);

    const patched = await caller.connections.update({
      id,
      name: 'Renamed',
      config: { allowed_indices: ['employees'] },
    });
    expect(patched).toMatchObject({
      name: 'Renamed',
      config: { allowed_indices: ['employees'], api_key_secret_set: true },
    });
    expect((await caller.connections.test({ id })).ok).toBe(true);

    const toBasic = await caller.connections.update({
      id,
      auth_mode: 'basic',
      config: { username: 'reader', password: 'reader-pass' },
    });
    expect(toBasic.auth_mode).toBe('basic');
    expect(toBasic.config).toMatchObject({ username: 'reader', password_set: true });
    expect(toBasic.config.api_key_id).toBeUndefined();
    expect(toBasic.warnings.join(' ')).toMatch(/development/i);
    expect(JSON.stringify(toBasic)).not.toContain('reader-pass');

    const copy = await withStatus(principal, (c) => c.connections.duplicate({ id }));
    expect(copy.status).toBe(201);
    expect(copy.result.name).toBe('Renamed (copy)');
    expect(copy.result.id).not.toBe(id);
    expect((await caller.connections.test({ id: copy.result.id })).ok).toBe(true);

    const tagged = await caller.connections.tags({ id, tags: ['a', 'b', 'a'] });
    expect(tagged.tags).toEqual(['a', 'b']);

    expect((await caller.connections.delete({ id })).detail).toBe('Connection deleted.');
    expect(await codeOf(caller.connections.get({ id }))).toBe('NOT_FOUND');
  });

  it("another workspace's connection is NOT_FOUND", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    const id = await demoConnectionId(owner.caller);
    expect(await codeOf(stranger.caller.connections.get({ id }))).toBe('NOT_FOUND');
    expect(await codeOf(stranger.caller.connections.paused({ id, paused: true }))).toBe('NOT_FOUND');
  });
});

describe('plan slots', () => {
  it('allows 3 active connections on the free plan; pausing frees a slot and deletes nothing', async () => {
    const { caller } = await signedIn();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createEs(caller)).id);
    const fourth = await problemOf(createEs(caller));
    expect(fourth.status).toBe(429);
    expect(fourth.body.code).toBe('quota_connections_exceeded');
    expect(fourth.body.detail).toMatch(/Pause or delete/);
    const paused = await caller.connections.paused({ id: ids[0]!, paused: true });
    expect(paused.paused).toBe(true);
    await createEs(caller);
    const resume = await problemOf(caller.connections.paused({ id: ids[0]!, paused: false }));
    expect(resume.status).toBe(429);
    expect(resume.body.code).toBe('quota_connections_exceeded');
    expect((await caller.connections.get({ id: ids[0]! })).paused).toBe(true);
  });

  it('gives the last slot to exactly one of several concurrent requests', async () => {
    const { caller } = await signedIn();
    await createEs(caller);
    await createEs(caller);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => caller.connections.create({ ...esInput(), name: 'race' })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(refused).toHaveLength(5);
    for (const error of refused) expect(await codeOf(Promise.reject(error))).toBe('TOO_MANY_REQUESTS');
  });
});

describe('the demo connection', () => {
  it('is ready in every new workspace and answers test and introspection', async () => {
    const { caller } = await signedIn();
    const { connections } = await caller.connections.list({});
    const demo = connections.find((c) => c.is_demo)!;
    expect(demo).toMatchObject({ dialect: 'postgres', paused: false });
    expect((await caller.connections.test({ id: demo.id })).ok).toBe(true);
    const tables = await caller.schema.tables({ connection_id: demo.id });
    expect(tables.tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['shop.customers', 'shop.orders', 'shop.products']),
    );
    const orders = await caller.schema.table({ connection_id: demo.id, table_name: 'orders' });
    expect(orders.primary_key.length).toBe(1);
    expect(orders.foreign_keys.length).toBeGreaterThan(0);
    expect((await caller.auth.onboardingStatus()).steps.first_connection).toBe(false);
  });
});

describe('outbound address rules', () => {
  it('refuses loopback targets unless the operator allows private networks', async () => {
    const { deps } = await harness();
    const strict = { ...deps, dataSources: { ...deps.dataSources, allowPrivateNetworks: false } };
    const { principal } = await signedIn(undefined, { deps: strict });
    const created = await withStatus(
      principal,
      (c) =>
        c.connections.create({
          name: 'local',
          dialect: 'elasticsearch',
          auth_mode: 'api_key',
          config: esConfig(),
        }),
      { deps: strict },
    );
    expect(created.status).toBe(201);
    const caller = await callerOf(principal, { deps: strict });
    const test = await caller.connections.test({ id: created.result.id });
    expect(test.ok).toBe(false);
    expect(`${test.symptom} ${test.cause}`).toMatch(/not allowed|loopback|private/i);
  });
});

describe('stored credentials', () => {
  it('never appear in any answer or log line: create, read, list, duplicate, patch, test, introspect, tables', async () => {
    const canary = 'canary-secret-7f3a9c';
    const { caller } = await signedIn();
    const { logs, store } = await harness();
    const answers: unknown[] = [];
    // What the caller is told, answer or failure (a failure's message and its problem body).
    const told = (promise: Promise<unknown>) =>
      promise.then(
        (answer) => answers.push(answer),
        (error: unknown) =>
          answers.push((error as Error).message, String((error as Error).cause), toProblem(error).body),
      );
    const created = await caller.connections.create({
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
    answers.push(created);
    const id = created.id;
    await told(caller.connections.get({ id }));
    await told(caller.connections.list({}));
    await told(caller.connections.duplicate({ id }));
    await told(caller.connections.update({ id, name: 'Canary 2' }));
    await told(caller.connections.test({ id }));
    await told(caller.schema.introspect({ id }));
    await told(caller.schema.tables({ connection_id: id }));
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(canary);
    expect(logs.join('\n')).not.toContain(canary);
    expect(JSON.stringify(await store.db.select().from(connectionsTable))).not.toContain(canary);
  });

  it('a ciphertext copied to another connection row does not decrypt, and the error says what to do', async () => {
    const { caller } = await signedIn();
    const a = await createEs(caller);
    const b = await createEs(caller, { api_key_secret: 'another-secret' });
    const { db } = (await harness()).store;
    const [rowA] = await db.select().from(connectionsTable).where(eq(connectionsTable.id, a.id));
    await db.update(connectionsTable).set({ secrets: rowA!.secrets }).where(eq(connectionsTable.id, b.id));
    const problem = await problemOf(caller.connections.test({ id: b.id }));
    expect(problem.status).toBe(503);
    expect(problem.body.detail).toMatch(/could not be decrypted.*Re-enter it/);
    expect((await caller.connections.test({ id: a.id })).ok).toBe(true);
  });
});

describe('stored credentials never follow a re-pointed connection', () => {
  const pg = (port: number, extra: Record<string, unknown> = {}) => ({
    host: '127.0.0.1',
    port,
    database: 'db',
    username: 'reader',
    ssl_mode: 'disable',
    ...extra,
  });

  it('refuses a change of host, port, database or TLS mode that does not send the password again', async () => {
    const { caller } = await signedIn();
    const created = await caller.connections.create({
      name: 'PG',
      dialect: 'postgres',
      auth_mode: 'password',
      config: pg(5432, { password: 'first-secret' }),
    });
    const id = created.id;
    for (const change of [
      { port: 6543 },
      { host: '127.0.0.2' },
      { database: 'other' },
      { ssl_mode: 'require' },
    ]) {
      const res = await problemOf(caller.connections.update({ id, config: change }));
      expect(res.status, JSON.stringify(change)).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'config.password', message: expect.stringMatching(/must be sent again/) },
      ]);
    }
    const unchanged = await caller.connections.get({ id });
    expect(unchanged.config).toMatchObject({ port: 5432, host: '127.0.0.1', password_set: true });

    const renamed = await caller.connections.update({
      id,
      name: 'Renamed',
      config: { schemas: ['public', 'sales'] },
    });
    expect(renamed.config.password_set).toBe(true);

    const moved = await caller.connections.update({ id, config: { port: 6543, password: 'second-secret' } });
    expect(moved.config).toMatchObject({ port: 6543, password_set: true });
  });

  it('clears an Elasticsearch API key when the cluster URL changes (https to http included)', async () => {
    const { caller } = await signedIn();
    const created = await caller.connections.create({
      name: 'ES',
      dialect: 'elasticsearch',
      auth_mode: 'api_key',
      config: {
        cluster_url: 'https://127.0.0.1:9200',
        api_key_id: 'key-id',
        api_key_secret: 'key-secret',
        verify_tls: true,
        allowed_indices: ['logs-*'],
      },
    });
    const res = await problemOf(
      caller.connections.update({ id: created.id, config: { cluster_url: 'http://127.0.0.1:9200' } }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors![0]).toMatchObject({
      field: 'config.api_key_secret',
      message: expect.stringMatching(/must be sent again/),
    });
  });
});
