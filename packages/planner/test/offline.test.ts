import { describe, expect, it } from 'vitest';
import type { QuerySpec } from '@aqs/contracts';
import {
  offlinePlanner,
  PlanningError,
  validateSpecAgainstSchema,
  type Plan,
  type PlannerSchema,
  type PlanTurn,
} from '../src/index.ts';
import { shopSchema, weblogsSchema, withJoins, withoutRequestRows } from './fixtures.ts';
import { buildLexicon } from '../src/offline/lexicon.ts';

const now = new Date('2024-06-15T12:00:00Z');
const weblogs = weblogsSchema();
const shop = shopSchema();

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
  expect(p.planner).toBe('offline');
  expect(p.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0 });
  return p;
}

async function conversation(schema: PlannerSchema, questions: string[]): Promise<Plan[]> {
  const history: PlanTurn[] = [];
  const plans: Plan[] = [];
  for (const q of questions) {
    const p = await plan(schema, q, [...history]);
    history.push({ question: q, spec: p.spec, chart_type: p.chart_type });
    plans.push(p);
  }
  return plans;
}

const count = { fn: 'count', alias: 'count' };
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

describe('offline planner over the weblogs index', () => {
  it.each<[string, Partial<QuerySpec>]>([
    ['how many requests?', { aggregates: [count] as QuerySpec['aggregates'] }],
    [
      'how many requests per day last 7 days',
      {
        filter: {
          op: 'time_range',
          column: { column: '@timestamp' },
          range: { kind: 'relative', unit: 'day', count: 7, calendar: false },
        },
        group_by: [{ column: { column: '@timestamp' }, time_bucket: 'day', alias: 'day' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'day', direction: 'asc' }],
      },
    ],
    [
      'top 5 countries by request count',
      {
        // A ranking leaves out the rows whose group is unknown.
        filter: { op: 'is_not_null', column: { column: 'geo.country_name' } },
        group_by: [{ column: { column: 'geo.country_name' }, alias: 'country_name' }],
        aggregates: [count] as QuerySpec['aggregates'],
        // Ties at the cut-off are broken by the group, so the top 5 is the same on every run.
        order_by: [
          { ref: 'count', direction: 'desc' },
          { ref: 'country_name', direction: 'asc' },
        ],
        limit: 5,
      },
    ],
    [
      'mean response bytes per http method',
      {
        group_by: [{ column: { column: 'http.request.method' }, alias: 'method' }],
        aggregates: [{ fn: 'avg', column: { column: 'http.response.body.bytes' }, alias: 'avg_bytes' }],
        order_by: [{ ref: 'avg_bytes', direction: 'desc' }],
      },
    ],
    [
      'requests coming from France with status 404',
      {
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'geo.country_name' }, value: 'France' },
            { op: 'eq', column: { column: 'http.response.status_code' }, value: 404 },
          ],
        },
        aggregates: [count] as QuerySpec['aggregates'],
      },
    ],
    [
      'number of distinct users in 2024',
      {
        filter: {
          op: 'time_range',
          column: { column: '@timestamp' },
          range: { kind: 'absolute', from: '2024-01-01T00:00:00.000Z', to: '2025-01-01T00:00:00.000Z' },
        },
        aggregates: [{ fn: 'count_distinct', column: { column: 'user.id' }, alias: 'distinct_user_id' }],
      },
    ],
    [
      'failed requests per week',
      {
        filter: { op: 'eq', column: { column: 'event.outcome' }, value: 'failure' },
        group_by: [{ column: { column: '@timestamp' }, time_bucket: 'week', alias: 'week' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'week', direction: 'asc' }],
      },
    ],
    [
      'max duration per user plan',
      {
        group_by: [{ column: { column: 'user.plan' }, alias: 'plan' }],
        aggregates: [{ fn: 'max', column: { column: 'event.duration' }, alias: 'max_duration' }],
        order_by: [{ ref: 'max_duration', direction: 'desc' }],
      },
    ],
    [
      'requests with bytes over 5000 from the pro plan',
      {
        filter: {
          op: 'and',
          conditions: [
            { op: 'gt', column: { column: 'http.response.body.bytes' }, value: 5000 },
            { op: 'eq', column: { column: 'user.plan' }, value: 'pro' },
          ],
        },
        aggregates: [count] as QuerySpec['aggregates'],
      },
    ],
    [
      'requests per status code this month',
      {
        filter: {
          op: 'time_range',
          column: { column: '@timestamp' },
          range: { kind: 'relative', unit: 'month', count: 1, calendar: true },
        },
        group_by: [{ column: { column: 'http.response.status_code' }, alias: 'status_code' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'count', direction: 'desc' }],
      },
    ],
  ])('%s', async (question, expected) => {
    const p = await plan(weblogs, question);
    expect(p.spec).toEqual({ source: 'weblogs', ...base, ...expected });
  });

  it('asks for a chart type', async () => {
    expect((await plan(weblogs, 'total bytes per week as a line graph')).chart_type).toBe('line');
    expect((await plan(weblogs, 'pie of requests per country')).chart_type).toBe('pie');
    expect((await plan(weblogs, 'plot requests per day')).chart_type).toBe('line');
    expect((await plan(weblogs, 'requests by method')).chart_type).toBeNull();
  });

  it('refines the previous turn', async () => {
    const [first, onlyFrance, asLine, byMonth, top5] = await conversation(weblogs, [
      'requests per country over the past 30 days',
      'only the successful ones',
      'as a bar chart',
      'now by month',
      'top 5 instead',
    ]);
    expect(first!.spec.group_by[0]!.column.column).toBe('geo.country_name');
    expect(onlyFrance!.spec.filter).toEqual({
      op: 'and',
      conditions: [
        {
          op: 'time_range',
          column: { column: '@timestamp' },
          range: { kind: 'relative', unit: 'day', count: 30, calendar: false },
        },
        { op: 'eq', column: { column: 'event.outcome' }, value: 'success' },
      ],
    });
    expect(asLine!.chart_type).toBe('bar');
    expect(asLine!.spec).toEqual(onlyFrance!.spec);
    expect(byMonth!.spec.group_by).toEqual([
      { column: { column: '@timestamp' }, time_bucket: 'month', alias: 'month' },
    ]);
    expect(byMonth!.chart_type).toBe('bar');
    expect(top5!.spec.limit).toBe(5);
    expect(top5!.spec.order_by).toEqual([
      { ref: 'count', direction: 'desc' },
      { ref: 'month', direction: 'asc' },
    ]);
  });

  it('fails with a helpful message instead of guessing', async () => {
    const error = await offlinePlanner
      .plan({ question: 'what is the churn rate?', schema: weblogs, history: [], chartRequested: false, now })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningError);
    expect((error as PlanningError).type).toBe('unanswerable');
    expect((error as PlanningError).recoverable).toBe(false);
    expect((error as PlanningError).message).toMatch(
      /^I could not find what 'churn' refers to\. I can count, sum, average/,
    );
    expect((error as PlanningError).message).toContain('weblogs (');
    expect((error as PlanningError).message).toMatch(/Try: '.+'\./);
  });
});

