import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import { compileEsql, compileSql } from '../src/compile/index.ts';
import { CompileError, connectorFor, type ConnectionTarget } from '../src/index.ts';
import { openDemoDatabase, type DemoDatabase } from '../src/demo/database.ts';

/**
 * Compiled specs give the numbers a hand-written query gives on the demo shop. The hand-written
 * queries are written the way an analyst would (aggregate at the measure's grain, EXISTS, window
 * functions), never the way the compiler writes them, so a fan-out or a wrong grouping shows.
 */
const spec = (input: QuerySpecInput) => querySpecSchema.parse(input);
const postgres = connectorFor('postgres')!;
const target: ConnectionTarget = {
  id: 'c',
  dialect: 'postgres',
  authMode: 'password',
  config: { schemas: ['shop'] },
  secrets: {},
};

const KEYS = {
  'shop.customers': [['customer_id']],
  'shop.products': [['product_id'], ['sku']],
  'shop.orders': [['order_id']],
  'shop.order_items': [['order_id', 'line_no']],
  'shop.payments': [['payment_id']],
  'shop.reviews': [['review_id']],
};

const ORDERS_ITEMS_PRODUCTS = [
  {
    table: 'shop.order_items',
    on: [
      {
        left: { table: 'shop.orders', column: 'order_id' },
        right: { table: 'shop.order_items', column: 'order_id' },
      },
    ],
  },
  {
    table: 'shop.products',
    on: [
      {
        left: { table: 'shop.order_items', column: 'product_id' },
        right: { table: 'shop.products', column: 'product_id' },
      },
    ],
  },
];

let demo: DemoDatabase;
beforeAll(async () => {
  demo = await openDemoDatabase();
}, 120_000);
afterAll(async () => {
  await demo?.close();
});

async function rows(sql: string): Promise<unknown[][]> {
  const result = await demo.query<unknown[]>(sql, [], { rowMode: 'array' });
  return result.rows.map((r) =>
    r.map((v) =>
      typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v))
        ? Number(Number(v).toFixed(4))
        : v instanceof Date
          ? v.toISOString()
          : v,
    ),
  );
}

async function expectSameAs(input: QuerySpecInput, handWritten: string): Promise<string> {
  const sql = compileSql(spec(input), { uniqueKeys: KEYS });
  await postgres.validateQuery(target, sql, { rowCap: 5000 });
  const [got, want] = [await rows(sql), await rows(handWritten)];
  expect(want.length).toBeGreaterThan(0);
  expect(got).toEqual(want);
  return sql;
}

