import { describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import { compileEsql, compileSql } from '../src/compile/index.ts';
import { CompileError, connectorFor, pinRange, type ConnectionTarget } from '../src/index.ts';

const elasticsearchConnector = connectorFor('elasticsearch')!;
const postgresConnector = connectorFor('postgres')!;

const spec = (input: QuerySpecInput) => querySpecSchema.parse(input);
const esTarget: ConnectionTarget = {
  id: 'c',
  dialect: 'elasticsearch',
  authMode: 'api_key',
  config: { allowed_indices: ['weblogs', 'logs-*'] },
  secrets: {},
};
const pgTarget: ConnectionTarget = {
  id: 'c',
  dialect: 'postgres',
  authMode: 'password',
  config: { schemas: ['shop'] },
  secrets: {},
};

describe('ES|QL compiler', () => {
  const cases: [string, QuerySpecInput, string][] = [
    [
      'count by a nested field, sorted',
      {
        source: 'weblogs',
        group_by: [{ column: { column: 'geo.country_name' }, alias: 'country' }],
        aggregates: [{ fn: 'count', alias: 'requests' }],
        order_by: [{ ref: 'requests', direction: 'desc' }],
        limit: 10,
      },
      'FROM weblogs\n| STATS requests = COUNT(*) BY geo.country_name\n| SORT requests DESC\n| LIMIT 10',
    ],
    [
      'time bucket via EVAL, filter before STATS',
      {
        source: 'weblogs',
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'http.request.method' }, value: 'GET' },
            { op: 'gte', column: { column: 'http.response.status_code' }, value: 500 },
          ],
        },
        group_by: [{ column: { column: '@timestamp' }, time_bucket: 'month', alias: 'month' }],
        aggregates: [{ fn: 'avg', column: { column: 'event.duration' }, alias: 'avg_duration' }],
        order_by: [{ ref: 'month', direction: 'asc' }],
      },
      'FROM weblogs\n| WHERE http.request.method == "GET" AND http.response.status_code >= 500\n| EVAL month = DATE_TRUNC(1 month, @timestamp)\n| STATS avg_duration = AVG(event.duration) BY month\n| SORT month ASC',
    ],
    [
      'listing keeps columns first when the filter uses them',
      {
        source: 'logs-*',
        columns: [{ column: 'url.path' }, { column: 'http.response.status_code' }],
        filter: { op: 'in', column: { column: 'http.response.status_code' }, values: [404, 500] },
        limit: 20,
      },
      'FROM logs-*\n| KEEP url.path, http.response.status_code\n| WHERE http.response.status_code IN (404, 500)\n| LIMIT 20',
    ],
    [
      'relative range, contains, null check, sort on a group alias',
      {
        source: 'weblogs',
        filter: {
          op: 'and',
          conditions: [
            {
              op: 'time_range',
              column: { column: '@timestamp' },
              range: { kind: 'relative', unit: 'day', count: 30 },
            },
            { op: 'contains', column: { column: 'url.path' }, value: 'Cart*' },
            { op: 'is_not_null', column: { column: 'user.id' } },
          ],
        },
        group_by: [{ column: { column: 'user.plan' }, alias: 'plan' }],
        aggregates: [{ fn: 'count_distinct', column: { column: 'user.id' }, alias: 'users' }],
        order_by: [{ ref: 'plan', direction: 'asc' }],
      },
      'FROM weblogs\n| WHERE @timestamp >= NOW() - 30 days AND TO_LOWER(url.path) LIKE "*cart\\\\**" AND user.id IS NOT NULL\n| STATS users = COUNT_DISTINCT(user.id) BY user.plan\n| SORT user.plan ASC',
    ],
  ];
  it.each(cases)('%s', async (_name, input, expected) => {
    const text = compileEsql(spec(input));
    expect(text).toBe(expected);
    await expect(
      elasticsearchConnector.validateQuery(esTarget, text, { rowCap: 5000 }),
    ).resolves.toMatchObject({ text: expect.any(String) });
  });

  it('refuses joins and foreign table columns, with a sentence', () => {
    expect(() =>
      compileEsql(
        spec({
          source: 'weblogs',
          joins: [{ table: 'x', on: [{ left: { column: 'a' }, right: { column: 'b' } }] }],
        }),
      ),
    ).toThrow(CompileError);
  });

  it('reads one value of a multi-valued field after MV_EXPAND, and refuses any other comparison on it', async () => {
    const multiValued = { weblogs: ['tags'] };
    const tagged = (filter: QuerySpecInput['filter'], extra: Partial<QuerySpecInput> = {}) =>
      spec({ source: 'weblogs', filter, aggregates: [{ fn: 'count', alias: 'n' }], ...extra });
    const text = compileEsql(
      tagged({
        op: 'and',
        conditions: [
          { op: 'eq', column: { column: 'tags' }, value: 'canary' },
          { op: 'eq', column: { column: 'http.request.method' }, value: 'GET' },
        ],
      }),
      { multiValued },
    );
    expect(text).toBe(
      'FROM weblogs\n| MV_EXPAND tags\n| WHERE tags == "canary" AND http.request.method == "GET"\n| STATS n = COUNT(*)',
    );
    expect((await elasticsearchConnector.validateQuery(esTarget, text, { rowCap: 5000 })).text).toContain(
      'MV_EXPAND tags',
    );
    // Without the field known as multi-valued, the equality is compiled as it is.
    expect(compileEsql(tagged({ op: 'eq', column: { column: 'tags' }, value: 'canary' }))).not.toContain(
      'MV_EXPAND',
    );
    const refused: QuerySpecInput['filter'][] = [
      { op: 'neq', column: { column: 'tags' }, value: 'canary' },
      { op: 'in', column: { column: 'tags' }, values: ['canary', 'beta'] },
      {
        op: 'or',
        conditions: [
          { op: 'eq', column: { column: 'tags' }, value: 'canary' },
          { op: 'eq', column: { column: 'http.request.method' }, value: 'GET' },
        ],
      },
      {
        op: 'and',
        conditions: [
          { op: 'eq', column: { column: 'tags' }, value: 'canary' },
          { op: 'eq', column: { column: 'tags' }, value: 'beta' },
        ],
      },
    ];
    for (const filter of refused)
      expect(() => compileEsql(tagged(filter), { multiValued }), JSON.stringify(filter)).toThrow(
        /tags holds several values/,
      );
    expect(() =>
      compileEsql(
        tagged(null, {
          aggregates: [
            { fn: 'count', alias: 'n', where: { op: 'eq', column: { column: 'tags' }, value: 'canary' } },
          ],
        }),
        { multiValued },
      ),
    ).toThrow(CompileError);
  });

  it('quotes string values so they cannot break out', async () => {
    const text = compileEsql(
      spec({
        source: 'weblogs',
        filter: { op: 'eq', column: { column: 'user.name' }, value: 'x" | DROP y //' },
      }),
    );
    expect((await elasticsearchConnector.validateQuery(esTarget, text, { rowCap: 5000 })).text).toContain(
      '"x\\" | DROP y //"',
    );
  });
});

