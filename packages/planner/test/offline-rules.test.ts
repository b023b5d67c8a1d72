import { describe, expect, it } from 'vitest';
import type { QuerySpec } from '@aqs/contracts';
import {
  offlinePlanner,
  validateSpecAgainstSchema,
  type Plan,
  type PlannerSchema,
  type PlanTurn,
} from '../src/index.ts';
import { shopSchema, weblogsSchema, withJoins, withoutRequestRows } from './fixtures.ts';

const now = new Date('2024-06-15T12:00:00Z');
const weblogs = weblogsSchema();
const shop = shopSchema();

/** A schema whose column `table.column` has these sampled values (none: not sampled). */
function withSamples(
  schema: PlannerSchema,
  table: string,
  column: string,
  values: (string | number | boolean)[],
): PlannerSchema {
  const t = schema.tables.find((x) => x.name === table);
  const c = t?.columns.find((x) => x.name === column);
  if (!c) throw new Error(`no ${table}.${column}`);
  c.sample_values = values;
  return schema;
}

/** The weblogs index as the service sees it when `short` fields were not sampled. */
const weblogsUnsampled = withSamples(weblogsSchema(), 'weblogs', 'http.response.status_code', []);
/** The demo shop with review ratings sampled (smallint columns are). */
const shopRatings = withSamples(shopSchema(), 'shop.reviews', 'rating', [5, 4, 3, 2, 1]);

async function plan(
  schema: PlannerSchema,
  question: string,
  history: PlanTurn[] = [],
  joins = true,
): Promise<Plan> {
  const planned = await offlinePlanner.plan({
    question,
    schema: withJoins(schema, joins),
    history,
    chartRequested: false,
    now,
  });
  expect(validateSpecAgainstSchema(planned.spec, schema)).toEqual([]);
  const p = { ...planned, spec: withoutRequestRows(planned.spec) };
  return p;
}

const count = [{ fn: 'count', alias: 'count' }] as QuerySpec['aggregates'];
const base: Omit<QuerySpec, 'source'> = {
  joins: [],
  columns: [],
  filter: null,
  group_by: [],
  aggregates: [],
  having: [],
  order_by: [],
  limit: null,
  limit_per_group: null,
};
const status404 = { op: 'eq', column: { column: 'http.response.status_code' }, value: 404 } as const;
const is_not_null = (column: string): QuerySpec['filter'] => ({ op: 'is_not_null', column: { column } });

describe('a number said of a column is a filter on it', () => {
  it('when the number was sampled for the column named before it', async () => {
    expect((await plan(weblogs, 'how many requests have status 404?')).spec).toEqual({
      source: 'weblogs',
      ...base,
      filter: status404,
      aggregates: count,
    });
    const rating = await plan(shopRatings, 'how many reviews with a rating of 5?');
    expect(rating.spec).toEqual({
      source: 'shop.reviews',
      ...base,
      filter: { op: 'eq', column: { column: 'rating' }, value: 5 },
      aggregates: count,
    });
  });

  it('when the integer column was not sampled', async () => {
    expect((await plan(weblogsUnsampled, 'how many requests have status 404?')).spec).toEqual({
      source: 'weblogs',
      ...base,
      filter: status404,
      aggregates: count,
    });
    expect((await plan(weblogsUnsampled, 'requests with status code 500 by country')).spec).toMatchObject({
      filter: { op: 'eq', column: { column: 'http.response.status_code' }, value: 500 },
      group_by: [{ column: { column: 'geo.country_name' }, alias: 'country_name' }],
    });
    expect((await plan(shop, 'how many reviews with rating 4')).spec.filter).toEqual({
      op: 'eq',
      column: { column: 'rating' },
      value: 4,
    });
  });

  it('on the column named, even when the number was sampled in another column', async () => {
    const items = await plan(shopRatings, 'how many order items with quantity 5');
    expect(items.spec).toEqual({
      source: 'shop.order_items',
      ...base,
      filter: { op: 'eq', column: { column: 'quantity' }, value: 5 },
      aggregates: count,
    });
  });

  it('still groups when no number follows', async () => {
    expect((await plan(weblogsUnsampled, 'requests per status code')).spec.group_by).toEqual([
      { column: { column: 'http.response.status_code' }, alias: 'status_code' },
    ]);
  });
});