describe('fan-out: a measure is aggregated at its own grain', () => {
  it('payments summed by product category count each payment once per category', async () => {
    const sql = await expectSameAs(
      {
        source: 'shop.payments',
        joins: [
          {
            table: 'shop.orders',
            on: [
              {
                left: { table: 'shop.payments', column: 'order_id' },
                right: { table: 'shop.orders', column: 'order_id' },
              },
            ],
          },
          ...ORDERS_ITEMS_PRODUCTS,
        ],
        group_by: [{ column: { table: 'shop.products', column: 'category' }, alias: 'category' }],
        aggregates: [{ fn: 'sum', column: { table: 'shop.payments', column: 'amount' }, alias: 'paid' }],
        order_by: [{ ref: 'category', direction: 'asc' }],
      },
      `SELECT c.category, sum(p.amount)
       FROM (SELECT DISTINCT pr.category, o.order_id FROM shop.orders o JOIN shop.order_items oi USING (order_id) JOIN shop.products pr USING (product_id)) c
       JOIN shop.payments p ON p.order_id = c.order_id
       GROUP BY c.category ORDER BY c.category`,
    );
    expect(sql).toContain('SELECT DISTINCT');
  });

  it('a filter through a one-to-many join does not multiply the total', async () => {
    await expectSameAs(
      {
        source: 'shop.orders',
        joins: [
          ...ORDERS_ITEMS_PRODUCTS,
          {
            table: 'shop.customers',
            on: [
              {
                left: { table: 'shop.orders', column: 'customer_id' },
                right: { table: 'shop.customers', column: 'customer_id' },
              },
            ],
          },
        ],
        filter: { op: 'eq', column: { table: 'shop.products', column: 'category' }, value: 'Books' },
        group_by: [{ column: { table: 'shop.customers', column: 'country' }, alias: 'country' }],
        aggregates: [
          { fn: 'count', alias: 'orders' },
          { fn: 'avg', column: { table: 'shop.orders', column: 'discount_pct' }, alias: 'avg_discount' },
          { fn: 'sum', column: { table: 'shop.order_items', column: 'quantity' }, alias: 'units' },
        ],
        order_by: [{ ref: 'country', direction: 'asc' }],
      },
      `SELECT c.country,
         count(*) FILTER (WHERE EXISTS (SELECT 1 FROM shop.order_items oi JOIN shop.products pr USING (product_id) WHERE oi.order_id = o.order_id AND pr.category = 'Books')),
         avg(o.discount_pct) FILTER (WHERE EXISTS (SELECT 1 FROM shop.order_items oi JOIN shop.products pr USING (product_id) WHERE oi.order_id = o.order_id AND pr.category = 'Books')),
         (SELECT sum(oi.quantity) FROM shop.order_items oi JOIN shop.products pr USING (product_id) JOIN shop.orders o2 USING (order_id) JOIN shop.customers c2 ON c2.customer_id = o2.customer_id WHERE pr.category = 'Books' AND c2.country = c.country)
       FROM shop.orders o JOIN shop.customers c USING (customer_id)
       GROUP BY c.country
       HAVING count(*) FILTER (WHERE EXISTS (SELECT 1 FROM shop.order_items oi JOIN shop.products pr USING (product_id) WHERE oi.order_id = o.order_id AND pr.category = 'Books')) > 0
       ORDER BY c.country`,
    );
  });

  it('a many-to-one join alone stays one plain query', () => {
    const sql = compileSql(
      spec({
        source: 'shop.orders',
        joins: [
          {
            table: 'shop.customers',
            on: [{ left: { column: 'customer_id' }, right: { column: 'customer_id' } }],
          },
        ],
        group_by: [{ column: { table: 'shop.customers', column: 'country' }, alias: 'country' }],
        aggregates: [{ fn: 'count', alias: 'orders' }],
      }),
      { uniqueKeys: KEYS },
    );
    expect(sql).not.toContain('DISTINCT');
    expect(sql).not.toContain('__key');
  });

  it('line revenue (quantity x unit price) by category, top 3', async () => {
    await expectSameAs(
      {
        source: 'shop.order_items',
        joins: [
          {
            table: 'shop.products',
            on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
          },
        ],
        group_by: [{ column: { table: 'shop.products', column: 'category' }, alias: 'category' }],
        aggregates: [
          {
            fn: 'sum',
            expression: {
              op: 'multiply',
              left: { table: 'shop.order_items', column: 'quantity' },
              right: { table: 'shop.order_items', column: 'unit_price' },
            },
            alias: 'revenue',
          },
        ],
        order_by: [{ ref: 'revenue', direction: 'desc' }],
        limit: 3,
      },
      `SELECT p.category, sum(i.quantity * i.unit_price) AS r FROM shop.order_items i JOIN shop.products p USING (product_id) GROUP BY 1 ORDER BY r DESC LIMIT 3`,
    );
  });
});