describe('SQL compiler', () => {
  it('joins along keys, buckets by month, pins relative ranges to a given now', async () => {
    const text = compileSql(
      spec({
        source: 'shop.order_items',
        joins: [
          {
            table: 'shop.products',
            on: [{ left: { column: 'product_id' }, right: { column: 'product_id' } }],
          },
        ],
        filter: {
          op: 'time_range',
          column: { table: 'shop.order_items', column: 'created_at' },
          range: { kind: 'relative', unit: 'month', count: 3, calendar: true },
        },
        group_by: [{ column: { table: 'shop.products', column: 'category' }, alias: 'category' }],
        aggregates: [
          { fn: 'sum', column: { column: 'quantity' }, alias: 'units' },
          { fn: 'median', column: { column: 'unit_price' }, alias: 'median_price' },
        ],
        order_by: [{ ref: 'units', direction: 'desc' }],
        limit: 5,
      }),
      { now: new Date('2026-06-15T12:00:00Z') },
    );
    expect(text).toBe(
      [
        'SELECT "products"."category" AS "category", sum("order_items"."quantity") AS "units", percentile_cont(0.5) WITHIN GROUP (ORDER BY "order_items"."unit_price") AS "median_price"',
        'FROM "shop"."order_items" AS "order_items"',
        'JOIN "shop"."products" AS "products" ON "order_items"."product_id" = "products"."product_id"',
        `WHERE ("order_items"."created_at" >= '2026-04-01T00:00:00.000Z'::timestamptz AND "order_items"."created_at" < '2026-06-15T12:00:00.000Z'::timestamptz)`,
        'GROUP BY "products"."category"',
        'ORDER BY "units" DESC NULLS LAST',
        'LIMIT 5',
      ].join('\n'),
    );
    await expect(postgresConnector.validateQuery(pgTarget, text, { rowCap: 5000 })).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('escapes quotes in values and identifiers; the validator still sees one statement', async () => {
    const text = compileSql(
      spec({
        source: 'shop.customers',
        columns: [{ column: 'we"ird' }],
        filter: { op: 'eq', column: { column: 'country' }, value: "x'; DROP TABLE shop.orders; --" },
      }),
    );
    expect(text).toContain(`'x''; DROP TABLE shop.orders; --'`);
    expect(text).toContain('"we""ird"');
    await expect(postgresConnector.validateQuery(pgTarget, text, { rowCap: 5000 })).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('refuses a top N per group with nothing to rank by, in a sentence', () => {
    expect(() =>
      compileSql(
        spec({
          source: 'shop.orders',
          group_by: [
            { column: { column: 'status' }, alias: 'status' },
            { column: { column: 'channel' }, alias: 'channel' },
          ],
          limit_per_group: { n: 2, partition_by: ['status'] },
        }),
      ),
    ).toThrow(/limit_per_group needs an order_by or a measure/);
  });
});

describe('pinning relative ranges', () => {
  const now = new Date('2026-06-15T10:30:00Z');
  it.each([
    [{ unit: 'day', count: 30, calendar: false }, '2026-05-16T10:30:00.000Z'],
    [{ unit: 'month', count: 1, calendar: true }, '2026-06-01T00:00:00.000Z'],
    [{ unit: 'quarter', count: 1, calendar: true }, '2026-04-01T00:00:00.000Z'],
    [{ unit: 'year', count: 2, calendar: true }, '2025-01-01T00:00:00.000Z'],
    [{ unit: 'week', count: 1, calendar: true }, '2026-06-15T00:00:00.000Z'],
  ] as const)('%o starts at %s and ends now', (range, from) => {
    expect(pinRange({ kind: 'relative', ...range }, now)).toEqual({
      kind: 'absolute',
      from,
      to: now.toISOString(),
    });
  });
});