describe('the rows of a table named with filters read as a count', () => {
  it.each<[string, string, QuerySpec['filter']]>([
    [
      'requests from Germany',
      'weblogs',
      { op: 'eq', column: { column: 'geo.country_name' }, value: 'Germany' },
    ],
    [
      'orders in Germany',
      'shop.orders',
      { op: 'eq', column: { column: 'shipping_country' }, value: 'Germany' },
    ],
    [
      'requests between 2024-02-02 and 2024-02-29',
      'weblogs',
      {
        op: 'time_range',
        column: { column: '@timestamp' },
        range: { kind: 'absolute', from: '2024-02-02T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z' },
      },
    ],
  ])('%s', async (question, source, filter) => {
    expect((await plan(source === 'weblogs' ? weblogs : shop, question)).spec).toEqual({
      source,
      ...base,
      filter,
      aggregates: count,
    });
  });

  it('but list / show / which ask for the rows', async () => {
    for (const question of [
      'list requests from Germany',
      'show orders in Germany',
      'which requests came from Germany?',
    ]) {
      const p = await plan(question.includes('orders') ? shop : weblogs, question);
      expect(p.spec.aggregates, question).toEqual([]);
      expect(p.spec.filter, question).not.toBeNull();
    }
  });

  it('not without a filter, nor with a column, a group, an order or a chart asked for', async () => {
    expect((await plan(shop, 'orders')).spec.aggregates).toEqual([]);
    expect((await plan(shop, 'status of orders in Germany')).spec.aggregates).toEqual([]);
    expect((await plan(shop, 'orders in Germany by channel')).spec.group_by.map((g) => g.alias)).toEqual([
      'channel',
    ]);
    expect((await plan(shop, 'latest 5 orders in Germany')).spec).toMatchObject({ aggregates: [], limit: 5 });
    expect((await plan(weblogs, 'requests from Germany as a bar chart')).spec.aggregates).toEqual([]);
  });

  it('and a follow-up keeps refining the previous measure', async () => {
    const first = await plan(weblogs, 'total bytes by country');
    const next = await plan(weblogs, 'only requests from Germany', [
      { question: 'total bytes by country', spec: first.spec, chart_type: first.chart_type },
    ]);
    expect(next.spec.aggregates).toEqual(first.spec.aggregates);
  });
});

describe('how many <table> <date verb>: rows counted over that date', () => {
  it('counts the rows, the range applies to the date the verb names', async () => {
    expect((await plan(shop, 'how many customers signed up in 2022?')).spec).toEqual({
      source: 'shop.customers',
      ...base,
      filter: {
        op: 'time_range',
        column: { column: 'signup_date' },
        range: { kind: 'absolute', from: '2022-01-01T00:00:00.000Z', to: '2023-01-01T00:00:00.000Z' },
      },
      aggregates: count,
    });
    expect((await plan(shop, 'how many customers signed up per month')).spec).toMatchObject({
      group_by: [{ column: { column: 'signup_date' }, time_bucket: 'month' }],
      aggregates: count,
    });
  });

  it('a count of a labelled column stays a distinct count', async () => {
    expect((await plan(shop, 'how many product categories')).spec.aggregates).toEqual([
      { fn: 'count_distinct', column: { column: 'category' }, alias: 'distinct_category' },
    ]);
  });
});

describe('an entity is grouped', () => {
  it('by its key, shown by its label: two customers who share a name stay two customers', async () => {
    const p = await plan(shop, 'orders per customer');
    expect(p.spec.group_by).toEqual([
      { column: { table: 'shop.customers', column: 'full_name' }, alias: 'full_name' },
      { column: { table: 'shop.customers', column: 'customer_id' }, alias: 'customer_id' },
    ]);
    expect(p.spec.order_by).toEqual([{ ref: 'count', direction: 'desc' }]);
    const top = await plan(shop, 'top 3 products by number of reviews');
    expect(top.spec.group_by.map((g) => g.alias)).toEqual(['product_name', 'product_id']);
    expect(top.spec.limit).toBe(3);
  });

  it('without joins the foreign key alone is grouped, as before', async () => {
    const p = await plan(shop, 'orders per customer', [], false);
    expect(p.spec.group_by).toEqual([{ column: { column: 'customer_id' }, alias: 'customer_id' }]);
    expect(p.spec.order_by).toEqual([{ ref: 'count', direction: 'desc' }]);
  });
});