describe('offline planner over the demo shop', () => {
  const orders = (extra: Partial<QuerySpec>): QuerySpec => ({ source: 'shop.orders', ...base, ...extra });

  it.each<[string, QuerySpec]>([
    [
      'how many orders last 30 days',
      orders({
        filter: {
          op: 'time_range',
          column: { column: 'ordered_at' },
          range: { kind: 'relative', unit: 'day', count: 30, calendar: false },
        },
        aggregates: [count] as QuerySpec['aggregates'],
      }),
    ],
    [
      'orders per status',
      orders({
        group_by: [{ column: { column: 'status' }, alias: 'status' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'count', direction: 'desc' }],
      }),
    ],
    [
      'number of cancelled orders this year',
      orders({
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'status' }, value: 'cancelled' },
            {
              op: 'time_range',
              column: { column: 'ordered_at' },
              range: { kind: 'relative', unit: 'year', count: 1, calendar: true },
            },
          ],
        },
        aggregates: [count] as QuerySpec['aggregates'],
      }),
    ],
    [
      'orders from the mobile channel since March',
      orders({
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'channel' }, value: 'mobile_app' },
            {
              op: 'time_range',
              column: { column: 'ordered_at' },
              range: { kind: 'absolute', from: '2024-03-01T00:00:00.000Z' },
            },
          ],
        },
        aggregates: [count] as QuerySpec['aggregates'],
      }),
    ],
    [
      'orders in France or Germany by channel',
      orders({
        filter: { op: 'in', column: { column: 'shipping_country' }, values: ['France', 'Germany'] },
        group_by: [{ column: { column: 'channel' }, alias: 'channel' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'count', direction: 'desc' }],
      }),
    ],
    [
      'orders not cancelled',
      orders({
        filter: { op: 'neq', column: { column: 'status' }, value: 'cancelled' },
        aggregates: [count] as QuerySpec['aggregates'],
      }),
    ],
    [
      'list orders not cancelled',
      orders({ filter: { op: 'neq', column: { column: 'status' }, value: 'cancelled' } }),
    ],
    [
      'list the ten most recent orders',
      orders({ order_by: [{ ref: 'ordered_at', direction: 'desc' }], limit: 10 }),
    ],
    [
      'orders per day yesterday',
      orders({
        filter: {
          op: 'time_range',
          column: { column: 'ordered_at' },
          range: { kind: 'absolute', from: '2024-06-14T00:00:00.000Z', to: '2024-06-15T00:00:00.000Z' },
        },
        group_by: [{ column: { column: 'ordered_at' }, time_bucket: 'day', alias: 'day' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'day', direction: 'asc' }],
      }),
    ],
    [
      'number of orders by month between 2024-01-01 and 2024-03-31',
      orders({
        filter: {
          op: 'time_range',
          column: { column: 'ordered_at' },
          range: { kind: 'absolute', from: '2024-01-01T00:00:00.000Z', to: '2024-04-01T00:00:00.000Z' },
        },
        group_by: [{ column: { column: 'ordered_at' }, time_bucket: 'month', alias: 'month' }],
        aggregates: [count] as QuerySpec['aggregates'],
        order_by: [{ ref: 'month', direction: 'asc' }],
      }),
    ],
  ])('%s', async (question, expected) => {
    expect((await plan(shop, question)).spec).toEqual(expected);
  });

  it('sums revenue from the net amount of the order totals view, by month', async () => {
    const p = await plan(shop, 'revenue by month in 2024');
    expect(p.spec.source).toBe('shop.order_totals');
    expect(p.spec.aggregates).toEqual([
      { fn: 'sum', column: { column: 'net_amount' }, alias: 'sum_net_amount' },
    ]);
    expect(p.spec.group_by).toEqual([
      { column: { column: 'ordered_at' }, time_bucket: 'month', alias: 'month' },
    ]);
  });

  it('handles numeric comparisons and averages', async () => {
    const cheap = await plan(shop, 'show products with price below 20');
    // Rows of an entity are listed by its label.
    expect(cheap.spec).toEqual({
      source: 'shop.products',
      ...base,
      columns: [{ column: 'product_name' }],
      filter: { op: 'lt', column: { column: 'price' }, value: 20 },
    });
    const avg = await plan(shop, 'average price per category');
    expect(avg.spec.aggregates).toEqual([{ fn: 'avg', column: { column: 'price' }, alias: 'avg_price' }]);
    expect(avg.spec.group_by).toEqual([{ column: { column: 'category' }, alias: 'category' }]);
    const top = await plan(shop, 'top ten products by price');
    expect(top.spec).toEqual({
      source: 'shop.products',
      ...base,
      columns: [{ column: 'product_name' }, { column: 'price' }],
      order_by: [{ ref: 'price', direction: 'desc' }],
      limit: 10,
    });
  });

  it('counts with a filter on a sampled value and picks the superlative', async () => {
    expect((await plan(shop, 'count of customers in France')).spec).toEqual({
      source: 'shop.customers',
      ...base,
      filter: { op: 'eq', column: { column: 'country' }, value: 'France' },
      aggregates: [count],
    });
    const most = await plan(shop, 'what country has the most customers');
    expect(most.spec).toEqual({
      source: 'shop.customers',
      ...base,
      filter: { op: 'is_not_null', column: { column: 'country' } },
      group_by: [{ column: { column: 'country' }, alias: 'country' }],
      aggregates: [count],
      order_by: [
        { ref: 'count', direction: 'desc' },
        { ref: 'country', direction: 'asc' },
      ],
      limit: 1,
    });
    const signups = await plan(shop, 'customers who signed up in 2023');
    expect(signups.spec.filter).toEqual({
      op: 'time_range',
      column: { column: 'signup_date' },
      range: { kind: 'absolute', from: '2023-01-01T00:00:00.000Z', to: '2024-01-01T00:00:00.000Z' },
    });
  });

  it('joins along foreign keys when columns of two tables are named', async () => {
    const p = await plan(shop, 'revenue per product category');
    expect(p.spec.source).toBe('shop.order_items');
    expect(p.spec.joins).toEqual([
      {
        table: 'shop.products',
        type: 'inner',
        on: [
          {
            left: { table: 'shop.order_items', column: 'product_id' },
            right: { table: 'shop.products', column: 'product_id' },
          },
        ],
      },
    ]);
    expect(p.spec.group_by).toEqual([
      { column: { table: 'shop.products', column: 'category' }, alias: 'category' },
    ]);
    // Revenue of a line is its unit price times its quantity.
    expect(p.spec.aggregates).toEqual([
      {
        fn: 'sum',
        expression: {
          op: 'multiply',
          left: { table: 'shop.order_items', column: 'quantity' },
          right: { table: 'shop.order_items', column: 'unit_price' },
        },
        alias: 'sum_revenue',
      },
    ]);

    const rating = await plan(shop, 'average rating by product category');
    expect(rating.spec.source).toBe('shop.reviews');
    expect(rating.spec.joins.map((j) => j.table)).toEqual(['shop.products']);

    const customers = await plan(shop, 'top five customers by number of orders');
    expect(customers.spec.source).toBe('shop.orders');
    expect(customers.spec.group_by.map((g) => g.column)).toEqual([
      { table: 'shop.customers', column: 'full_name' },
      { table: 'shop.customers', column: 'customer_id' },
    ]);
    // Ties broken by the customer's key first, then the name.
    expect(customers.spec.order_by).toEqual([
      { ref: 'count', direction: 'desc' },
      { ref: 'customer_id', direction: 'asc' },
      { ref: 'full_name', direction: 'asc' },
    ]);
    expect(customers.spec.limit).toBe(5);
  });

  it('does not join when the source cannot', async () => {
    const error = await offlinePlanner
      .plan({
        question: 'average rating by product category',
        schema: withJoins(shop, false),
        history: [],
        chartRequested: false,
        now,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningError);
    expect((error as PlanningError).message).toMatch(/joins are not available/);
  });

  it('follows up: just for X, as a line graph, now by week, what about 2023, top N instead, just the X, also by', async () => {
    const plans = await conversation(shop, [
      'orders by month',
      'just for France',
      'as a line graph',
      'now by week',
      'what about 2023?',
    ]);
    const [, france, line, week, y2023] = plans;
    expect(france!.spec.filter).toEqual({
      op: 'eq',
      column: { column: 'shipping_country' },
      value: 'France',
    });
    expect(line!.chart_type).toBe('line');
    expect(line!.spec).toEqual(france!.spec);
    expect(week!.spec.group_by).toEqual([
      { column: { column: 'ordered_at' }, time_bucket: 'week', alias: 'week' },
    ]);
    expect(week!.chart_type).toBe('line');
    expect(y2023!.spec.filter).toEqual({
      op: 'and',
      conditions: [
        { op: 'eq', column: { column: 'shipping_country' }, value: 'France' },
        {
          op: 'time_range',
          column: { column: 'ordered_at' },
          range: { kind: 'absolute', from: '2023-01-01T00:00:00.000Z', to: '2024-01-01T00:00:00.000Z' },
        },
      ],
    });

    const [, top3, web, also] = await conversation(shop, [
      'orders per status last 30 days',
      'top three instead',
      'just the web channel',
      'also by channel',
    ]);
    expect(top3!.spec.limit).toBe(3);
    expect(web!.spec.filter).toMatchObject({
      op: 'and',
      conditions: [
        { op: 'time_range' },
        { op: 'eq', column: { column: 'channel' }, value: 'web' },
        { op: 'is_not_null', column: { column: 'status' } },
      ],
    });
    expect(also!.spec.group_by.map((g) => g.alias)).toEqual(['status', 'channel']);
  });

  it('a new complete question after a conversation starts afresh', async () => {
    const [, second] = await conversation(shop, ['orders per status', 'average rating of reviews by month']);
    expect(second!.spec.source).toBe('shop.reviews');
    expect(second!.notes.join(' ')).not.toMatch(/Follow-up/);
  });

  it('rejects what it cannot map', async () => {
    for (const question of [
      'churn by month',
      'what is the weather in Paris tomorrow?',
      'average sentiment of reviews',
    ]) {
      const error = await offlinePlanner
        .plan({ question, schema: shop, history: [], chartRequested: false, now })
        .catch((e: unknown) => e);
      expect(error, question).toBeInstanceOf(PlanningError);
      expect((error as PlanningError).message).toMatch(/I can count, sum, average/);
      expect((error as PlanningError).message).toMatch(/orders \(/);
    }
  });

  it('understands null checks', async () => {
    expect((await plan(shop, 'how many of the customers have no email?')).spec.filter).toEqual({
      op: 'is_null',
      column: { column: 'email' },
    });
    const coupons = await plan(shop, 'orders where coupon code is not null by channel');
    expect(coupons.spec.filter).toEqual({ op: 'is_not_null', column: { column: 'coupon_code' } });
    expect(coupons.spec.group_by.map((g) => g.alias)).toEqual(['channel']);
  });

  it('is cancellable', async () => {
    const ac = new AbortController();
    ac.abort();
    const error = await offlinePlanner
      .plan({
        question: 'orders per status',
        schema: shop,
        history: [],
        chartRequested: false,
        now,
        signal: ac.signal,
      })
      .catch((e: unknown) => e);
    expect((error as PlanningError).type).toBe('cancelled');
  });
});

describe('the lexicon of a schema', () => {
  it('is built once for equal content: a run building its schema afresh plans from the same lexicon, the same way', async () => {
    const first = buildLexicon(shopSchema());
    expect(buildLexicon(shopSchema())).toBe(first);
    const changed = shopSchema();
    changed.tables[0]!.columns[0]!.description = 'a description that changes the content';
    expect(buildLexicon(changed)).not.toBe(first);
    const once = await plan(shopSchema(), 'how many orders per status');
    const again = await plan(structuredClone(shopSchema()), 'how many orders per status');
    expect(again.spec).toEqual(once.spec);
  });
});
