/**
 * The MySQL / MariaDB connector against a real server (127.0.0.1:3306 or TEST_MYSQL_URL): a fresh
 * database and fresh users per run, dropped afterwards. Skipped with a warning where no server
 * answers, except in CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import { connectorFor } from '../src/index.ts';
import { ConnectorError } from '../src/errors.ts';
import { openSession, sessionStatements } from '../src/mysql/client.ts';
import { readConfig } from '../src/mysql/config.ts';
import { createMysqlDatabase, isMysqlAvailable, testMysqlAddress } from '../src/testing.ts';
import type { ConnectionTarget, ConnectorContext } from '../src/types.ts';
import { ESCAPE_CORPUS } from './mysql-corpus.ts';

const available = await isMysqlAvailable();
const mysql = connectorFor('mysql')!;
const server = testMysqlAddress();
const PASSWORD = 'S3cret-Canary-mysql';
const ctx: ConnectorContext = {
  allowPrivateNetworks: true,
  allowInsecureTransport: false,
  requestTimeoutMs: 10_000,
};

let db: Awaited<ReturnType<typeof createMysqlDatabase>>;
let reader = '';
let writer = '';
let nogrants = '';
let tableWriter = '';

function target(overrides: Record<string, unknown> = {}, password = PASSWORD): ConnectionTarget {
  return {
    id: 'conn-my',
    dialect: 'mysql',
    authMode: 'password',
    config: {
      host: server.host,
      port: server.port,
      database: db.name,
      username: reader,
      ssl_mode: 'disable',
      ca_cert_pem: null,
      ...overrides,
    },
    secrets: { password },
  };
}

async function canary(): Promise<string> {
  const [rows] = await db.admin.query(
    `SELECT GROUP_CONCAT(id, ':', label ORDER BY id) AS v FROM \`${db.name}\`.items`,
  );
  return String((rows as { v: string }[])[0]?.v);
}

async function thrown(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error('expected a ConnectorError');
}

const spec = (input: QuerySpecInput) => querySpecSchema.parse(input);

describe.skipIf(!available)('mysql connector against a real server', () => {
  beforeAll(async () => {
    db = await createMysqlDatabase('aqs_myconn');
    [reader, writer, nogrants, tableWriter] = ['r', 'w', 'n', 't'].map((k) => `aqs_${k}_${db.suffix}`) as [
      string,
      string,
      string,
      string,
    ];
    await db.admin.query(`
      USE \`${db.name}\`;
      CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(80) NOT NULL, vip TINYINT(1) NOT NULL DEFAULT 0,
        joined_at DATETIME NULL, note TEXT NULL);
      CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, total DECIMAL(12, 2) NOT NULL,
        big DECIMAL(30, 10) NULL, placed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
        FOREIGN KEY (customer_id) REFERENCES customers (id));
      CREATE TABLE items (id INT PRIMARY KEY, label VARCHAR(20) NOT NULL);
      CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
      INSERT INTO customers VALUES (1, 'Ada', 1, '2024-01-01 09:30:00', NULL), (2, 'O''Brien', 0, '2024-02-10 12:00:00', 'a\\\\b'),
        (3, 'back\\\\slash', 0, NULL, 'it''s');
      INSERT INTO orders VALUES (1, 1, 120.50, 12345678901234567890.1234567891, '2024-03-04 05:06:07'),
        (2, 1, 80.25, NULL, '2024-03-11 00:00:00'), (3, 2, 300.00, NULL, '2024-04-01 10:00:00');
      INSERT INTO items VALUES (1, 'one'), (2, 'two');
      CREATE USER '${reader}'@'%' IDENTIFIED BY '${PASSWORD}';
      CREATE USER '${writer}'@'%' IDENTIFIED BY '${PASSWORD}';
      CREATE USER '${nogrants}'@'%' IDENTIFIED BY '${PASSWORD}';
      GRANT SELECT, SHOW VIEW ON \`${db.name}\`.* TO '${reader}'@'%';
      GRANT SELECT, INSERT, UPDATE, DELETE ON \`${db.name}\`.* TO '${writer}'@'%';
      CREATE USER '${tableWriter}'@'%' IDENTIFIED BY '${PASSWORD}';
      GRANT SELECT ON \`${db.name}\`.* TO '${tableWriter}'@'%';
      GRANT UPDATE ON \`${db.name}\`.items TO '${tableWriter}'@'%';
    `);
  }, 60_000);

  afterAll(async () => {
    await db?.drop([reader, writer, nogrants, tableWriter]);
  });

  it('test(): a SELECT-only user passes every check; the server is named', async () => {
    const result = await mysql.test(target(), ctx);
    expect(result.ok).toBe(true);
    expect(Object.fromEntries(result.checks.map((c) => [c.id, c.status]))).toEqual({
      reachability: 'passed',
      tls: 'warning',
      credentials: 'passed',
      database: 'passed',
      privileges: 'passed',
      scope: 'passed',
      least_privilege: 'passed',
    });
    expect(result.server?.version).toMatch(/\d+\.\d+/);
    expect(result.server?.flavor).toMatch(/MariaDB|MySQL/);
  });

  it('test(): a user that can write is warned; failures name the failed check, the cause and the fix', async () => {
    const writes = await mysql.test(target({ username: writer }), ctx);
    expect(writes.ok).toBe(true);
    expect(writes.checks.find((c) => c.id === 'least_privilege')).toMatchObject({ status: 'warning' });
    const oneTable = await mysql.test(target({ username: tableWriter }), ctx);
    expect(oneTable.checks.find((c) => c.id === 'least_privilege')).toMatchObject({
      status: 'warning',
      detail: expect.stringMatching(/UPDATE/),
    });

    const wrong = await mysql.test(target({}, 'wrong-password'), ctx);
    expect(wrong.ok).toBe(false);
    expect(wrong.checks.find((c) => c.status === 'failed')?.id).toBe('credentials');
    expect(wrong.checks.find((c) => c.id === 'tls')?.status).toBe('warning');
    expect(wrong.symptom).toMatch(/Access denied/);
    expect(JSON.stringify(wrong)).not.toContain('wrong-password');

    const missing = await mysql.test(
      target({ database: `${db.name}_missing`, username: 'root' }, server.password),
      ctx,
    );
    expect(missing.checks.find((c) => c.status === 'failed')?.id).toMatch(/database|privileges/);

    const denied = await mysql.test(target({ username: nogrants }), ctx);
    expect(denied.checks.find((c) => c.status === 'failed')?.id).toBe('privileges');
    expect(denied.fix).toMatch(/GRANT SELECT/);

    const blocked = await mysql.test(target(), { ...ctx, allowPrivateNetworks: false });
    expect(blocked.ok).toBe(false);
    expect(blocked.symptom).toBe('Address not allowed');

    const tls = await mysql.test(target({ ssl_mode: 'verify-full' }), ctx);
    expect(tls.ok).toBe(false);
    expect(tls.checks.find((c) => c.status === 'failed')?.id).toBe('tls');
  });

  it('checks the address again at connect time (the socket refuses it even past the pre-check)', async () => {
    const session = openSession(readConfig(target({ host: 'localhost' })), PASSWORD, {
      allowPrivateNetworks: false,
      allowInsecureTransport: false,
      connectTimeoutMs: 3000,
      signal: new AbortController().signal,
    });
    await expect(session).rejects.toMatchObject({ kind: 'blocked_address' });
  });

  it('introspect(): tables and views, columns typed for the planner, primary and foreign keys', async () => {
    const found = await mysql.introspect(target(), ctx);
    expect(found.dialect).toBe('mysql');
    expect(found.tables.map((t) => [t.name, t.kind])).toEqual([
      ['big_orders', 'view'],
      ['customers', 'table'],
      ['items', 'table'],
      ['orders', 'table'],
    ]);
    const orders = found.tables.find((t) => t.name === 'orders')!;
    expect(orders.primary_key).toEqual(['id']);
    expect(orders.foreign_keys).toEqual([
      { columns: ['customer_id'], references: { schema: null, table: 'customers', columns: ['id'] } },
    ]);
    const types = Object.fromEntries(orders.columns.map((c) => [c.name, [c.type, c.native_type]]));
    expect(types.total).toEqual(['decimal', 'decimal(12,2)']);
    expect(types.placed_at).toEqual(['timestamp', 'timestamp']);
    const customers = found.tables.find((t) => t.name === 'customers')!;
    expect(customers.columns.find((c) => c.name === 'vip')?.type).toBe('boolean');
    expect(customers.columns.find((c) => c.name === 'joined_at')?.type).toBe('datetime');
  });

  it('execute(): exact decimals, dates without an invented zone, instants in UTC, NULLs', async () => {
    const result = await mysql.execute(
      target(),
      'SELECT o.id, o.total, o.big, o.placed_at, c.joined_at, c.note FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id',
      ctx,
      { rowCap: 100, timeoutMs: 5000 },
    );
    expect(result.columns.map((c) => c.type)).toEqual([
      'integer',
      'decimal',
      'decimal',
      'timestamp',
      'datetime',
      'text',
    ]);
    expect(result.rows[0]).toEqual([
      1,
      120.5,
      '12345678901234567890.1234567891',
      '2024-03-04T05:06:07Z',
      '2024-01-01T09:30:00',
      null,
    ]);
    expect(result.truncated).toBe(false);
  });

  it('execute(): reads one row past the cap to say the result has more, and stops a set operation at the cap', async () => {
    const capped = await mysql.execute(target(), 'SELECT id FROM orders ORDER BY id', ctx, {
      rowCap: 2,
      timeoutMs: 5000,
    });
    expect(capped.rows).toEqual([[1], [2]]);
    expect(capped.truncated).toBe(true);
    expect(capped.warnings.map((w) => w.code)).toContain('row_cap');
    const union = await mysql.execute(target(), 'SELECT id FROM orders UNION ALL SELECT id FROM items', ctx, {
      rowCap: 3,
      timeoutMs: 5000,
    });
    expect(union.rows).toHaveLength(3);
    expect(union.truncated).toBe(true);
    const own = await mysql.execute(target(), 'SELECT id FROM orders ORDER BY id LIMIT 1', ctx, {
      rowCap: 2,
      timeoutMs: 5000,
    });
    expect(own).toMatchObject({ rows: [[1]], truncated: false });
  });

  it('execute(): a literal means the same to the validator and the server (quotes, and backslashes spelled CHAR(92))', async () => {
    for (const name of ["O'Brien", 'back\\slash']) {
      const text = mysql.compile(
        spec({
          source: 'customers',
          columns: [{ column: 'id' }],
          filter: { op: 'eq', column: { column: 'name' }, value: name },
        }),
      );
      const result = await mysql.execute(target(), text, ctx, { rowCap: 10, timeoutMs: 5000 });
      expect(result.rows, name).toHaveLength(1);
    }
  });

  it('execute(): compiled time buckets start on the unit (weeks on Monday) and relative ranges use the server clock', async () => {
    const text = mysql.compile(
      spec({
        source: 'orders',
        group_by: [{ column: { column: 'placed_at' }, alias: 'week', time_bucket: 'week' }],
        aggregates: [{ fn: 'sum', column: { column: 'total' }, alias: 'revenue' }],
        order_by: [{ ref: 'week', direction: 'asc' }],
      }),
    );
    const weeks = await mysql.execute(target(), text, ctx, { rowCap: 10, timeoutMs: 5000 });
    expect(weeks.rows).toEqual([
      ['2024-03-04T00:00:00', 120.5],
      ['2024-03-11T00:00:00', 80.25],
      ['2024-04-01T00:00:00', 300],
    ]);
    const recent = mysql.compile(
      spec({
        source: 'orders',
        aggregates: [{ fn: 'count', alias: 'n' }],
        filter: {
          op: 'time_range',
          column: { column: 'placed_at' },
          range: { kind: 'relative', count: 1, unit: 'year' },
        },
      }),
    );
    expect((await mysql.execute(target(), recent, ctx, { rowCap: 10, timeoutMs: 5000 })).rows).toEqual([[0]]);
  });

  it('execute(): every time unit and every condition the compiler writes runs on the server', async () => {
    const units = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
    const col = (column: string) => ({ column });
    const conditions = [
      ...units.flatMap((unit) => [
        { op: 'time_range', column: col('placed_at'), range: { kind: 'relative', count: 2, unit } },
        {
          op: 'time_range',
          column: col('placed_at'),
          range: { kind: 'relative', count: 1, unit, calendar: true },
        },
        {
          op: 'time_range',
          column: col('placed_at'),
          range: { kind: 'relative', count: 3, unit, calendar: true },
        },
      ]),
      {
        op: 'time_range',
        column: col('placed_at'),
        range: { kind: 'absolute', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' },
      },
      ...(['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const).map((op) => ({
        op,
        column: col('total'),
        value: 100,
      })),
      { op: 'in', column: col('id'), values: [1, 2] },
      { op: 'not_in', column: col('id'), values: [1] },
      ...(['contains', 'starts_with', 'ends_with'] as const).flatMap((op) => [
        { op, column: col('big'), value: '12' },
        { op, column: col('big'), value: 'a\\b%_!' },
      ]),
      { op: 'is_null', column: col('big') },
      { op: 'not', condition: { op: 'is_not_null', column: col('big') } },
      {
        op: 'or',
        conditions: [
          { op: 'eq', column: col('id'), value: 1 },
          { op: 'eq', column: col('id'), value: 3 },
        ],
      },
    ];
    for (const filter of conditions) {
      const text = mysql.compile(
        spec({ source: 'orders', aggregates: [{ fn: 'count', alias: 'n' }], filter } as QuerySpecInput),
        {
          now: new Date('2024-04-01T12:00:00Z'),
        },
      );
      const result = await mysql.execute(target(), text, ctx, { rowCap: 10, timeoutMs: 5000 });
      expect(result.rows, JSON.stringify(filter)).toHaveLength(1);
    }
    for (const unit of units) {
      const text = mysql.compile(
        spec({
          source: 'orders',
          group_by: [{ column: col('placed_at'), alias: 'at', time_bucket: unit }],
          aggregates: [{ fn: 'count', alias: 'n' }],
        }),
      );
      const result = await mysql.execute(target(), text, ctx, { rowCap: 10, timeoutMs: 5000 });
      expect(result.rows.length, unit).toBeGreaterThan(0);
    }
    const noNow = mysql.compile(
      spec({
        source: 'orders',
        aggregates: [{ fn: 'count', alias: 'n' }],
        filter: {
          op: 'time_range',
          column: col('placed_at'),
          range: { kind: 'relative', count: 2, unit: 'quarter', calendar: true },
        },
      }),
    );
    expect((await mysql.execute(target(), noNow, ctx, { rowCap: 10, timeoutMs: 5000 })).rows).toHaveLength(1);
    const related = mysql.compile(
      spec({
        source: 'customers',
        columns: [col('id')],
        filter: {
          op: 'not_exists',
          table: 'orders',
          on: [{ left: { column: 'id' }, right: { column: 'customer_id' } }],
        },
      }),
    );
    expect((await mysql.execute(target(), related, ctx, { rowCap: 10, timeoutMs: 5000 })).rows).toEqual([
      [3],
    ]);
  });

  it('execute(): the server stops a query past its timeout, and a cancelled query stops running on the server', async () => {
    const slow =
      'SELECT COUNT(*) FROM customers a, customers b, customers c, customers d, orders e, orders f, orders g, orders h, orders i, orders j, orders k, orders l, orders m, orders n, orders p, orders q, orders r, orders s';
    const timeout = await thrown(mysql.execute(target(), slow, ctx, { rowCap: 10, timeoutMs: 300 }));
    expect(timeout.kind).toBe('timeout');

    const controller = new AbortController();
    const running = mysql.execute(
      target(),
      slow,
      { ...ctx, signal: controller.signal },
      { rowCap: 10, timeoutMs: 20_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    controller.abort();
    expect((await thrown(running)).kind).toBe('cancelled');
    let left = -1;
    for (let i = 0; i < 40 && left !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [rows] = await db.admin.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Query'",
        [reader],
      );
      left = Number((rows as { n: number }[])[0]?.n);
    }
    expect(left).toBe(0);
  });

  it('execute(): unknown names and syntax errors come back with their symptom and the query', async () => {
    const unknown = await thrown(
      mysql.execute(target(), 'SELECT nope FROM orders', ctx, { rowCap: 10, timeoutMs: 5000 }),
    );
    expect(unknown.kind).toBe('unknown_column');
    expect(unknown.query).toContain('`nope`');
    const grouping = await thrown(
      mysql.execute(target(), 'SELECT customer_id, total FROM orders GROUP BY customer_id', ctx, {
        rowCap: 10,
        timeoutMs: 5000,
      }),
    );
    expect(grouping.kind).toBe('query_syntax');
  });

  describe('the escape corpus at the server, in the connector session', () => {
    async function runRaw(user: string, text: string): Promise<unknown> {
      const controller = new AbortController();
      const session = await openSession(readConfig(target({ username: user })), PASSWORD, {
        allowPrivateNetworks: true,
        allowInsecureTransport: false,
        connectTimeoutMs: 5000,
        signal: controller.signal,
      });
      try {
        for (const statement of sessionStatements(session.mariadb, 5000)) await session.query(statement);
        return await session.query(text);
      } finally {
        await session.close();
      }
    }

    const refused = ESCAPE_CORPUS.filter((c) => c.server !== 'harmless');
    it.each(refused.map((c) => [c.name, c] as const))('%s fails at the server', async (_name, c) => {
      const before = await canary();
      await expect(runRaw(c.server === 'refuses' ? writer : reader, c.text)).rejects.toThrow();
      expect(await canary()).toBe(before);
    });

    it('reads a backslash in a literal as itself (NO_BACKSLASH_ESCAPES is pinned), in UTC', async () => {
      const result = (await runRaw(reader, "SELECT LENGTH('a\\b') AS n, @@session.time_zone AS tz")) as {
        rows: unknown[][];
      };
      expect(result.rows).toEqual([[3, '+00:00']]);
    });

    it('left the data and the catalog as they were', async () => {
      expect(await canary()).toBe('1:one,2:two');
      const [rows] = await db.admin.query(
        'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [db.name, 'evil'],
      );
      expect(Number((rows as { n: number }[])[0]?.n)).toBe(0);
    });
  });
});
