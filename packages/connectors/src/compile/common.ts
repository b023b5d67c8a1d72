import type { AggregateFunction, QuerySpec, TimeRange, TimeUnit } from '@aqs/contracts';

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
};

/** Absolute range bounds as ISO strings, validated. */
export function absoluteBounds(range: Extract<TimeRange, { kind: 'absolute' }>): { from?: string; to?: string } {
  const out: { from?: string; to?: string } = {};
  for (const key of ['from', 'to'] as const) {
    const value = range[key];
    if (value === undefined) continue;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw new CompileError(`The time range's ${key} "${value}" is not an ISO-8601 date.`);
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
