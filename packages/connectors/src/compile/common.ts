import type { AggregateFunction, Condition, QuerySpec, TimeRange, TimeUnit } from '@aqs/contracts';

/** Thrown when a QuerySpec cannot be expressed in a dialect; the message says what to change. */
export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompileError';
  }
}

/** The aliases a spec defines (group-by and aggregates): what `order_by.ref` may name besides columns. */
export function definedAliases(spec: QuerySpec): Set<string> {
  return new Set([...spec.group_by.map((g) => g.alias), ...spec.aggregates.map((a) => a.alias)]);
}

export function isAggregating(spec: QuerySpec): boolean {
  return spec.aggregates.length > 0 || spec.group_by.length > 0;
}

export const AGGREGATE_NEEDS_COLUMN: Record<AggregateFunction, boolean> = {
  count: false,
  count_distinct: true,
  sum: true,
  avg: true,
  min: true,
  max: true,
  median: true,
  percentile: true,
};

/** The aliases of the result's columns, in order: groups, then the aggregates that are not hidden. */
export function visibleAliases(spec: QuerySpec): string[] {
  return [
    ...spec.group_by.map((g) => g.alias),
    ...spec.aggregates.filter((a) => !a.hidden).map((a) => a.alias),
  ];
}

/** The aliases of the spec's output columns, in order: groups, then aggregates. */
export function outputAliases(spec: QuerySpec): string[] {
  return [...spec.group_by.map((g) => g.alias), ...spec.aggregates.map((a) => a.alias)];
}

/** Fails with a clear message when an aggregate has neither the column nor the expression its function needs. */
export function checkAggregate(a: QuerySpec['aggregates'][number]): void {
  if (AGGREGATE_NEEDS_COLUMN[a.fn] && !a.column && !a.expression)
    throw new CompileError(`${a.fn} needs a column or an expression.`);
}

/** Absolute range bounds as ISO strings, validated. */
export function absoluteBounds(range: Extract<TimeRange, { kind: 'absolute' }>): {
  from?: string;
  to?: string;
} {
  const out: { from?: string; to?: string } = {};
  for (const key of ['from', 'to'] as const) {
    const value = range[key];
    if (value === undefined) continue;
    const date = new Date(value);
    if (Number.isNaN(date.getTime()))
      throw new CompileError(`The time range's ${key} "${value}" is not an ISO-8601 date.`);
    out[key] = date.toISOString();
  }
  if (!out.from && !out.to) throw new CompileError('An absolute time range needs a start, an end, or both.');
  return out;
}

export const UNIT_SINGULAR: Record<TimeUnit, string> = {
  minute: 'minute',
  hour: 'hour',
  day: 'day',
  week: 'week',
  month: 'month',
  quarter: 'quarter',
  year: 'year',
};

export interface CompileOptions {
  /**
   * Pins "now": relative ranges become absolute [now - n units, now) bounds instead of the engine's
   * NOW(). For reproducible runs (evaluation, tests); the service normally leaves it unset.
   */
  now?: Date;
  /**
   * Unique keys per table (qualified name -> column sets, primary key first), from the schema. They
   * tell a one-to-many join from a many-to-one, so that a measure is never summed once per joined
   * row (fan-out): without them every join is assumed to multiply rows.
   */
  uniqueKeys?: Readonly<Record<string, readonly (readonly string[])[]>>;
  /**
   * Elasticsearch: fields that hold several values in some document, per source. ES|QL comparisons
   * skip such documents, so an equality filter on one is read after `MV_EXPAND` (one row per value).
   */
  multiValued?: Readonly<Record<string, readonly string[]>>;
}

function shift(date: Date, unit: TimeUnit, amount: number): Date {
  const d = new Date(date.getTime());
  switch (unit) {
    case 'minute':
      d.setUTCMinutes(d.getUTCMinutes() - amount);
      break;
    case 'hour':
      d.setUTCHours(d.getUTCHours() - amount);
      break;
    case 'day':
      d.setUTCDate(d.getUTCDate() - amount);
      break;
    case 'week':
      d.setUTCDate(d.getUTCDate() - 7 * amount);
      break;
    case 'month':
      d.setUTCMonth(d.getUTCMonth() - amount);
      break;
    case 'quarter':
      d.setUTCMonth(d.getUTCMonth() - 3 * amount);
      break;
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() - amount);
      break;
  }
  return d;
}

/** The start of the UTC unit containing `date` (weeks start on Monday, as date_trunc does). */
export function truncate(date: Date, unit: TimeUnit): Date {
  const d = new Date(date.getTime());
  d.setUTCSeconds(0, 0);
  if (unit === 'minute') return d;
  d.setUTCMinutes(0);
  if (unit === 'hour') return d;
  d.setUTCHours(0);
  if (unit === 'day') return d;
  if (unit === 'week') {
    d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
    return d;
  }
  d.setUTCDate(1);
  if (unit === 'month') return d;
  if (unit === 'quarter') {
    d.setUTCMonth(d.getUTCMonth() - (d.getUTCMonth() % 3));
    return d;
  }
  d.setUTCMonth(0);
  return d;
}

/** A relative range as absolute bounds at a pinned `now`. */
export function pinRange(
  range: Extract<TimeRange, { kind: 'relative' }>,
  now: Date,
): Extract<TimeRange, { kind: 'absolute' }> {
  const from = range.calendar
    ? shift(truncate(now, range.unit), range.unit, range.count - 1)
    : shift(now, range.unit, range.count);
  return { kind: 'absolute', from: from.toISOString(), to: now.toISOString() };
}

function pinCondition(c: Condition, now: Date): Condition {
  if (c.op === 'time_range' && c.range.kind === 'relative') return { ...c, range: pinRange(c.range, now) };
  if (c.op === 'and' || c.op === 'or')
    return { ...c, conditions: c.conditions.map((x) => pinCondition(x, now)) };
  if (c.op === 'not') return { ...c, condition: pinCondition(c.condition, now) };
  if ((c.op === 'exists' || c.op === 'not_exists') && c.filter)
    return { ...c, filter: pinCondition(c.filter, now) };
  return c;
}

/** The spec with its relative time ranges pinned to `options.now`, when given. */
export function applyOptions(spec: QuerySpec, options: CompileOptions): QuerySpec {
  const now = options.now;
  if (!now) return spec;
  return {
    ...spec,
    filter: spec.filter ? pinCondition(spec.filter, now) : null,
    aggregates: spec.aggregates.map((a) => (a.where ? { ...a, where: pinCondition(a.where, now) } : a)),
  };
}
