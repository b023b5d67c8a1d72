import { describe, expect, it } from 'vitest';
import { buildContext, type PlannerSchema, type SchemaColumn } from '../src/index.ts';
import { capabilitiesOf, shopSchema, weblogsSchema } from './fixtures.ts';

function wideIndex(fields: number): PlannerSchema {
  const columns: SchemaColumn[] = [
    { name: '@timestamp', type: 'date', description: null, sample_values: [], queryable: true },
  ];
  for (let i = 0; i < fields; i++) {
    columns.push({
      name: `metrics.group${Math.floor(i / 50)}.field_${i}`,
      type: i % 3 === 0 ? 'keyword' : 'long',
      description: null,
      sample_values: i % 3 === 0 ? [`v${i}a`, `v${i}b`] : [],
      queryable: true,
    });
  }
  columns.push({
    name: 'service.name',
    type: 'keyword',
    description: 'Name of the service that handled the request',
    sample_values: ['checkout', 'search'],
    queryable: true,
  });
  columns.push({
    name: 'http.response.latency_ms',
    type: 'long',
    description: 'Response latency',
    sample_values: [],
    queryable: true,
  });
  return {
    capabilities: capabilitiesOf('elasticsearch'),
    tables: [
      {
        name: 'big-index',
        kind: 'index',
        description: null,
        row_estimate: null,
        columns,
        primary_key: [],
        foreign_keys: [],
      },
    ],
  };
}

describe('buildContext', () => {
  it('keeps a bounded number of columns of a 1000-field index, including the relevant ones', () => {
    const schema = wideIndex(1000);
    const { schema: pruned, stats } = buildContext('average latency by service last 7 days', schema, {});
    expect(stats.columns_total).toBe(1003);
    expect(stats.columns_kept).toBeLessThanOrEqual(40);
    const names = pruned.tables[0]!.columns.map((c) => c.name);
    expect(names).toContain('service.name');
    expect(names).toContain('http.response.latency_ms');
    expect(names).toContain('@timestamp');
  });

  it('finds a column through one of its sampled values', () => {
    const { schema: pruned } = buildContext('requests where field is v999a', wideIndex(1000), {
      maxColumnsPerTable: 10,
    });
    expect(pruned.tables[0]!.columns.map((c) => c.name)).toContain('metrics.group19.field_999');
  });

  it('honours the column cap option', () => {
    const { stats } = buildContext('anything', wideIndex(1000), { maxColumnsPerTable: 12 });
    expect(stats.columns_kept).toBe(12);
  });

  it('honours table and column selection overrides', () => {
    const schema = shopSchema();
    const { schema: pruned, stats } = buildContext('orders by country', schema, {
      selectedTables: ['shop.orders', 'customers'],
      selectedColumns: { 'shop.customers': ['customer_id', 'country'] },
    });
    expect(pruned.tables.map((t) => t.name)).toEqual(['shop.customers', 'shop.orders']);
    expect(pruned.tables[0]!.columns.map((c) => c.name)).toEqual(['customer_id', 'country']);
    expect(stats.tables_total).toBe(7);
    expect(stats.tables_kept).toBe(2);
    // The foreign key between the kept tables survives (joins stay possible).
    expect(pruned.tables[1]!.foreign_keys).toHaveLength(1);
  });

  it('ranks relevant tables first and caps the table count', () => {
    const { schema: pruned } = buildContext('average rating of reviews by product category', shopSchema(), {
      maxTables: 2,
    });
    expect(pruned.tables.map((t) => t.name).sort()).toEqual(['shop.products', 'shop.reviews']);
  });

  it('keeps the tables and columns of previous turns', () => {
    const history = [
      {
        question: 'orders by channel',
        chart_type: null,
        spec: {
          source: 'shop.orders',
          joins: [],
          columns: [],
          filter: null,
          group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
          aggregates: [{ fn: 'count' as const, alias: 'count' }],
          having: [],
          order_by: [],
          limit: null,
          limit_per_group: null,
        },
      },
    ];
    const { schema: pruned } = buildContext('just for France', shopSchema(), {
      history,
      maxTables: 2,
      maxColumnsPerTable: 3,
    });
    const orders = pruned.tables.find((t) => t.name === 'shop.orders');
    expect(orders?.columns.map((c) => c.name)).toContain('channel');
  });

  it('leaves a small schema as it is', () => {
    const schema = weblogsSchema();
    const { stats } = buildContext('requests per day', schema, {});
    expect(stats.columns_kept).toBe(schema.tables[0]!.columns.filter((c) => c.queryable).length);
  });
});