describe("a verb that is a form of a column name introduces that column's value", () => {
  it('`shipped to France` filters the shipping country, not the status', async () => {
    expect((await plan(shop, 'orders shipped to France or Germany per channel')).spec).toEqual({
      source: 'shop.orders',
      ...base,
      filter: { op: 'in', column: { column: 'shipping_country' }, values: ['France', 'Germany'] },
      group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
      aggregates: count,
      order_by: [{ ref: 'count', direction: 'desc' }],
    });
  });

  it('`shipped orders` is still the status', async () => {
    expect((await plan(shop, 'shipped orders by channel')).spec.filter).toEqual({
      op: 'eq',
      column: { column: 'status' },
      value: 'shipped',
    });
    expect((await plan(shop, 'orders shipped in 2024')).spec.filter).toMatchObject({
      op: 'and',
      conditions: [{ op: 'eq', column: { column: 'status' }, value: 'shipped' }, { op: 'time_range' }],
    });
  });
});

describe('`with a <column>`: the column is set', () => {
  it('is a not-null filter, not a listed or grouped column', async () => {
    const coupons = is_not_null('coupon_code');
    expect((await plan(shop, 'how many orders with a coupon code?')).spec).toEqual({
      source: 'shop.orders',
      ...base,
      filter: coupons,
      aggregates: count,
    });
    expect((await plan(shop, 'orders with a coupon code by channel')).spec).toMatchObject({
      filter: coupons,
      group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
    });
    expect((await plan(shop, 'how many customers have an email')).spec.filter).toEqual(is_not_null('email'));
  });

  it('unless a value or a comparison follows the column', async () => {
    expect((await plan(shop, 'how many products with a price below 20')).spec.filter).toEqual({
      op: 'lt',
      column: { column: 'price' },
      value: 20,
    });
    expect((await plan(shopRatings, 'how many reviews with a rating of 5')).spec.filter).toEqual({
      op: 'eq',
      column: { column: 'rating' },
      value: 5,
    });
    expect((await plan(shop, 'orders with a status of shipped')).spec.filter).toEqual({
      op: 'eq',
      column: { column: 'status' },
      value: 'shipped',
    });
  });
});

describe('the verb of a date before a time phrase names the date column', () => {
  it('`orders placed in March 2025`: placed is the order date (its description), not the status', async () => {
    expect((await plan(shop, 'how many orders were placed in March 2025?')).spec).toEqual({
      source: 'shop.orders',
      ...base,
      filter: {
        op: 'time_range',
        column: { column: 'ordered_at' },
        range: { kind: 'absolute', from: '2025-03-01T00:00:00.000Z', to: '2025-04-01T00:00:00.000Z' },
      },
      aggregates: count,
    });
    // Without a time phrase it is the status value.
    expect((await plan(shop, 'how many placed orders')).spec.filter).toEqual({
      op: 'eq',
      column: { column: 'status' },
      value: 'placed',
    });
  });

  it('`products launched in 2023`: a plural table noun before its date column is the subject', async () => {
    expect((await plan(shop, 'products launched in 2023')).spec).toEqual({
      source: 'shop.products',
      ...base,
      filter: {
        op: 'time_range',
        column: { column: 'launched_on' },
        range: { kind: 'absolute', from: '2023-01-01T00:00:00.000Z', to: '2024-01-01T00:00:00.000Z' },
      },
      aggregates: count,
    });
    // The singular noun still qualifies its column.
    expect((await plan(shop, 'average price by product category')).spec.group_by).toEqual([
      { column: { column: 'category' }, alias: 'category' },
    ]);
  });
});

describe('a sum or average never means a date', () => {
  it('`total amount paid by paypal` sums the table measure, not paid_at', async () => {
    expect((await plan(shop, 'total amount paid by paypal')).spec).toEqual({
      source: 'shop.payments',
      ...base,
      filter: { op: 'eq', column: { column: 'method' }, value: 'paypal' },
      aggregates: [{ fn: 'sum', column: { column: 'amount' }, alias: 'sum_amount' }],
    });
  });

  it('max / min of a date stay', async () => {
    expect((await plan(shop, 'maximum signup date')).spec.aggregates).toEqual([
      { fn: 'max', column: { column: 'signup_date' }, alias: 'max_signup_date' },
    ]);
  });
});

describe('rows named by a noun that is also an object of the mapping', () => {
  it('are the documents that have that object (`requests` are documents with request fields)', async () => {
    const p = await offlinePlanner.plan({
      question: 'count the requests',
      schema: weblogs,
      history: [],
      chartRequested: false,
      now,
    });
    expect(p.spec.filter).toEqual({ op: 'is_not_null', column: { column: 'http.request.method' } });
    // A table named after its rows (`orders`) gets no such condition.
    const orders = await offlinePlanner.plan({
      question: 'count the orders',
      schema: shop,
      history: [],
      chartRequested: false,
      now,
    });
    expect(orders.spec.filter).toBeNull();
  });
});
