import { describe, expect, it } from 'vitest';
import {
  offlinePlanner,
  PlanningError,
  validateSpecAgainstSchema,
  type Plan,
  type PlannerSchema,
} from '../src/index.ts';
import { capabilitiesOf, shopSchema, weblogsSchema } from './fixtures.ts';

/**
 * The question forms beyond count/sum/group: filters on aggregates, related rows that must (not)
 * exist, percentiles, shares, top N per group, `current` rows, event nouns, and the words the planner
 * must not ignore. Phrasings here are the planner's own examples, not evaluation questions.
 */
const now = new Date('2024-06-15T12:00:00Z');
const shop = shopSchema();
const weblogs = weblogsSchema();

async function plan(schema: PlannerSchema, question: string): Promise<Plan> {
  const p = await offlinePlanner.plan({ question, schema, history: [], chartRequested: false, now });
  expect(validateSpecAgainstSchema(p.spec, schema)).toEqual([]);
  return p;
}

async function refusal(schema: PlannerSchema, question: string): Promise<PlanningError> {
  const error = await offlinePlanner
    .plan({ question, schema, history: [], chartRequested: false, now })
    .catch((e: unknown) => e);
  expect(error, question).toBeInstanceOf(PlanningError);
  return error as PlanningError;
}

describe('filters on aggregates', () => {
  it('`with at least N <rows>` counts the rows per entity and keeps the entities over N', async () => {
    const p = await plan(shop, 'products with at least 4 reviews');
    expect(p.spec.source).toBe('shop.reviews');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['product_name', 'product_id']);
    expect(p.spec.aggregates[0]).toMatchObject({ fn: 'count' });
    expect(p.spec.having).toEqual([{ ref: p.spec.aggregates[0]!.alias, op: 'gte', value: 4 }]);
  });
});

describe('related rows', () => {
  it('`never` / `no` + a related table is a not_exists along the foreign key', async () => {
    const p = await plan(shop, 'how many customers have no orders');
    expect(p.spec.source).toBe('shop.customers');
    expect(p.spec.filter).toEqual({
      op: 'not_exists',
      table: 'shop.orders',
      on: [{ left: { column: 'customer_id' }, right: { table: 'shop.orders', column: 'customer_id' } }],
    });
    const never = await plan(shop, 'products that were never reviewed');
    expect(never.spec.filter).toMatchObject({ op: 'not_exists', table: 'shop.reviews' });
    expect(never.spec.columns).toEqual([{ column: 'product_name' }]);
  });
});

describe('percentiles and shares', () => {
  it('`p90` and `95th percentile` are percentiles', async () => {
    expect((await plan(shop, 'the 95th percentile of product price')).spec.aggregates).toEqual([
      { fn: 'percentile', percentile: 95, column: { column: 'price' }, alias: 'p95_price' },
    ]);
  });

  it('a percentage of the rows said after the verb is a share of the whole', async () => {
    const p = await plan(shop, 'what percentage of orders were cancelled');
    expect(p.spec.filter).toBeNull();
    expect(p.spec.aggregates).toEqual([
      {
        fn: 'count',
        alias: 'share',
        share: true,
        where: { op: 'eq', column: { column: 'status' }, value: 'cancelled' },
      },
    ]);
  });

  it('a share by group is a share of the total', async () => {
    const p = await plan(shop, 'share of orders by channel');
    expect(p.spec.aggregates[0]).toMatchObject({ fn: 'count', share: true });
    expect(p.spec.aggregates[0]!.where).toBeUndefined();
  });
});

describe('rows that have not ended, and events', () => {
  it('`current` keeps the rows without an end date', async () => {
    expect((await plan(shop, 'how many current products')).spec.filter).toEqual({
      op: 'is_null',
      column: { column: 'discontinued_on' },
    });
  });

  it('`signups` counts the rows by the date that records them', async () => {
    const p = await plan(shop, 'signups per month');
    expect(p.spec.source).toBe('shop.customers');
    expect(p.spec.group_by).toEqual([
      { column: { column: 'signup_date' }, time_bucket: 'month', alias: 'month' },
    ]);
  });
});

