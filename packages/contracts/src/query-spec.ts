import { z } from 'zod';

/**
 * QuerySpec: the planner's dialect-neutral answer to a question. Connectors compile it to their
 * language (ES|QL: FROM | KEEP | WHERE | STATS ... BY | SORT | LIMIT; PostgreSQL: SELECT ... with
 * joins along known keys), and their validators still parse what was compiled.
 *
 * Columns are named as the schema routes name them: dot-notation for nested Elasticsearch fields
 * (`user.name`), bare column names for SQL with `table` set when the spec joins several tables.
 */
export const columnRefSchema = z
  .strictObject({
    table: z
      .string()
      .min(1)
      .optional()
      .describe('Qualified table (e.g. `shop.orders`); needed only when the spec joins tables.'),
    column: z.string().min(1),
  })
  .meta({ id: 'ColumnRef' });
export type ColumnRef = z.infer<typeof columnRefSchema>;

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const timeUnits = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type TimeUnit = (typeof timeUnits)[number];

export const timeRangeSchema = z.union([
  z.strictObject({
    kind: z.literal('relative'),
    unit: z.enum(timeUnits),
    count: z.number().int().min(1).max(10_000),
    /** `last 30 days` = the last 30 × 24 h up to now; `calendar: true` starts at the unit's boundary (this month). */
    calendar: z.boolean().default(false),
  }),
  z.strictObject({
    kind: z.literal('absolute'),
    /** Inclusive ISO-8601 start. */
    from: z.string().optional(),
    /** Exclusive ISO-8601 end. */
    to: z.string().optional(),
  }),
]);
export type TimeRange = z.infer<typeof timeRangeSchema>;

/** A subquery that must (exists) or must not (not_exists) find rows related to the outer row. */
export interface RelatedRows {
  op: 'exists' | 'not_exists';
  /** The related table (qualified for SQL). */
  table: string;
  /** How an inner row relates to the outer row: `left` names an outer column, `right` a column of `table`. */
  on: { left: ColumnRef; right: ColumnRef }[];
  /** Conditions on the related rows (columns of `table`). */
  filter?: Condition | null;
}

export type Condition =
  | { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; column: ColumnRef; value: string | number | boolean }
  | { op: 'in' | 'not_in'; column: ColumnRef; values: (string | number | boolean)[] }
  | { op: 'contains' | 'starts_with' | 'ends_with'; column: ColumnRef; value: string }
  | { op: 'is_null' | 'is_not_null'; column: ColumnRef }
  | { op: 'time_range'; column: ColumnRef; range: TimeRange }
  | { op: 'and' | 'or'; conditions: Condition[] }
  | { op: 'not'; condition: Condition }
  | RelatedRows;

export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({
      op: z.enum(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']),
      column: columnRefSchema,
      value: scalar,
    }),
    z.strictObject({
      op: z.enum(['in', 'not_in']),
      column: columnRefSchema,
      values: z.array(scalar).min(1).max(500),
    }),
    z.strictObject({
      op: z.enum(['contains', 'starts_with', 'ends_with']),
      column: columnRefSchema,
      value: z.string(),
    }),
    z.strictObject({ op: z.enum(['is_null', 'is_not_null']), column: columnRefSchema }),
    z.strictObject({ op: z.literal('time_range'), column: columnRefSchema, range: timeRangeSchema }),
    z.strictObject({ op: z.enum(['and', 'or']), conditions: z.array(conditionSchema).min(1).max(50) }),
    z.strictObject({ op: z.literal('not'), condition: conditionSchema }),
    z.strictObject({
      op: z.enum(['exists', 'not_exists']),
      table: z.string().min(1),
      on: z
        .array(z.strictObject({ left: columnRefSchema, right: columnRefSchema }))
        .min(1)
        .max(4),
      filter: conditionSchema.nullable().optional(),
    }),
  ]),
) as z.ZodType<Condition>;

export const aggregateFunctions = [
  'count',
  'count_distinct',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'percentile',
] as const;
export type AggregateFunction = (typeof aggregateFunctions)[number];

export const elapsedUnits = ['second', 'minute', 'hour', 'day'] as const;

/** A value computed per row before it is aggregated: `quantity × unit_price`, a column in another unit, or the time from one timestamp to another. */
export const measureExpressionSchema = z
  .union([
    z.strictObject({
      op: z.enum(['add', 'subtract', 'multiply', 'divide']),
      left: columnRefSchema,
      right: columnRefSchema,
    }),
    z.strictObject({
      op: z.literal('scale'),
      column: columnRefSchema,
      factor: z
        .number()
        .positive()
        .describe(
          'The column times this factor: a unit conversion (nanoseconds to milliseconds = 0.000001).',
        ),
    }),
    z.strictObject({
      op: z.literal('elapsed'),
      from: columnRefSchema,
      to: columnRefSchema,
      unit: z.enum(elapsedUnits).describe('The unit the elapsed time is expressed in (fractional).'),
    }),
  ])
  .meta({ id: 'MeasureExpression' });
export type MeasureExpression = z.infer<typeof measureExpressionSchema>;

export const comparisonOps = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;

