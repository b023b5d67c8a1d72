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
    table: z.string().min(1).optional().describe('Qualified table (e.g. `shop.orders`); needed only when the spec joins tables.'),
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

export type Condition =
  | { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; column: ColumnRef; value: string | number | boolean }
  | { op: 'in' | 'not_in'; column: ColumnRef; values: (string | number | boolean)[] }
  | { op: 'contains' | 'starts_with' | 'ends_with'; column: ColumnRef; value: string }
  | { op: 'is_null' | 'is_not_null'; column: ColumnRef }
  | { op: 'time_range'; column: ColumnRef; range: TimeRange }
  | { op: 'and' | 'or'; conditions: Condition[] }
  | { op: 'not'; condition: Condition };

export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ op: z.enum(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']), column: columnRefSchema, value: scalar }),
    z.strictObject({ op: z.enum(['in', 'not_in']), column: columnRefSchema, values: z.array(scalar).min(1).max(500) }),
    z.strictObject({ op: z.enum(['contains', 'starts_with', 'ends_with']), column: columnRefSchema, value: z.string() }),
    z.strictObject({ op: z.enum(['is_null', 'is_not_null']), column: columnRefSchema }),
    z.strictObject({ op: z.literal('time_range'), column: columnRefSchema, range: timeRangeSchema }),
    z.strictObject({ op: z.enum(['and', 'or']), conditions: z.array(conditionSchema).min(1).max(50) }),
    z.strictObject({ op: z.literal('not'), condition: conditionSchema }),
  ]),
) as z.ZodType<Condition>;

export const aggregateFunctions = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'median'] as const;
export type AggregateFunction = (typeof aggregateFunctions)[number];

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
    aggregates: z
      .array(
        z.strictObject({
          fn: z.enum(aggregateFunctions),
          /** Absent for count(*). */
          column: columnRefSchema.optional(),
          alias: z.string().min(1).max(64),
        }),
      )
      .max(10)
      .default([]),
    order_by: z
      .array(z.strictObject({ ref: z.string().min(1).describe('An alias of a group or aggregate, or a column name.'), direction: z.enum(['asc', 'desc']) }))
      .max(4)
      .default([]),
    limit: z.number().int().min(1).max(5000).nullable().default(null),
  })
  .meta({ id: 'QuerySpec' });
export type QuerySpec = z.infer<typeof querySpecSchema>;
export type QuerySpecInput = z.input<typeof querySpecSchema>;
