import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { closePools, codeOf, problemOf, signedIn } from './harness.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('es-test'), version: '8.15.0', tls: true });
});
afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('schema of a connection', () => {
  it('introspects and serves schemas, tables and a table with dot-notation columns', async () => {
    const { caller } = await signedIn();
    const conn = await caller.connections.create({
      name: 'Cluster',
      dialect: 'elasticsearch',
      auth_mode: 'api_key',
      config: {
        cluster_url: cluster.url,
        api_key_id: 'read-key',
        api_key_secret: 'read-secret',
        verify_tls: true,
        ca_cert_pem: cluster.caPem,
        allowed_indices: ['employees', 'logs-*'],
      },
    });
    const introspected = await caller.schema.introspect({ id: conn.id });
    expect(introspected.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const names = introspected.tables.map((t) => t.name);
    expect(names).toContain('employees');
    const schemas = await caller.schema.schemas({ id: conn.id });
    expect(schemas.schemas.map((s) => s.name)).toEqual(['employees', 'logs-*']);
    const tables = await caller.schema.tables({ connection_id: conn.id });
    expect(tables.tables.length).toBe(names.length);
    const employees = await caller.schema.table({ connection_id: conn.id, table_name: 'employees' });
    expect(employees.columns.length).toBeGreaterThan(5);
    expect(employees.columns.some((c) => c.name.includes('.'))).toBe(true);
    expect(await codeOf(caller.schema.table({ connection_id: conn.id, table_name: 'nope' }))).toBe(
      'NOT_FOUND',
    );

    const status = await caller.schema.metadataStatus({ id: conn.id });
    expect(status).toMatchObject({ stale: true, structure_fingerprint: introspected.fingerprint });

    await caller.schema.putMetadata({
      id: conn.id,
      tables: [
        {
          name: 'employees',
          description: 'One row per employee',
          columns: [{ name: employees.columns[0]!.name, description: 'curated' }],
        },
      ],
    });
    const after = await caller.schema.table({ connection_id: conn.id, table_name: 'employees' });
    expect(after.description).toBe('One row per employee');
    expect(after.columns[0]!.description).toBe('curated');

    const badSelection = await problemOf(
      caller.schema.putSelectedTables({ id: conn.id, tables: ['employees', 'ghost'] }),
    );
    expect(badSelection.status).toBe(422);
    expect(badSelection.body.errors).toEqual([
      { field: 'tables.1', message: 'names an unknown table "ghost"' },
    ]);
    const selected = await caller.schema.putSelectedTables({ id: conn.id, tables: ['employees'] });
    expect(selected.selected_tables).toEqual(['employees']);
    const list = await caller.schema.tables({ connection_id: conn.id });
    expect(list.tables.filter((t) => t.selected).map((t) => t.name)).toEqual(['employees']);

    await caller.schema.putOverrides({
      id: conn.id,
      primary_keys: [{ table: 'employees', columns: ['emp_no'] }],
      relationships: [],
    });
    expect(
      (await caller.schema.table({ connection_id: conn.id, table_name: 'employees' })).primary_key,
    ).toEqual(['emp_no']);
    const selection = await problemOf(
      caller.schema.putSelection({
        id: conn.id,
        tables: [{ name: 'employees', columns: ['emp_no', 'nope'] }],
      }),
    );
    expect(selection.status).toBe(422);
  });
});

describe('data-source failures', () => {
  it('end introspect, schemas and tables with a 502 problem: the connector symptom, cause and fix', async () => {
    const { caller } = await signedIn();
    const port = await freePort();
    const created = await caller.connections.create({
      name: 'Nothing listens',
      dialect: 'postgres',
      auth_mode: 'password',
      config: {
        host: '127.0.0.1',
        port,
        database: 'db',
        username: 'reader',
        password: 'pw',
        ssl_mode: 'disable',
      },
    });
    const id = created.id;
    for (const problem of [
      await problemOf(caller.schema.introspect({ id })),
      await problemOf(caller.schema.schemas({ id })),
      await problemOf(caller.schema.tables({ connection_id: id })),
    ]) {
      expect(problem.status).toBe(502);
      expect(problem.body).toMatchObject({
        code: expect.stringMatching(/^data_source_/),
        symptom: expect.any(String),
        cause: expect.any(String),
        fix: expect.any(String),
      });
      expect(JSON.stringify(problem.body)).not.toContain('pw');
    }
  });
});