export const aggregateSchema = z
  .strictObject({
    fn: z.enum(aggregateFunctions),
    /** Absent for count(*) and for a computed measure. */
    column: columnRefSchema.optional(),
    expression: measureExpressionSchema
      .optional()
      .describe('A per-row computed value to aggregate instead of a column.'),
    percentile: z.number().gt(0).lt(100).optional().describe('For fn `percentile`: which one (90 = p90).'),
    where: conditionSchema
      .optional()
      .describe(
        'Only rows meeting this condition count toward this measure (count of urgent tickets beside all tickets).',
      ),
    share: z
      .boolean()
      .optional()
      .describe(
        'Return the measure as a percentage: with `where`, of the same measure over all rows of its group; without, of its total over all result rows.',
      ),
    hidden: z
      .boolean()
      .optional()
      .describe(
        'Computed for `having` or `order_by` only, and left out of the result ("which customers have more than 5 orders" lists customers).',
      ),
    alias: z.string().min(1).max(64),
  })
  .superRefine((a, ctx) => {
    if (a.column && a.expression)
      ctx.addIssue({
        code: 'custom',
        message: 'An aggregate takes a column or an expression, not both.',
        path: ['expression'],
      });
    if (a.fn === 'percentile' && a.percentile === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'fn percentile needs `percentile` (e.g. 90).',
        path: ['percentile'],
      });
    if (a.fn !== 'percentile' && a.percentile !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: '`percentile` applies only to fn percentile.',
        path: ['percentile'],
      });
  })
  .meta({ id: 'Aggregate' });
export type Aggregate = z.infer<typeof aggregateSchema>;

export const querySpecSchema = z
  .strictObject({
    /** The table, view, index, alias, data stream or in-scope index pattern queried. */
    source: z.string().min(1),
    joins: z
      .array(
        z.strictObject({
          table: z.string().min(1),
          type: z.enum(['inner', 'left']).default('inner'),
          on: z.array(z.strictObject({ left: columnRefSchema, right: columnRefSchema })).min(1),
        }),
      )
      .max(4)
      .default([]),
    /** Columns listed when nothing is aggregated (ES|QL KEEP). Empty with no aggregates: the source's first columns. */
    columns: z.array(columnRefSchema).max(50).default([]),
    filter: conditionSchema.nullable().default(null),
    group_by: z
      .array(
        z.strictObject({
          column: columnRefSchema,
          time_bucket: z.enum(timeUnits).optional(),
          alias: z.string().min(1).max(64),
        }),
      )
      .max(4)
      .default([]),
    aggregates: z.array(aggregateSchema).max(10).default([]),
    /** Conditions on aggregates ("customers with more than 5 orders"): `ref` names an aggregate alias. */
    having: z
      .array(z.strictObject({ ref: z.string().min(1), op: z.enum(comparisonOps), value: z.number() }))
      .max(4)
      .default([]),
    order_by: z
      .array(
        z.strictObject({
          ref: z.string().min(1).describe('An alias of a group or aggregate, or a column name.'),
          direction: z.enum(['asc', 'desc']),
        }),
      )
      .max(4)
      .default([]),
    limit: z.number().int().min(1).max(5000).nullable().default(null),
    /** Top N per group: keep the first `n` rows (by order_by) within each combination of the `partition_by` group aliases. */
    limit_per_group: z
      .strictObject({
        n: z.number().int().min(1).max(1000),
        partition_by: z.array(z.string().min(1)).min(1).max(3),
      })
      .nullable()
      .default(null),
  })
  .meta({ id: 'QuerySpec' });
export type QuerySpec = z.infer<typeof querySpecSchema>;
export type QuerySpecInput = z.input<typeof querySpecSchema>;

/** The columns a condition reads from the queried rows (a related-rows test contributes its outer link columns). */
export function outerColumns(c: Condition): ColumnRef[] {
  if ('conditions' in c) return c.conditions.flatMap(outerColumns);
  if ('condition' in c) return outerColumns(c.condition);
  if ('on' in c) return c.on.map((o) => o.left);
  return [c.column];
}

/** The condition with each column of the queried rows replaced by `fn(ref)`; related-row columns are left as they are. */
export function mapOuterColumns(c: Condition, fn: (ref: ColumnRef) => ColumnRef): Condition {
  if ('conditions' in c) return { op: c.op, conditions: c.conditions.map((x) => mapOuterColumns(x, fn)) };
  if ('condition' in c) return { op: 'not', condition: mapOuterColumns(c.condition, fn) };
  if ('on' in c) return { ...c, on: c.on.map((o) => ({ left: fn(o.left), right: o.right })) };
  return { ...c, column: fn(c.column) };
}

/** The columns an aggregate measures: its column, or the columns of its per-row expression (not those of `where`). */
export function measuredColumns(a: Aggregate): ColumnRef[] {
  const e = a.expression;
  if (!e) return a.column ? [a.column] : [];
  if (e.op === 'elapsed') return [e.from, e.to];
  if (e.op === 'scale') return [e.column];
  return [e.left, e.right];
}

/**
 * The equalities a filter states at its top level (alone, or directly under its `and`) on a column
 * that no other top-level equality names: `labels == "canary"` in `labels == "canary" AND method ==
 * "GET"`. For an Elasticsearch field with several values per document, these are the only comparisons
 * that read right after `MV_EXPAND`, so the validator and the ES|QL compiler both go by this list.
 */
export function soleTopLevelEqualities(
  filter: Condition | null,
): Extract<Condition, { op: (typeof comparisonOps)[number] }>[] {
  const topLevel = !filter ? [] : filter.op === 'and' ? filter.conditions : [filter];
  const equalities = topLevel.filter(
    (c): c is Extract<Condition, { op: (typeof comparisonOps)[number] }> => c.op === 'eq',
  );
  return equalities.filter((c) => equalities.filter((o) => o.column.column === c.column.column).length === 1);
}
