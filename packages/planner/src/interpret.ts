import type { Aggregate, ColumnRef, Condition, QuerySpec, TimeRange } from '@aqs/contracts';

/**
 * The reading of a QuerySpec as one plain-English sentence, built from the spec alone and never by a
 * model, so that a misreading of the question is visible at a glance:
 * "Sum of order total for orders where status is delivered and ordered at is in 2025, by month of ordered at."
 */
export function interpretSpec(spec: QuerySpec): string {
  const subject = spec.source.includes('*') ? `documents in ${spec.source}` : words(tableName(spec.source));
  const aggregating = spec.aggregates.length > 0 || spec.group_by.length > 0;
  if (spec.aggregates.length === 0 && spec.group_by.length > 0) {
    const distinct = `Distinct ${list(spec.group_by.map((g) => (g.time_bucket ? `${g.time_bucket}s of ${column(g.column)}` : column(g.column))))} of ${subject}`;
    const where = spec.filter ? ` where ${condition(spec.filter)}` : '';
    return `${distinct}${where}${spec.limit !== null ? `, first ${spec.limit}` : ''}.`;
  }
  const visible = spec.aggregates.filter((a) => !a.hidden);
  const groupsOnly = aggregating && visible.length === 0 && spec.group_by.length > 0;
  const head = groupsOnly
    ? `${list(spec.group_by.map((g) => column(g.column)))} of ${subject}`
    : aggregating
      ? list(
          (spec.aggregates.length > 0 ? visible : [{ fn: 'count', alias: 'count' } as Aggregate]).map((a) =>
            measure(a, subject),
          ),
        )
      : `${capitalise(subject)}${spec.columns.length > 0 ? ` (${spec.columns.map(column).join(', ')})` : ''}`;
  const parts = [
    aggregating && !groupsOnly && !visible.every((a) => a.fn === 'count' && !a.column && !a.expression)
      ? `${head} for ${subject}`
      : head,
  ];
  if (spec.joins.length > 0)
    parts.push(`with their ${list(spec.joins.map((j) => words(tableName(j.table))))}`);
  if (spec.filter) parts.push(`where ${condition(spec.filter)}`);
  let sentence = parts.join(' ');
  if (spec.group_by.length > 0 && !groupsOnly) {
    sentence += `, by ${list(spec.group_by.map((g) => (g.time_bucket ? `${g.time_bucket} of ${column(g.column)}` : column(g.column))))}`;
  }
  const named = (ref: string) => {
    const a = spec.aggregates.find((x) => x.alias === ref);
    return a?.hidden ? measure(a, subject) : words(ref);
  };
  if (spec.having.length > 0)
    sentence += `, keeping those where ${list(spec.having.map((h) => `${named(h.ref)} ${OPS[h.op]} ${formatNumber(h.value)}`))}`;
  const order = spec.order_by[0];
  if (spec.limit_per_group && order) {
    sentence += `, the ${spec.limit_per_group.n} ${order.direction === 'desc' ? 'highest' : 'lowest'} by ${words(order.ref)} within each ${list(spec.limit_per_group.partition_by.map(words))}`;
  } else if (order && spec.limit !== null && aggregating) {
    sentence +=
      spec.limit === 1
        ? `, the one with the ${order.direction === 'desc' ? 'highest' : 'lowest'} ${words(order.ref)}`
        : `, ${order.direction === 'desc' ? 'top' : 'bottom'} ${spec.limit} by ${words(order.ref)}`;
  } else {
    if (order)
      sentence += `, sorted by ${list(spec.order_by.map((o) => `${words(o.ref)}${o.direction === 'desc' ? ' (highest first)' : ''}`))}`;
    if (spec.limit !== null) sentence += `, first ${spec.limit}`;
  }
  return `${capitalise(sentence)}.`;
}

const OPS = { eq: 'is', neq: 'is not', gt: 'above', gte: 'at least', lt: 'below', lte: 'at most' } as const;
const ARITHMETIC = { add: 'plus', subtract: 'minus', multiply: '×', divide: 'divided by' } as const;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function tableName(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot === -1 || qualified.includes('*') ? qualified : qualified.slice(dot + 1);
}

