import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONNECTION, openDemoDatabase, type DemoDatabase } from '../src/demo/database.ts';
import { embeddedStartParams } from '@aqs/db';
import { generateDemoRows } from '../src/demo/seed.ts';
import { postgresConnector } from '../src/postgres/connector.ts';
import { runReadOnly } from '../src/postgres/session.ts';
import { ConnectorError } from '../src/errors.ts';
import type { ConnectionTarget, ConnectorContext, EmbeddedDatabase } from '../src/types.ts';

const demoTarget: ConnectionTarget = {
  id: 'demo',
  dialect: DEMO_CONNECTION.dialect,
  authMode: DEMO_CONNECTION.authMode,
  config: { ...DEMO_CONNECTION.config, schemas: [...DEMO_CONNECTION.config.schemas] },
  secrets: {},
};

const CHECKSUM_SQL = `
SELECT (SELECT count(*) FROM shop.customers)::int AS customers, (SELECT count(*) FROM shop.products)::int AS products,
       (SELECT count(*) FROM shop.orders)::int AS orders, (SELECT count(*) FROM shop.order_items)::int AS order_items,
       (SELECT count(*) FROM shop.payments)::int AS payments, (SELECT count(*) FROM shop.reviews)::int AS reviews,
       (SELECT md5(string_agg(o::text, '|' ORDER BY order_id)) FROM shop.orders o) AS orders_md5,
       (SELECT md5(string_agg(i::text, '|' ORDER BY order_id, line_no)) FROM shop.order_items i) AS items_md5,
       (SELECT md5(string_agg(c::text, '|' ORDER BY customer_id)) FROM shop.customers c) AS customers_md5`;

async function checksum(db: EmbeddedDatabase): Promise<Record<string, unknown>> {
  return (await db.query(CHECKSUM_SQL)).rows[0] ?? {};
}

describe('demo data generator', () => {
  it('is deterministic (same rows twice) and realistic in shape', () => {
    const a = generateDemoRows();
    const b = generateDemoRows();
    const hash = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');
    expect(hash(a)).toBe(hash(b));
    expect(a.customers.length).toBe(1200);
    expect(a.orders.length).toBe(4000);
    const total = Object.values(a).reduce((n, rows) => n + rows.length, 0);
    expect(total).toBeGreaterThan(10_000);
    const statuses = new Set(a.orders.map((o) => o[3]));
    expect([...statuses].sort()).toEqual(['cancelled', 'delivered', 'paid', 'placed', 'returned', 'shipped']);
    const dates = a.orders.map((o) => String(o[2])).sort();
    expect(dates[0]?.slice(0, 7)).toBe('2022-07');
    expect(dates.at(-1)?.slice(0, 4)).toBe('2026');
    expect(a.customers.some((c) => c[2] === null)).toBe(true);
    expect(a.customers.some((c) => c[4] === null)).toBe(true);
    expect(a.orders.some((o) => o[6] === null) && a.orders.some((o) => o[6] !== null)).toBe(true);
    expect(hash(generateDemoRows(1))).not.toBe(hash(a));
  });
});