describe('the QuerySpec forms real questions need', () => {
  it('filters on an aggregate: customers with more than 12 orders', async () => {
    await expectSameAs(
      {
        source: 'shop.orders',
        joins: [
          {
            table: 'shop.customers',
            on: [{ left: { column: 'customer_id' }, right: { column: 'customer_id' } }],
          },
        ],
        group_by: [{ column: { table: 'shop.customers', column: 'full_name' }, alias: 'customer' }],
        aggregates: [{ fn: 'count', alias: 'orders' }],
        having: [{ ref: 'orders', op: 'gt', value: 12 }],
        order_by: [{ ref: 'customer', direction: 'asc' }],
      },
      `SELECT c.full_name, count(*) FROM shop.orders o JOIN shop.customers c USING (customer_id) GROUP BY c.full_name HAVING count(*) > 12 ORDER BY 1`,
    );
  });

  it('absence: customers who never ordered, and products never reviewed', async () => {
    await expectSameAs(
      {
        source: 'shop.customers',
        filter: {
          op: 'not_exists',
          table: 'shop.orders',
          on: [{ left: { column: 'customer_id' }, right: { column: 'customer_id' } }],
        },
        aggregates: [{ fn: 'count', alias: 'customers' }],
      },
      `SELECT count(*) FROM shop.customers c LEFT JOIN shop.orders o ON o.customer_id = c.customer_id WHERE o.order_id IS NULL`,
    );
    await expectSameAs(
      {
        source: 'shop.products',
        filter: {
          op: 'and',
          conditions: [
            {
              op: 'not_exists',
              table: 'shop.reviews',
              on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
              filter: { op: 'gte', column: { table: 'shop.reviews', column: 'rating' }, value: 4 },
            },
            {
              op: 'exists',
              table: 'shop.order_items',
              on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
            },
          ],
        },
        columns: [{ column: 'product_name' }],
        order_by: [{ ref: 'product_name', direction: 'asc' }],
      },
      `SELECT p.product_name FROM shop.products p
       WHERE p.product_id NOT IN (SELECT product_id FROM shop.reviews WHERE rating >= 4)
         AND p.product_id IN (SELECT product_id FROM shop.order_items)
       ORDER BY 1`,
    );
  });

  it('median, percentile and an elapsed-time measure', async () => {
    await expectSameAs(
      {
        source: 'shop.payments',
        joins: [
          { table: 'shop.orders', on: [{ left: { column: 'order_id' }, right: { column: 'order_id' } }] },
        ],
        group_by: [{ column: { table: 'shop.payments', column: 'method' }, alias: 'method' }],
        aggregates: [
          { fn: 'median', column: { table: 'shop.payments', column: 'amount' }, alias: 'median_amount' },
          {
            fn: 'percentile',
            percentile: 90,
            column: { table: 'shop.payments', column: 'amount' },
            alias: 'p90',
          },
          {
            fn: 'avg',
            expression: {
              op: 'elapsed',
              from: { table: 'shop.orders', column: 'ordered_at' },
              to: { table: 'shop.payments', column: 'paid_at' },
              unit: 'hour',
            },
            alias: 'hours_to_pay',
          },
        ],
        order_by: [{ ref: 'method', direction: 'asc' }],
      },
      `SELECT p.method, percentile_cont(0.5) WITHIN GROUP (ORDER BY p.amount), percentile_cont(0.9) WITHIN GROUP (ORDER BY p.amount),
              avg(EXTRACT(EPOCH FROM p.paid_at - o.ordered_at) / 3600)
       FROM shop.payments p JOIN shop.orders o USING (order_id) GROUP BY 1 ORDER BY 1`,
    );
  });

  it('share of total, and top N per group', async () => {
    await expectSameAs(
      {
        source: 'shop.orders',
        group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
        aggregates: [{ fn: 'count', alias: 'share', share: true }],
        order_by: [{ ref: 'share', direction: 'desc' }],
      },
      `SELECT channel, 100.0 * count(*) / (SELECT count(*) FROM shop.orders) AS s FROM shop.orders GROUP BY channel ORDER BY s DESC`,
    );
    await expectSameAs(
      {
        source: 'shop.order_items',
        joins: [
          {
            table: 'shop.products',
            on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
          },
        ],
        group_by: [
          { column: { table: 'shop.products', column: 'category' }, alias: 'category' },
          { column: { table: 'shop.products', column: 'product_name' }, alias: 'product' },
        ],
        aggregates: [
          { fn: 'sum', column: { table: 'shop.order_items', column: 'quantity' }, alias: 'units' },
        ],
        order_by: [
          { ref: 'units', direction: 'desc' },
          { ref: 'product', direction: 'asc' },
        ],
        limit_per_group: { n: 2, partition_by: ['category'] },
      },
      `WITH sold AS (SELECT p.category, p.product_name, sum(i.quantity) AS units FROM shop.order_items i JOIN shop.products p USING (product_id) GROUP BY 1, 2)
       SELECT category, product_name, units FROM sold s
       WHERE (SELECT count(*) FROM sold t WHERE t.category = s.category AND (t.units > s.units OR (t.units = s.units AND t.product_name < s.product_name))) < 2
       ORDER BY units DESC, product_name`,
    );
  });

  it('ES|QL: computed measures, percentiles and having compile; what ES|QL cannot say is refused in a sentence', async () => {
    const esql = compileEsql(
      spec({
        source: 'logs-*',
        group_by: [{ column: { column: 'service.name' }, alias: 'service' }],
        aggregates: [
          { fn: 'percentile', percentile: 95, column: { column: 'event.duration' }, alias: 'p95' },
          {
            fn: 'sum',
            expression: { op: 'multiply', left: { column: 'a' }, right: { column: 'b' } },
            alias: 'ab',
          },
        ],
        having: [{ ref: 'p95', op: 'gt', value: 1000 }],
      }),
    );
    expect(esql).toBe(
      'FROM logs-*\n| EVAL _value1 = a * b\n| STATS p95 = PERCENTILE(event.duration, 95), ab = SUM(_value1) BY service.name\n| WHERE p95 > 1000',
    );
    await expect(
      connectorFor('elasticsearch')!.validateQuery(
        {
          id: 'c',
          dialect: 'elasticsearch',
          authMode: 'api_key',
          config: { allowed_indices: ['logs-*'] },
          secrets: {},
        },
        esql,
        { rowCap: 10 },
      ),
    ).resolves.toMatchObject({ text: expect.any(String) });
    expect(() =>
      compileEsql(
        spec({
          source: 'logs',
          aggregates: [{ fn: 'count', alias: 'n', share: true }],
          group_by: [{ column: { column: 'x' }, alias: 'x' }],
        }),
      ),
    ).toThrow(CompileError);
    expect(() =>
      compileEsql(
        spec({
          source: 'logs',
          filter: { op: 'not_exists', table: 'b', on: [{ left: { column: 'a' }, right: { column: 'a' } }] },
        }),
      ),
    ).toThrow(/related rows/);
  });
});