function words(identifier: string): string {
  return identifier
    .replace(/^@/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ')
    .trim()
    .toLowerCase();
}

function column(ref: ColumnRef): string {
  return words(ref.column);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
}

function value(v: string | number | boolean): string {
  return typeof v === 'number' ? formatNumber(v) : String(v);
}

function measured(a: Aggregate): string {
  const e = a.expression;
  if (e) {
    if (e.op === 'elapsed') return `time from ${column(e.from)} to ${column(e.to)} in ${e.unit}s`;
    if (e.op === 'scale') return `${column(e.column)} × ${e.factor}`;
    return `${column(e.left)} ${ARITHMETIC[e.op]} ${column(e.right)}`;
  }
  return a.column ? column(a.column) : '';
}

function ordinal(n: number): string {
  const rest = n % 100;
  if (rest >= 11 && rest <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

function measure(a: Aggregate, subject: string): string {
  const what = measured(a);
  let text: string;
  switch (a.fn) {
    case 'count':
      text = what ? `number of ${subject} with a ${what}` : `number of ${subject}`;
      break;
    case 'count_distinct':
      text = `number of distinct ${what}`;
      break;
    case 'sum':
      text = `sum of ${what}`;
      break;
    case 'avg':
      text = `average ${what}`;
      break;
    case 'median':
      text = `median ${what}`;
      break;
    case 'percentile':
      text = `${ordinal(Math.round(a.percentile ?? 50))} percentile of ${what}`;
      break;
    case 'min':
      text = `lowest ${what}`;
      break;
    case 'max':
      text = `highest ${what}`;
      break;
  }
  if (a.where)
    return a.share
      ? `share of ${a.fn === 'count' && !what ? subject : text} where ${condition(a.where)} (%)`
      : `${text} where ${condition(a.where)}`;
  return a.share ? `${text} as a share of the total (%)` : text;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

/** "in 2025", "in March 2025", "in Q1 2025", "between 2025-01-03 and 2025-01-31", "since 2025-01-03". */
export function describeRange(range: TimeRange): string {
  if (range.kind === 'relative') {
    const unit = range.count === 1 ? range.unit : `${range.count} ${range.unit}s`;
    if (range.calendar)
      return range.count === 1
        ? `this ${range.unit}`
        : `this and the previous ${range.count - 1} ${range.unit}${range.count > 2 ? 's' : ''}`;
    return `in the last ${unit}`;
  }
  const from = range.from ? new Date(range.from) : null;
  const to = range.to ? new Date(range.to) : null;
  const midnight = (d: Date) =>
    d.getUTCHours() === 0 &&
    d.getUTCMinutes() === 0 &&
    d.getUTCSeconds() === 0 &&
    d.getUTCMilliseconds() === 0;
  if (from && to && midnight(from) && midnight(to) && from.getUTCDate() === 1 && to.getUTCDate() === 1) {
    const months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth();
    if (months === 12 && from.getUTCMonth() === 0) return `in ${from.getUTCFullYear()}`;
    if (months === 3 && from.getUTCMonth() % 3 === 0)
      return `in Q${from.getUTCMonth() / 3 + 1} ${from.getUTCFullYear()}`;
    if (months === 1) return `in ${MONTHS[from.getUTCMonth()]} ${from.getUTCFullYear()}`;
  }
  const lastDay = to
    ? midnight(to)
      ? day(new Date(to.getTime() - 86_400_000).toISOString())
      : to.toISOString()
    : null;
  if (from && to)
    return midnight(to) && lastDay === day(from.toISOString())
      ? `on ${lastDay}`
      : `between ${midnight(from) ? day(from.toISOString()) : from.toISOString()} and ${lastDay}`;
  if (from) return `since ${midnight(from) ? day(from.toISOString()) : from.toISOString()}`;
  return `before ${to && midnight(to) ? day(to.toISOString()) : (to?.toISOString() ?? '')}`;
}

function condition(c: Condition): string {
  switch (c.op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return `${column(c.column)} ${OPS[c.op]} ${value(c.value)}`;
    case 'in':
      return `${column(c.column)} is ${c.values.length === 1 ? value(c.values[0]!) : `one of ${list(c.values.map(value))}`}`;
    case 'not_in':
      return `${column(c.column)} is not ${c.values.length === 1 ? value(c.values[0]!) : `any of ${list(c.values.map(value))}`}`;
    case 'contains':
      return `${column(c.column)} contains "${c.value}"`;
    case 'starts_with':
      return `${column(c.column)} starts with "${c.value}"`;
    case 'ends_with':
      return `${column(c.column)} ends with "${c.value}"`;
    case 'is_null':
      return `${column(c.column)} is empty`;
    case 'is_not_null':
      return `${column(c.column)} is set`;
    case 'time_range':
      return `${column(c.column)} is ${describeRange(c.range)}`;
    case 'and':
      return list(c.conditions.map(condition));
    case 'or':
      return `(${c.conditions.map(condition).join(' or ')})`;
    case 'not':
      return `not (${condition(c.condition)})`;
    case 'exists':
    case 'not_exists': {
      const related = words(tableName(c.table));
      const where = c.filter ? ` where ${condition(c.filter)}` : '';
      return c.op === 'exists' ? `they have ${related}${where}` : `they have no ${related}${where}`;
    }
  }
}