describe('words that change the question are never dropped', () => {
  it('a number nothing explains is refused rather than ignored', async () => {
    await refusal(weblogs, 'requests that came back with a 999');
  });

  it('`regardless of X` leaves X out', async () => {
    expect((await plan(shop, 'number of orders regardless of channel')).spec.group_by).toEqual([]);
  });

  it('`which N ... the most` is a top N', async () => {
    const p = await plan(shop, 'which 3 countries have the most customers');
    expect(p.spec.limit).toBe(3);
    expect(p.spec.order_by).toEqual([
      { ref: 'count', direction: 'desc' },
      { ref: 'country', direction: 'asc' },
    ]);
  });

  it('a little filler is ignored; a lot, or filler with nothing understood, is refused', async () => {
    expect((await plan(shop, 'hey, roughly how many orders do we have')).spec.aggregates).toEqual([
      { fn: 'count', alias: 'count' },
    ]);
    await refusal(shop, 'honestly basically actually literally how many orders');
    await refusal(shop, 'vibes by month');
  });

  it('a refusal offers questions the planner can answer', async () => {
    const error = await refusal(shop, 'what is the carbon footprint of our deliveries');
    expect(error.suggestions.length).toBeGreaterThan(0);
    for (const s of error.suggestions) await plan(shop, s);
  });
});

describe('time between two dates of a row', () => {
  const desk: PlannerSchema = {
    capabilities: capabilitiesOf('postgres'),
    tables: [
      {
        name: 'desk.cases',
        kind: 'table',
        description: null,
        row_estimate: 100,
        primary_key: ['case_id'],
        foreign_keys: [],
        columns: [
          { name: 'case_id', type: 'integer', description: null, sample_values: [], queryable: true },
          {
            name: 'priority',
            type: 'text',
            description: null,
            sample_values: ['low', 'high'],
            queryable: true,
          },
          {
            name: 'opened_at',
            type: 'timestamp with time zone',
            description: null,
            sample_values: [],
            queryable: true,
          },
          {
            name: 'first_reply_at',
            type: 'timestamp with time zone',
            description: null,
            sample_values: [],
            queryable: true,
          },
          {
            name: 'resolved_at',
            type: 'timestamp with time zone',
            description: null,
            sample_values: [],
            queryable: true,
          },
        ],
      },
    ],
  };

  it('`median resolution time in days by priority` is the median of resolved - opened, in days', async () => {
    const p = await plan(desk, 'median resolution time in days by priority');
    expect(p.spec.aggregates).toEqual([
      {
        fn: 'median',
        expression: {
          op: 'elapsed',
          from: { column: 'opened_at' },
          to: { column: 'resolved_at' },
          unit: 'day',
        },
        alias: 'median_days_to_resolved_at',
      },
    ]);
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['priority']);
  });

  it('`time to respond` defaults to an average in hours', async () => {
    const p = await plan(desk, 'time to respond for high priority cases');
    expect(p.spec.aggregates[0]).toMatchObject({
      fn: 'avg',
      expression: { op: 'elapsed', unit: 'hour', to: { column: 'first_reply_at' } },
    });
    expect(p.spec.filter).toEqual({ op: 'eq', column: { column: 'priority' }, value: 'high' });
  });
});

describe('units and dates people say', () => {
  it('a duration shown in another unit is converted, and a compared duration too (ECS event.duration is in nanoseconds)', async () => {
    const p = await plan(weblogs, 'average event duration in ms');
    expect(p.spec.aggregates).toEqual([
      {
        fn: 'avg',
        expression: { op: 'scale', column: { column: 'event.duration' }, factor: 0.000001 },
        alias: 'avg_duration_milliseconds',
      },
    ]);
    const slow = await plan(weblogs, 'how many requests took an event duration over 2 seconds');
    expect(JSON.stringify(slow.spec.filter)).toContain('"value":2000000000');
  });

  it('thousands separators and weekdays', async () => {
    expect((await plan(shop, 'products with a price over 1,000')).spec.filter).toEqual({
      op: 'gt',
      column: { column: 'price' },
      value: 1000,
    });
    const since = await plan(shop, 'orders since monday');
    // 2024-06-15 is a Saturday: the Monday before is 2024-06-10.
    expect(since.spec.filter).toEqual({
      op: 'time_range',
      column: { column: 'ordered_at' },
      range: { kind: 'absolute', from: '2024-06-10T00:00:00.000Z' },
    });
  });
});

describe('verbs and negations people use', () => {
  it('a money verb sums the money (`how much did X pay`), `leaving out` excludes, `do not have a` is empty', async () => {
    const paid = await plan(shop, 'how much was paid by card');
    expect(paid.spec.aggregates).toMatchObject([{ fn: 'sum', column: { column: 'amount' } }]);
    expect((await plan(shop, 'orders in 2024 leaving out cancelled ones')).spec.filter).toMatchObject({
      op: 'and',
      conditions: [{ op: 'neq', column: { column: 'status' }, value: 'cancelled' }, { op: 'time_range' }],
    });
    expect((await plan(shop, "how many customers don't have an email")).spec.filter).toEqual({
      op: 'is_null',
      column: { column: 'email' },
    });
  });
});