describe('measures over some rows, and measures that only filter', () => {
  it('a share of the rows meeting a condition, per group (SQL FILTER; ES|QL CASE)', async () => {
    await expectSameAs(
      {
        source: 'shop.orders',
        group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
        aggregates: [
          {
            fn: 'count',
            alias: 'cancelled_pct',
            share: true,
            where: { op: 'eq', column: { column: 'status' }, value: 'cancelled' },
          },
        ],
        order_by: [{ ref: 'channel', direction: 'asc' }],
      },
      `SELECT channel, 100.0 * sum(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) / count(*) FROM shop.orders GROUP BY channel ORDER BY channel`,
    );
    const esql = compileEsql(
      spec({
        source: 'logs-*',
        group_by: [{ column: { column: 'service.name' }, alias: 'service' }],
        aggregates: [
          {
            fn: 'count',
            alias: 'errors_pct',
            share: true,
            where: { op: 'eq', column: { column: 'log.level' }, value: 'error' },
          },
        ],
      }),
    );
    expect(esql).toBe(
      'FROM logs-*\n| EVAL _where0 = CASE(log.level == "error", 1, null)\n| STATS errors_pct = COUNT(_where0), _total0 = COUNT(*) BY service.name\n| EVAL errors_pct = 100.0 * errors_pct / _total0\n| DROP _total0',
    );
  });

  it('a hidden measure filters the groups and is left out of the result', async () => {
    await expectSameAs(
      {
        source: 'shop.reviews',
        joins: [
          {
            table: 'shop.products',
            on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
          },
        ],
        group_by: [{ column: { table: 'shop.products', column: 'product_name' }, alias: 'product' }],
        aggregates: [{ fn: 'count', alias: 'reviews', hidden: true }],
        having: [{ ref: 'reviews', op: 'gte', value: 15 }],
        order_by: [{ ref: 'product', direction: 'asc' }],
      },
      `SELECT p.product_name FROM shop.reviews r JOIN shop.products p USING (product_id) GROUP BY p.product_name HAVING count(*) >= 15 ORDER BY 1`,
    );
  });

  it('groups without measures are the distinct values', async () => {
    await expectSameAs(
      {
        source: 'shop.orders',
        group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
        order_by: [{ ref: 'channel', direction: 'asc' }],
      },
      'SELECT DISTINCT channel FROM shop.orders ORDER BY 1',
    );
  });
});
