/**
 * Against a real PostgreSQL (127.0.0.1:5432 or TEST_DATABASE_URL): a fresh database and fresh roles
 * per run, dropped afterwards. Skipped with a warning where no server answers, except in CI.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgresAvailable, testDatabaseUrl } from '@aqs/db/testing';
import { postgresConnector } from '../src/postgres/connector.ts';
import { createClient } from '../src/postgres/client.ts';
import { readConfig } from '../src/postgres/config.ts';
import { runReadOnly } from '../src/postgres/session.ts';
import { ConnectorError } from '../src/errors.ts';
import type { ConnectionTarget, ConnectorContext } from '../src/types.ts';

const available = await isPostgresAvailable();
const suffix = randomBytes(5).toString('hex');
const dbName = `aqs_pgconn_${suffix}`;
const reader = `aqs_reader_${suffix}`;
const writer = `aqs_writer_${suffix}`;
const nogrants = `aqs_nogrants_${suffix}`;
const PASSWORD = `S3cret-${suffix}-Canary`;
const base = new URL(testDatabaseUrl);
const ctx: ConnectorContext = {
  allowPrivateNetworks: true,
  allowInsecureTransport: true,
  requestTimeoutMs: 10_000,
};

function target(overrides: Record<string, unknown> = {}, password = PASSWORD): ConnectionTarget {
  return {
    id: 'conn-1',
    dialect: 'postgres',
    authMode: 'password',
    config: {
      host: base.hostname,
      port: Number(base.port || 5432),
      database: dbName,
      username: reader,
      ssl_mode: 'disable',
      ca_cert_pem: null,
      schemas: ['app'],
      ...overrides,
    },
    secrets: { password },
  };
}

let admin: postgres.Sql;
let adminPid = 0;

async function canary(): Promise<string> {
  const [row] = await admin`select count(*)::int as n, string_agg(v, ',' order by id) as vs from app.canary`;
  return `${row?.n}:${row?.vs}`;
}

describe.skipIf(!available)('postgres connector against a real server', () => {
  beforeAll(async () => {
    const root = postgres(testDatabaseUrl, { max: 1, onnotice: () => undefined });
    await root.unsafe(`create database ${dbName}`);
    for (const role of [reader, writer, nogrants]) await root.unsafe(`create role ${role} login`);
    await root.end();
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${dbName}`;
    admin = postgres(url.toString(), { max: 2, onnotice: () => undefined });
    await admin.unsafe(`
      create schema app;
      create schema secret;
      create table app.canary (id int primary key, v text not null);
      insert into app.canary values (1, 'a'), (2, 'b'), (3, 'c');
      create table app.customers (customer_id int primary key, name text not null, email text, country text);
      comment on column app.customers.email is 'Contact e-mail address';
      create table app.orders (order_id int primary key, customer_id int not null references app.customers(customer_id), amount numeric(10,2), placed_at timestamptz not null default now());
      create table app.order_lines (order_id int references app.orders(order_id), line_no int, sku text, primary key (order_id, line_no));
      insert into app.customers select g, 'c' || g, case when g % 5 = 0 then null else 'c' || g || '@x.test' end, 'DE' from generate_series(1, 200) g;
      insert into app.orders select g, 1 + g % 200, g * 1.5, now() - g * interval '1 hour' from generate_series(1, 1000) g;
      create view app.big_orders as select * from app.orders where amount > 100;
      create materialized view app.daily as select date_trunc('day', placed_at) as day, count(*) as n from app.orders group by 1;
      create sequence app.seq;
      create procedure app.wipe() language sql as $$ delete from app.canary $$;
      create table secret.payroll (name text, salary int);
      insert into secret.payroll values ('ceo', 1000000);
      analyze;
      -- The documented least-privilege role (README): USAGE + SELECT only.
      grant usage on schema app to ${reader};
      grant select on all tables in schema app to ${reader};
      -- A role with write privileges, to show the read-only transaction refuses writes on its own.
      grant usage on schema app to ${writer};
      grant all on all tables in schema app to ${writer};
      grant all on all sequences in schema app to ${writer};
    `);
    adminPid = Number((await admin`select pg_backend_pid() as pid`)[0]?.pid);
  });

  afterAll(async () => {
    await admin?.end({ timeout: 2 });
    const root = postgres(testDatabaseUrl, { max: 1, onnotice: () => undefined });
    await root.unsafe(`drop database if exists ${dbName} with (force)`);
    for (const role of [reader, writer, nogrants]) await root.unsafe(`drop role if exists ${role}`);
    await root.end();
  });

  describe('test()', () => {
    it('passes for the least-privilege role', async () => {
      const r = await postgresConnector.test(target(), ctx);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(r.checks.map((c) => [c.id, c.status])).toEqual([
        ['reachability', 'passed'],
        ['tls', 'warning'],
        ['credentials', 'passed'],
        ['database', 'passed'],
        ['privileges', 'passed'],
        ['scope', 'passed'],
        ['least_privilege', 'passed'],
      ]);
      expect(r.server?.flavor).toBe('PostgreSQL');
      expect(r.server?.version).toMatch(/^\d+/);
      expect(r.symptom).toBeNull();
    });

    it('warns when the role can write', async () => {
      const r = await postgresConnector.test(target({ username: writer }), ctx);
      expect(r.ok).toBe(true);
      expect(r.checks.find((c) => c.id === 'least_privilege')?.status).toBe('warning');
    });

    it('fails on credentials for an unknown role (trust auth cannot test a wrong password)', async () => {
      const r = await postgresConnector.test(target({ username: `nobody_${suffix}` }), ctx);
      expect(r.ok).toBe(false);
      expect(r.checks.find((c) => c.id === 'credentials')?.status).toBe('failed');
      expect(r.symptom).toMatch(/role .* does not exist/);
      expect(r.cause).toMatch(/refused the credentials/);
      expect(r.fix).toMatch(/password/);
      expect(JSON.stringify(r)).not.toContain(PASSWORD);
    });

    it('fails on a missing database', async () => {
      const r = await postgresConnector.test(target({ database: `missing_${suffix}` }), ctx);
      expect(r.checks.find((c) => c.id === 'database')?.status).toBe('failed');
      expect(r.checks.find((c) => c.id === 'credentials')?.status).toBe('passed');
      expect(r.symptom).toMatch(/does not exist/);
      expect(r.fix).toMatch(/database name/);
    });

    it('fails on privileges for a role without grants', async () => {
      const r = await postgresConnector.test(target({ username: nogrants }), ctx);
      expect(r.ok).toBe(false);
      expect(r.checks.find((c) => c.id === 'privileges')?.status).toBe('failed');
      expect(r.symptom).toBe('permission denied for schema app');
      expect(r.fix).toMatch(/GRANT USAGE ON SCHEMA/);
    });

    it('fails on an empty scope', async () => {
      const r = await postgresConnector.test(target({ schemas: ['does_not_exist'] }), ctx);
      expect(r.checks.find((c) => c.id === 'scope')?.status).toBe('failed');
      expect(r.symptom).toBe('Empty schema after introspection');
    });

    it('fails on TLS when TLS is required and the server has none', async () => {
      const [row] = await admin`show ssl`;
      if (row?.ssl === 'on') return; // this check needs a server without TLS
      for (const ssl_mode of ['require', 'verify-full']) {
        const r = await postgresConnector.test(target({ ssl_mode }), ctx);
        expect(r.ok).toBe(false);
        expect(r.checks.find((c) => c.id === 'tls')?.status).toBe('failed');
        expect(r.symptom).toBe('server does not support SSL, but SSL was required');
        expect(r.fix).toMatch(/ssl_mode to disable/);
      }
    });

    it('fails on reachability for a closed port', async () => {
      const r = await postgresConnector.test(target({ port: 1 }), ctx);
      expect(r.checks.find((c) => c.id === 'reachability')?.status).toBe('failed');
      expect(r.symptom).toMatch(/could not connect/);
    });
  });

  describe('SSRF', () => {
    const closed: ConnectorContext = {
      allowPrivateNetworks: false,
      allowInsecureTransport: true,
      requestTimeoutMs: 5000,
    };
    it('refuses 127.0.0.1 and localhost when private networks are not allowed', async () => {
      for (const host of ['127.0.0.1', 'localhost']) {
        const r = await postgresConnector.test(target({ host }), closed);
        expect(r.ok).toBe(false);
        expect(r.symptom).toBe('Address not allowed');
        expect(r.checks[0]).toMatchObject({ id: 'reachability', status: 'failed' });
        await expect(
          postgresConnector.execute(target({ host }), 'SELECT 1', closed, { rowCap: 10, timeoutMs: 1000 }),
        ).rejects.toMatchObject({ kind: 'blocked_address' });
        await expect(postgresConnector.introspect(target({ host }), closed)).rejects.toMatchObject({
          kind: 'blocked_address',
        });
      }
    });
    it('checks the address again at connect time (the socket refuses it even past the pre-check)', async () => {
      const state = { serverRefusedTls: false };
      const sql = createClient(readConfig(target({ host: 'localhost' })), PASSWORD, {
        allowPrivateNetworks: false,
        connectTimeoutMs: 3000,
        state,
      });
      await expect(sql`select 1`).rejects.toMatchObject({ kind: 'blocked_address' });
      await sql.end();
    });
  });

  describe('introspect()', () => {
    it('lists tables, views and materialized views with columns, keys, comments and row estimates', async () => {
      const i = await postgresConnector.introspect(target(), ctx);
      expect(i.dialect).toBe('postgres');
      expect(i.schemas).toEqual([{ name: 'app', table_count: 6 }]);
      const byName = Object.fromEntries(i.tables.map((t) => [t.name, t]));
      expect(Object.keys(byName).sort()).toEqual([
        'big_orders',
        'canary',
        'customers',
        'daily',
        'order_lines',
        'orders',
      ]);
      expect(i.tables.every((t) => t.schema === 'app')).toBe(true);
      expect(byName.big_orders?.kind).toBe('view');
      expect(byName.daily?.kind).toBe('materialized_view');
      expect(byName.orders?.primary_key).toEqual(['order_id']);
      expect(byName.order_lines?.primary_key).toEqual(['order_id', 'line_no']);
      expect(byName.orders?.foreign_keys).toEqual([
        {
          columns: ['customer_id'],
          references: { schema: 'app', table: 'customers', columns: ['customer_id'] },
        },
      ]);
      expect(byName.orders?.row_estimate).toBe(1000);
      expect(byName.big_orders?.row_estimate).toBeNull();
      const email = byName.customers?.columns.find((c) => c.name === 'email');
      expect(email).toMatchObject({
        type: 'text',
        native_type: 'text',
        nullable: true,
        description: 'Contact e-mail address',
      });
      expect(byName.orders?.columns.find((c) => c.name === 'amount')).toMatchObject({
        type: 'numeric(10,2)',
        native_type: 'numeric',
        nullable: true,
      });
      expect(byName.orders?.columns.find((c) => c.name === 'placed_at')).toMatchObject({
        type: 'timestamp with time zone',
        native_type: 'timestamptz',
        nullable: false,
      });
      expect(i.tables.some((t) => t.schema === 'secret' || t.schema === 'pg_catalog')).toBe(false);
      expect(i.server_version).toMatch(/^\d+/);
    });
  });

  describe('execute()', () => {
    it('returns typed, JSON-safe rows and applies the row cap even after a trailing -- comment', async () => {
      const r = await postgresConnector.execute(
        target(),
        'SELECT order_id, amount, placed_at, customer_id::bigint AS c FROM orders ORDER BY order_id -- LIMIT 100000',
        ctx,
        { rowCap: 7, timeoutMs: 5000 },
      );
      expect(r.rows).toHaveLength(7);
      expect(r.truncated).toBe(true);
      expect(r.warnings.map((w) => w.code)).toContain('row_cap');
      expect(r.columns).toEqual([
        { name: 'order_id', type: 'integer' },
        { name: 'amount', type: 'numeric' },
        { name: 'placed_at', type: 'timestamp with time zone' },
        { name: 'c', type: 'bigint' },
      ]);
      expect(r.rows[0]?.[0]).toBe(1);
      expect(r.rows[0]?.[1]).toBe(1.5);
      expect(String(r.rows[0]?.[2])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      expect(r.rows[0]?.[3]).toBe(2);
    });

    it('buckets and calendar periods in UTC, whatever time zone the role or database is set to', async () => {
      await admin.unsafe(`alter role ${reader} set timezone = 'Asia/Tokyo'`);
      try {
        const r = await postgresConnector.execute(
          target(),
          "SELECT date_trunc('day', timestamptz '2024-01-01 20:00:00+00') AS day",
          ctx,
          { rowCap: 5, timeoutMs: 5000 },
        );
        expect(r.rows).toEqual([['2024-01-01T00:00:00.000Z']]);
      } finally {
        await admin.unsafe(`alter role ${reader} reset timezone`);
      }
    });

    it('is not truncated when the result fits, and clamps a larger LIMIT', async () => {
      const r = await postgresConnector.execute(target(), 'SELECT * FROM app.canary LIMIT 100000', ctx, {
        rowCap: 3,
        timeoutMs: 5000,
      });
      expect(r.rows).toHaveLength(3);
      expect(r.truncated).toBe(false);
      expect(r.warnings.map((w) => w.code)).toEqual(['row_cap']);
    });

    it('returns arrays as JSON arrays with typed elements (parsed by the connector, no type query at login)', async () => {
      const r = await postgresConnector.execute(
        target(),
        "SELECT ARRAY[1, 2] AS ints, ARRAY['x', NULL, 'y z'] AS texts, '{{1,2},{3,4}}'::int[] AS nested, ARRAY[true, false] AS flags, ARRAY[9007199254740993]::int8[] AS big, ARRAY[date '2024-01-02'] AS dates",
        ctx,
        { rowCap: 5, timeoutMs: 5000 },
      );
      expect(r.rows[0]).toEqual([
        [1, 2],
        ['x', null, 'y z'],
        [
          [1, 2],
          [3, 4],
        ],
        [true, false],
        ['9007199254740993'],
        ['2024-01-02'],
      ]);
      expect(r.columns.map((c) => c.type)).toEqual([
        'integer[]',
        'text[]',
        'integer[]',
        'boolean[]',
        'bigint[]',
        'date[]',
      ]);
    });

    it('maps unknown columns to a recoverable error with the query', async () => {
      const e = await postgresConnector
        .execute(target(), 'SELECT nme FROM app.customers', ctx, { rowCap: 5, timeoutMs: 5000 })
        .catch((x: unknown) => x);
      expect(e).toMatchObject({ kind: 'unknown_column', recoverable: true });
      expect((e as ConnectorError).query).toContain('SELECT nme FROM app.customers');
    });

    it('resolves unqualified names only in the scoped schemas (secret.payroll is not found)', async () => {
      await expect(
        postgresConnector.execute(target(), 'SELECT * FROM payroll', ctx, { rowCap: 5, timeoutMs: 5000 }),
      ).rejects.toMatchObject({ kind: 'unknown_column' });
    });

    it('stops a long statement at the statement timeout', async () => {
      const start = Date.now();
      const e = await postgresConnector
        .execute(target(), 'SELECT count(*) FROM generate_series(1, 3000000000) AS g', ctx, {
          rowCap: 5,
          timeoutMs: 300,
        })
        .catch((x: unknown) => x);
      expect(e).toMatchObject({ kind: 'timeout' });
      expect((e as ConnectorError).symptom).toMatch(/statement timeout/);
      expect(Date.now() - start).toBeLessThan(5000);
    });

    it('cancellation stops the statement on the server (gone from pg_stat_activity)', async () => {
      const marker = `cancel_probe_${suffix}`;
      const controller = new AbortController();
      const running = postgresConnector
        .execute(
          target(),
          `SELECT count(*) AS ${marker} FROM generate_series(1, 3000000000) AS g`,
          { ...ctx, signal: controller.signal },
          { rowCap: 5, timeoutMs: 60_000 },
        )
        .catch((x: unknown) => x);
      const active = async (runningForMs = 0) =>
        Number(
          (
            await admin`select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid()
                        and query like ${'%' + marker + '%'} and now() - query_start >= ${`${runningForMs} milliseconds`}::interval`
          )[0]?.n,
        );
      const deadline = Date.now() + 10_000;
      while ((await active(200)) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await active()).toBe(1);
      controller.abort();
      const e = await running;
      expect(e).toMatchObject({ kind: 'cancelled' });
      const gone = Date.now() + 3000;
      while ((await active()) > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
      expect(await active()).toBe(0);
    });

    it('never puts the password in an error message', async () => {
      // Settled together: each rejection is handled as soon as it happens.
      const failures = await Promise.allSettled([
        postgresConnector.execute(target({ database: `missing_${suffix}` }), 'SELECT 1', ctx, {
          rowCap: 5,
          timeoutMs: 2000,
        }),
        postgresConnector.execute(target({ username: `nobody_${suffix}` }), 'SELECT 1', ctx, {
          rowCap: 5,
          timeoutMs: 2000,
        }),
        postgresConnector.execute(target({ port: 1 }), 'SELECT 1', ctx, { rowCap: 5, timeoutMs: 2000 }),
        postgresConnector.execute(target(), `SELECT '${PASSWORD}' FROM nowhere`, ctx, {
          rowCap: 5,
          timeoutMs: 2000,
        }),
        postgresConnector.introspect(target({ ssl_mode: 'verify-full' }), ctx),
      ]);
      for (const outcome of failures) {
        expect(outcome.status).toBe('rejected');
        const e = (outcome as PromiseRejectedResult).reason as ConnectorError;
        expect(e).toBeInstanceOf(ConnectorError);
        expect(e.message).not.toContain(PASSWORD);
        expect(e.symptom + e.cause_ + e.fix).not.toContain(PASSWORD);
      }
      const r = await postgresConnector.test(target({ database: `missing_${suffix}` }), ctx);
      expect(JSON.stringify(r)).not.toContain(PASSWORD);
    });
  });

  describe('SECURITY.md read-only corpus: the validator rejects, and PostgreSQL refuses or does nothing', () => {
    type Case = {
      name: string;
      sql: string | (() => string);
      codes: string[] | 'noop';
      as?: 'reader' | 'writer';
    };
    const corpus: Case[] = [
      { name: 'stacked query', sql: 'SELECT 1; DELETE FROM app.canary', codes: ['42601'] },
      {
        name: 'stacked without spaces',
        sql: 'SELECT * FROM app.canary;DELETE FROM app.canary',
        codes: ['42601'],
      },
      {
        name: 'stacked after a line comment',
        sql: 'SELECT 1 --\n; DELETE FROM app.canary',
        codes: ['42601'],
      },
      {
        name: 'stacked COMMIT then DELETE',
        sql: 'COMMIT; DELETE FROM app.canary',
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'data-modifying CTE',
        sql: 'WITH d AS (DELETE FROM app.canary RETURNING *) SELECT * FROM d',
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'UPDATE in a CTE next to a harmless one',
        sql: "WITH x AS (SELECT 1), u AS (UPDATE app.canary SET v = 'x' RETURNING 1) SELECT * FROM x",
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'INSERT in a CTE inside a subquery',
        sql: "SELECT * FROM (WITH i AS (INSERT INTO app.canary VALUES (99, 'x') RETURNING id) SELECT * FROM i) s",
        codes: ['0A000', '25006'],
        as: 'writer',
      },
      {
        name: 'SELECT INTO',
        sql: 'SELECT * INTO app.stolen FROM app.canary',
        codes: ['25006'],
        as: 'writer',
      },
      { name: 'plain DELETE', sql: 'DELETE FROM app.canary', codes: ['25006'], as: 'writer' },
      { name: 'UPDATE', sql: "UPDATE app.canary SET v = 'pwned'", codes: ['25006'], as: 'writer' },
      { name: 'TRUNCATE', sql: 'TRUNCATE app.canary', codes: ['25006'], as: 'writer' },
      { name: 'CREATE TABLE', sql: 'CREATE TABLE app.x (i int)', codes: ['25006'], as: 'writer' },
      { name: 'COPY to a server file', sql: "COPY app.canary TO '/tmp/aqs_copy_out.txt'", codes: ['42501'] },
      {
        name: 'COPY from a program',
        sql: "COPY app.canary FROM PROGRAM 'true'",
        codes: ['42501', '25006'],
        as: 'writer',
      },
      {
        name: 'COPY a query to a program',
        sql: "COPY (SELECT 1) TO PROGRAM 'touch /tmp/aqs_pwned'",
        codes: ['42501'],
      },
      { name: 'DO block', sql: 'DO $$ BEGIN DELETE FROM app.canary; END $$', codes: ['25006'], as: 'writer' },
      { name: 'CALL a procedure that deletes', sql: 'CALL app.wipe()', codes: ['25006'], as: 'writer' },
      {
        name: 'SET transaction_read_only = off',
        sql: 'SET transaction_read_only = off',
        codes: ['25001'],
        as: 'writer',
      },
      {
        name: 'SET default_transaction_read_only = off',
        sql: 'SET default_transaction_read_only = off',
        codes: 'noop',
        as: 'writer',
      },
      {
        name: 'SET default_transaction_read_only then DELETE',
        sql: 'SET default_transaction_read_only = off; DELETE FROM app.canary',
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'set_config on the read-only default',
        sql: "SELECT set_config('default_transaction_read_only', 'off', false)",
        codes: 'noop',
        as: 'writer',
      },
      {
        name: 'EXPLAIN ANALYZE DELETE',
        sql: 'EXPLAIN ANALYZE DELETE FROM app.canary',
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'SELECT FOR UPDATE',
        sql: 'SELECT * FROM app.canary FOR UPDATE',
        codes: ['25006'],
        as: 'writer',
      },
      { name: 'SELECT FOR SHARE', sql: 'SELECT * FROM app.canary FOR SHARE', codes: ['25006'], as: 'writer' },
      {
        name: 'LOCK TABLE (reader lacks the privilege)',
        sql: 'LOCK TABLE app.canary IN ACCESS EXCLUSIVE MODE',
        codes: ['42501'],
      },
      // PostgreSQL allows LOCK in a read-only transaction: the lock ends with our ROLLBACK (bounded by statement_timeout).
      {
        name: 'LOCK TABLE (writer: released at rollback)',
        sql: 'LOCK TABLE app.canary IN ACCESS EXCLUSIVE MODE',
        codes: 'noop',
        as: 'writer',
      },
      { name: 'LISTEN', sql: 'LISTEN aqs_channel', codes: 'noop' },
      // Notifications are delivered at commit only; the path always rolls back, so nothing is sent.
      { name: 'NOTIFY (never delivered: rolled back)', sql: "NOTIFY aqs_channel, 'x'", codes: 'noop' },
      {
        name: 'pg_notify() (never delivered: rolled back)',
        sql: "SELECT pg_notify('aqs_channel', 'x')",
        codes: 'noop',
      },
      { name: 'pg_sleep() (stopped by statement_timeout)', sql: 'SELECT pg_sleep(10)', codes: ['57014'] },
      {
        name: 'pg_terminate_backend() of another role',
        sql: () => `SELECT pg_terminate_backend(${adminPid})`,
        codes: ['42501'],
      },
      { name: 'pg_read_file()', sql: "SELECT pg_read_file('/etc/passwd')", codes: ['42501'] },
      { name: 'lo_import()', sql: "SELECT lo_import('/etc/passwd')", codes: ['42501', '25006'] },
      {
        name: 'dblink()',
        sql: "SELECT * FROM dblink('dbname=postgres', 'delete from app.canary') AS t(x int)",
        codes: ['42883'],
      },
      {
        name: 'query_to_xml() running DML',
        sql: "SELECT query_to_xml('DELETE FROM app.canary RETURNING 1', true, false, '')",
        codes: ['0A000', '25006'],
        as: 'writer',
      },
      { name: 'nextval()', sql: "SELECT nextval('app.seq')", codes: ['25006'], as: 'writer' },
      { name: 'DELETE/**/FROM', sql: 'DELETE/**/FROM app.canary', codes: ['25006'], as: 'writer' },
      {
        name: 'DML behind a comment that looks like SELECT',
        sql: '/* SELECT */ DELETE FROM app.canary',
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'trailing comment after DML',
        sql: 'DELETE FROM app.canary -- SELECT 1',
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'nested comment hiding a second statement',
        sql: 'SELECT 1 /* outer /* inner */ still comment */; DELETE FROM app.canary',
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'dollar-quoting desync via identifiers',
        sql: 'SELECT 1 AS "$$"; DELETE FROM app.canary; SELECT 1 AS "$$"',
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'dollar-quoting desync via strings',
        sql: "SELECT '$$'; DELETE FROM app.canary; SELECT '$$'",
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'dollar-quoted tag then TRUNCATE',
        sql: 'SELECT $a$x$a$; TRUNCATE app.canary',
        codes: ['42601'],
        as: 'writer',
      },
      {
        name: 'U& identifiers in DML',
        sql: 'DELETE FROM U&"app".U&"c\\0061nary"',
        codes: ['25006'],
        as: 'writer',
      },
      {
        name: 'U& identifier decoding to pg_catalog',
        sql: 'SELECT rolpassword FROM U&"pg\\005fcatalog".pg_authid',
        codes: ['42501'],
      },
      {
        name: 'U& identifier decoding to pg_authid',
        sql: 'SELECT * FROM U&"\\0070g_authid"',
        codes: ['42501'],
      },
      {
        name: 'U& identifier decoding to an out-of-scope schema',
        sql: 'SELECT * FROM U&"secr\\0065t".payroll',
        codes: ['42501'],
      },
      {
        name: 'catalog table pg_authid',
        sql: 'SELECT rolname, rolpassword FROM pg_authid',
        codes: ['42501'],
      },
      {
        name: 'upper-case catalog name, case-folded',
        sql: 'SELECT * FROM PG_CATALOG.PG_AUTHID',
        codes: ['42501'],
      },
      { name: 'pg_shadow', sql: 'SELECT * FROM pg_catalog.pg_shadow', codes: ['42501'] },
      { name: 'pg_file_settings', sql: 'SELECT * FROM pg_file_settings', codes: ['42501'] },
      { name: 'out-of-scope schema', sql: 'SELECT * FROM secret.payroll', codes: ['42501'] },
      { name: 'out-of-scope schema, upper case', sql: 'SELECT * FROM SECRET.PAYROLL', codes: ['42501'] },
      {
        name: 'quoted upper-case schema is another schema',
        sql: 'SELECT * FROM "SECRET".payroll',
        codes: ['3F000', '42P01'],
      },
    ];

    const clients: Record<string, ReturnType<typeof createClient>> = {};
    const notifications: string[] = [];
    beforeAll(async () => {
      await admin.listen('aqs_channel', (payload) => notifications.push(payload));
      for (const [key, role] of [
        ['reader', reader],
        ['writer', writer],
      ] as const) {
        clients[key] = createClient(readConfig(target({ username: role })), PASSWORD, {
          allowPrivateNetworks: true,
          connectTimeoutMs: 5000,
          state: { serverRefusedTls: false },
        });
      }
    });
    afterAll(async () => {
      for (const c of Object.values(clients)) await c.end({ timeout: 1 });
    });

    for (const c of corpus) {
      it(c.name, async () => {
        const text = typeof c.sql === 'function' ? c.sql() : c.sql;
        // 1. The validator rejects it.
        let rejected: unknown;
        try {
          await postgresConnector.validateQuery(target(), text, { rowCap: 100 });
        } catch (error) {
          rejected = error;
        }
        expect(rejected, 'validator accepted it').toBeInstanceOf(ConnectorError);
        expect(['query_rejected', 'out_of_scope']).toContain((rejected as ConnectorError).kind);

        // 2. Sent raw through the execution path (validator bypassed), PostgreSQL refuses it or nothing changes.
        const before = await canary();
        const sql = clients[c.as ?? 'reader'];
        if (!sql) throw new Error('client missing');
        const outcome = await runReadOnly({ kind: 'postgres', sql }, text, {
          timeoutMs: 500,
          schemas: ['app'],
        }).then(
          () => 'ok',
          (error: unknown) => String((error as { code?: string }).code ?? error),
        );
        if (c.codes === 'noop') expect(outcome).toBe('ok');
        else expect(c.codes, `server answered ${outcome}`).toContain(outcome);
        expect(await canary()).toBe(before);
        expect(before).toBe('3:a,b,c');
      });
    }

    it('a fresh transaction after the corpus is still read-only and the canary intact', async () => {
      const sql = clients.writer;
      if (!sql) throw new Error('client missing');
      await expect(
        runReadOnly({ kind: 'postgres', sql }, 'DELETE FROM app.canary', {
          timeoutMs: 500,
          schemas: ['app'],
        }),
      ).rejects.toMatchObject({ code: '25006' });
      expect(await canary()).toBe('3:a,b,c');
      expect(
        (
          await admin`select count(*)::int as n from pg_catalog.pg_tables where tablename in ('stolen', 'x')`
        )[0]?.n,
      ).toBe(0);
      expect(notifications).toEqual([]);
    });

    it('catalog reads granted to PUBLIC by PostgreSQL are refused by the validator (the database would answer them)', async () => {
      for (const text of [
        'SELECT relname FROM pg_catalog.pg_class',
        'SELECT * FROM information_schema.tables',
        'SELECT query FROM pg_stat_activity',
      ]) {
        await expect(postgresConnector.validateQuery(target(), text, { rowCap: 10 })).rejects.toThrow(
          ConnectorError,
        );
        await expect(
          postgresConnector.execute(target(), text, ctx, { rowCap: 10, timeoutMs: 1000 }),
        ).rejects.toMatchObject({ kind: 'out_of_scope' });
      }
    });
  });
});