describe('embedded demo database', () => {
  let dir: string;
  let persisted: DemoDatabase;
  let firstOpenMs = 0;
  let firstSums: Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aqs-demo-'));
    const start = performance.now();
    persisted = await openDemoDatabase({ dataDir: join(dir, 'nested', 'demo') });
    firstOpenMs = performance.now() - start;
    firstSums = await checksum(persisted);
  });

  afterAll(async () => {
    await persisted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts with the start parameters it is given (the server's small shared buffers), PGlite's own otherwise", async () => {
    const small = await openDemoDatabase({ startParams: embeddedStartParams() });
    try {
      const [row] = (await small.query<{ s: string }>("select current_setting('shared_buffers') as s")).rows;
      expect(row?.s).toBe('16MB');
    } finally {
      await small.close();
    }
    const [own] = (await persisted.query<{ s: string }>("select current_setting('shared_buffers') as s"))
      .rows;
    expect(own?.s).toBe('128MB');
  });

  it('creates the parent directory and seeds once', async () => {
    expect(persisted.seeded).toBe(true);
    expect(existsSync(join(dir, 'nested', 'demo'))).toBe(true);
    expect(firstSums).toMatchObject({ customers: 1200, orders: 4000 });
    console.log(`demo: fresh open + seed ${firstOpenMs.toFixed(0)} ms`);
  });

  it('reopens from its data directory quickly with the same data, and an in-memory copy is identical', async () => {
    await persisted.close();
    const start = performance.now();
    persisted = await openDemoDatabase({ dataDir: join(dir, 'nested', 'demo') });
    const reopenMs = performance.now() - start;
    console.log(`demo: reopen existing dir ${reopenMs.toFixed(0)} ms`);
    expect(persisted.seeded).toBe(false);
    expect(await checksum(persisted)).toEqual(firstSums);
    expect(reopenMs).toBeLessThan(firstOpenMs);
    const memory = await openDemoDatabase({});
    try {
      expect(memory.seeded).toBe(true);
      expect(await checksum(memory)).toEqual(firstSums);
    } finally {
      await memory.close();
    }
  });

  describe('through the postgres connector (embedded auth mode)', () => {
    const ctx = (): ConnectorContext => ({
      allowPrivateNetworks: false,
      allowInsecureTransport: true,
      requestTimeoutMs: 10_000,
      demoDatabase: persisted,
    });

    it('test() passes without network or credential', async () => {
      const r = await postgresConnector.test(demoTarget, ctx());
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(r.server?.flavor).toMatch(/PGlite/);
      expect(r.checks.find((c) => c.id === 'scope')?.status).toBe('passed');
    });

    it('introspect() shows tables, the view, keys, relationships, comments and row estimates', async () => {
      const i = await postgresConnector.introspect(demoTarget, ctx());
      expect(i.schemas).toEqual([{ name: 'shop', table_count: 7 }]);
      const t = Object.fromEntries(i.tables.map((x) => [x.name, x]));
      expect(Object.keys(t).sort()).toEqual([
        'customers',
        'order_items',
        'order_totals',
        'orders',
        'payments',
        'products',
        'reviews',
      ]);
      expect(t.order_totals?.kind).toBe('view');
      expect(t.order_items?.primary_key).toEqual(['order_id', 'line_no']);
      expect(t.order_items?.foreign_keys).toEqual(
        expect.arrayContaining([
          { columns: ['order_id'], references: { schema: 'shop', table: 'orders', columns: ['order_id'] } },
          {
            columns: ['product_id'],
            references: { schema: 'shop', table: 'products', columns: ['product_id'] },
          },
        ]),
      );
      expect(t.orders?.foreign_keys).toEqual([
        {
          columns: ['customer_id'],
          references: { schema: 'shop', table: 'customers', columns: ['customer_id'] },
        },
      ]);
      expect(t.orders?.row_estimate).toBe(4000);
      expect(t.orders?.columns.find((c) => c.name === 'status')?.description).toMatch(
        /placed, paid, shipped/,
      );
      expect(t.customers?.columns.find((c) => c.name === 'email')?.nullable).toBe(true);
    });

    it('execute() answers a newcomer question with typed, capped rows', async () => {
      const r = await postgresConnector.execute(
        demoTarget,
        `SELECT date_trunc('year', ordered_at)::date AS year, count(*) AS orders, sum(net_amount) AS revenue
           FROM order_totals WHERE status NOT IN ('cancelled', 'returned') GROUP BY 1 ORDER BY 1 -- yearly revenue`,
        ctx(),
        { rowCap: 3, timeoutMs: 5000 },
      );
      expect(r.columns).toEqual([
        { name: 'year', type: 'date' },
        { name: 'orders', type: 'bigint' },
        { name: 'revenue', type: 'numeric' },
      ]);
      expect(r.rows).toHaveLength(3);
      expect(r.truncated).toBe(true);
      expect(r.rows[0]?.[0]).toBe('2022-01-01');
      expect(typeof r.rows[0]?.[1]).toBe('number');
      expect(typeof r.rows[0]?.[2]).toBe('number');
    });

    it('applies the same validator and the same read-only transaction', async () => {
      await expect(
        postgresConnector.execute(demoTarget, 'DELETE FROM shop.orders', ctx(), {
          rowCap: 5,
          timeoutMs: 1000,
        }),
      ).rejects.toMatchObject({ kind: 'query_rejected' });
      await expect(
        postgresConnector.execute(demoTarget, 'SELECT * FROM pg_catalog.pg_authid', ctx(), {
          rowCap: 5,
          timeoutMs: 1000,
        }),
      ).rejects.toMatchObject({ kind: 'out_of_scope' });
      const before = await checksum(persisted);
      await expect(
        runReadOnly({ kind: 'embedded', db: persisted }, 'DELETE FROM shop.reviews', {
          timeoutMs: 1000,
          schemas: ['shop'],
        }),
      ).rejects.toMatchObject({ code: '25006' });
      await expect(
        runReadOnly(
          { kind: 'embedded', db: persisted },
          'WITH d AS (DELETE FROM shop.orders RETURNING 1) SELECT * FROM d',
          { timeoutMs: 1000, schemas: ['shop'] },
        ),
      ).rejects.toMatchObject({ code: '25006' });
      await expect(
        runReadOnly({ kind: 'embedded', db: persisted }, 'SELECT 1; DELETE FROM shop.orders', {
          timeoutMs: 1000,
          schemas: ['shop'],
        }),
      ).rejects.toThrow();
      expect(await checksum(persisted)).toEqual(before);
      const e = await postgresConnector
        .execute(demoTarget, 'SELECT nope FROM orders', ctx(), { rowCap: 5, timeoutMs: 1000 })
        .catch((x: unknown) => x);
      expect(e).toMatchObject({ kind: 'unknown_column', recoverable: true });
    });

    it('reports a missing demo database clearly', async () => {
      const noDemo: ConnectorContext = {
        allowPrivateNetworks: false,
        allowInsecureTransport: true,
        requestTimeoutMs: 1000,
      };
      await expect(postgresConnector.introspect(demoTarget, noDemo)).rejects.toBeInstanceOf(ConnectorError);
      const r = await postgresConnector.test(demoTarget, noDemo);
      expect(r.ok).toBe(false);
      expect(r.symptom).toBe('Demo database not available');
      expect(postgresConnector.warnings(demoTarget)).toEqual([]);
    });
  });
});
