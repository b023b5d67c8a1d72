import {
  soleTopLevelEqualities,
  type Aggregate,
  type ColumnRef,
  type Condition,
  type QuerySpec,
  type TimeRange,
  type TimeUnit,
} from '@aqs/contracts';
import { printName, printString } from '@aqs/esql';
import {
  CompileError,
  absoluteBounds,
  applyOptions,
  checkAggregate,
  isAggregating,
  outputAliases,
  type CompileOptions,
} from './common.ts';

const FUNCTION: Record<string, string> = {
  count: 'COUNT',
  count_distinct: 'COUNT_DISTINCT',
  sum: 'SUM',
  avg: 'AVG',
  min: 'MIN',
  max: 'MAX',
  median: 'MEDIAN',
  percentile: 'PERCENTILE',
};

const ELAPSED_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
const ARITHMETIC = { add: '+', subtract: '-', multiply: '*', divide: '/' } as const;

/** The per-row value an aggregate reads, as an ES|QL expression (null for count(*)). */
function valueOf(a: Aggregate): string | null {
  const e = a.expression;
  if (!e) return a.column ? column(a.column) : null;
  if (e.op === 'elapsed')
    return `DATE_DIFF("millisecond", ${column(e.from)}, ${column(e.to)}) / ${ELAPSED_SECONDS[e.unit] * 1000}.0`;
  if (e.op === 'scale') return `${column(e.column)} * ${literal(e.factor)}`;
  if (e.op === 'divide') return `TO_DOUBLE(${column(e.left)}) / ${column(e.right)}`;
  return `${column(e.left)} ${ARITHMETIC[e.op]} ${column(e.right)}`;
}

// ES|QL has no quarter timespan; three months is the same bucket.
const SPAN: Record<TimeUnit, string> = {
  minute: '1 minute',
  hour: '1 hour',
  day: '1 day',
  week: '1 week',
  month: '1 month',
  quarter: '3 months',
  year: '1 year',
};

function column(ref: ColumnRef): string {
  if (ref.table)
    throw new CompileError('ES|QL queries read one index pattern: columns cannot name another table.');
  return printName(ref.column);
}

function literal(value: string | number | boolean): string {
  if (typeof value === 'string') return printString(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CompileError(`${value} is not a finite number.`);
    return String(value);
  }
  return value ? 'true' : 'false';
}

function wildcardEscape(value: string): string {
  // LIKE patterns use * and ? as wildcards; a literal one is escaped with a backslash.
  return value.replace(/[\\*?]/g, (c) => `\\${c}`);
}

function timeCondition(col: string, range: TimeRange): string {
  if (range.kind === 'relative') {
    const amount = range.unit === 'quarter' ? `${range.count * 3} months` : `${range.count} ${range.unit}s`;
    if (range.calendar) {
      // "this month" (count 1) starts at the current month's boundary; "last 3 months" calendar-aligned starts count-1 units before it.
      const start = `DATE_TRUNC(${SPAN[range.unit]}, NOW())`;
      if (range.count === 1) return `${col} >= ${start}`;
      const back =
        range.unit === 'quarter' ? `${(range.count - 1) * 3} months` : `${range.count - 1} ${range.unit}s`;
      return `${col} >= ${start} - ${back}`;
    }
    return `${col} >= NOW() - ${amount}`;
  }
  const { from, to } = absoluteBounds(range);
  const parts: string[] = [];
  if (from) parts.push(`${col} >= TO_DATETIME(${printString(from)})`);
  if (to) parts.push(`${col} < TO_DATETIME(${printString(to)})`);
  return parts.join(' AND ');
}

function condition(c: Condition, nested = false): string {
  switch (c.op) {
    case 'eq':
      return `${column(c.column)} == ${literal(c.value)}`;
    case 'neq':
      return `${column(c.column)} != ${literal(c.value)}`;
    case 'gt':
      return `${column(c.column)} > ${literal(c.value)}`;
    case 'gte':
      return `${column(c.column)} >= ${literal(c.value)}`;
    case 'lt':
      return `${column(c.column)} < ${literal(c.value)}`;
    case 'lte':
      return `${column(c.column)} <= ${literal(c.value)}`;
    case 'in':
      return `${column(c.column)} IN (${c.values.map(literal).join(', ')})`;
    case 'not_in':
      return `${column(c.column)} NOT IN (${c.values.map(literal).join(', ')})`;
    case 'contains':
      return `TO_LOWER(${column(c.column)}) LIKE ${printString(`*${wildcardEscape(c.value.toLowerCase())}*`)}`;
    case 'starts_with':
      return `STARTS_WITH(${column(c.column)}, ${printString(c.value)})`;
    case 'ends_with':
      return `ENDS_WITH(${column(c.column)}, ${printString(c.value)})`;
    case 'is_null':
      return `${column(c.column)} IS NULL`;
    case 'is_not_null':
      return `${column(c.column)} IS NOT NULL`;
    case 'time_range':
      return wrap(timeCondition(column(c.column), c.range), nested);
    case 'and':
    case 'or': {
      const joined = c.conditions.map((x) => condition(x, true)).join(` ${c.op.toUpperCase()} `);
      return c.conditions.length > 1 ? wrap(joined, nested) : joined;
    }
    case 'not':
      return `NOT (${condition(c.condition)})`;
    case 'exists':
    case 'not_exists':
      throw new CompileError(
        'ES|QL cannot test for related rows in another index; ask about one index at a time.',
      );
  }
}

function wrap(text: string, nested: boolean): string {
  return nested && /\s(AND|OR)\s/.test(text) ? `(${text})` : text;
}

function referencedColumns(c: Condition | null, into: Set<string>): Set<string> {
  if (!c) return into;
  if ('conditions' in c) c.conditions.forEach((x) => referencedColumns(x, into));
  else if ('condition' in c) referencedColumns(c.condition, into);
  else if ('column' in c) into.add(c.column.column);
  return into;
}

function sourceName(source: string): string {
  if (!/^[A-Za-z0-9_.*\-+]+$/.test(source))
    throw new CompileError(`"${source}" is not an index name the query can read.`);
  return source;
}

/**
 * The probe for fields that hold several values in some document: the largest `MV_COUNT` of each
 * field over the source's first `sample` documents, as `max0`, `max1`... in the fields' order.
 */
export function compileMultiValuedProbe(source: string, fields: readonly string[], sample: number): string {
  return [
    `FROM ${sourceName(source)}`,
    `LIMIT ${sample}`,
    `EVAL ${fields.map((name, i) => `mv${i} = MV_COUNT(${column({ column: name })})`).join(', ')}`,
    `STATS ${fields.map((_, i) => `max${i} = MAX(mv${i})`).join(', ')}`,
  ].join(' | ');
}

/**
 * `labels == "canary"` over a field with several values in some documents: ES|QL compares only single
 * values, so the field is expanded first (`MV_EXPAND labels`, one row per value) and each document
 * whose labels include the value is kept once. Only one equality per such field, as a top-level
 * condition, reads right that way; any other comparison on it is refused.
 */
function expansions(spec: QuerySpec, multiValued: readonly string[]): string[] {
  if (multiValued.length === 0) return [];
  const expandable = new Set<Condition>(soleTopLevelEqualities(spec.filter));
  const expanded = [...expandable].flatMap((c) =>
    'column' in c && multiValued.includes(c.column.column) ? [c.column.column] : [],
  );
  const compared = new Set<string>();
  const visit = (c: Condition): void => {
    if (c.op === 'and' || c.op === 'or') c.conditions.forEach(visit);
    else if (c.op === 'not') visit(c.condition);
    else if (
      'column' in c &&
      c.op !== 'is_null' &&
      c.op !== 'is_not_null' &&
      c.op !== 'time_range' &&
      multiValued.includes(c.column.column) &&
      !expandable.has(c)
    )
      compared.add(c.column.column);
  };
  if (spec.filter) visit(spec.filter);
  for (const a of spec.aggregates) if (a.where) visit(a.where);
  const first = [...compared][0];
  if (first)
    throw new CompileError(
      `${first} holds several values in some documents, which ES|QL comparisons skip; ask for one of its values at a time, or group by ${first}, which counts each value.`,
    );
  return expanded.map((name) => `MV_EXPAND ${column({ column: name })}`);
}

/**
 * Compiles a QuerySpec to ES|QL in the spec's shape: FROM | KEEP | WHERE | STATS ... BY | SORT | LIMIT.
 * Groups keep their dot-notation field names (`BY geo.country_name`); only time buckets are computed
 * by an EVAL before STATS, because grouping by an expression needs a newer cluster than 8.11. The
 * connector's validator parses the result and applies the row cap.
 */
export function compileEsql(input: QuerySpec, options: CompileOptions = {}): string {
  const spec = applyOptions(input, options);
  if (spec.joins.length > 0)
    throw new CompileError('Joins are not compiled to ES|QL; ask about one index at a time.');
  if (spec.limit_per_group)
    throw new CompileError(
      'ES|QL cannot keep the top rows of each group in one query; ask for one group at a time.',
    );
  if (!isAggregating(spec) && spec.having.length > 0)
    throw new CompileError('having needs aggregates or groups.');
  const lines = [
    `FROM ${sourceName(spec.source)}`,
    ...expansions(spec, options.multiValued?.[spec.source] ?? []),
  ];
  if (isAggregating(spec)) {
    if (spec.filter) lines.push(`WHERE ${condition(spec.filter)}`);
    const evals: string[] = [];
    const groups = spec.group_by.map((g) => {
      if (g.time_bucket) {
        evals.push(`${printName(g.alias)} = DATE_TRUNC(${SPAN[g.time_bucket]}, ${column(g.column)})`);
        return printName(g.alias);
      }
      // A plain column groups under its own (dot-notation) name, as ES|QL names it.
      return column(g.column);
    });
    // Groups without aggregates list the distinct values of the groups (`STATS BY x`).
    // A measure over some rows only (`where`) reads a CASE that is null elsewhere; a share divides it by
    // the same measure over all rows, computed beside it and dropped.
    const ratios: string[] = [];
    const totals: string[] = [];
    const aggregates = spec.aggregates.flatMap((a, i) => {
      checkAggregate(a);
      if (a.share && !a.where)
        throw new CompileError(
          'ES|QL cannot compute a share of the total in one query; ask for the totals per group instead.',
        );
      let value = valueOf(a);
      if (value !== null && a.expression) {
        const name = `_value${i}`;
        evals.push(`${printName(name)} = ${value}`);
        value = printName(name);
      }
      const call = (v: string | null) =>
        `${FUNCTION[a.fn]}(${v === null ? '*' : a.fn === 'percentile' ? `${v}, ${a.percentile}` : v})`;
      if (!a.where) return [`${printName(a.alias)} = ${call(value)}`];
      const part = `_where${i}`;
      evals.push(`${printName(part)} = CASE(${condition(a.where)}, ${value ?? '1'}, null)`);
      const out = [`${printName(a.alias)} = ${call(printName(part))}`];
      if (a.share) {
        const total = `_total${i}`;
        out.push(`${printName(total)} = ${call(value)}`);
        ratios.push(`${printName(a.alias)} = 100.0 * ${printName(a.alias)} / ${printName(total)}`);
        totals.push(printName(total));
      }
      return out;
    });
    if (evals.length > 0) lines.push(`EVAL ${evals.join(', ')}`);
    lines.push(
      `STATS${aggregates.length > 0 ? ` ${aggregates.join(', ')}` : ''}${groups.length > 0 ? ` BY ${groups.join(', ')}` : ''}`,
    );
    if (ratios.length > 0) lines.push(`EVAL ${ratios.join(', ')}`, `DROP ${totals.join(', ')}`);
    if (spec.having.length > 0) {
      const known = new Set(outputAliases(spec));
      const ops = { eq: '==', neq: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
      for (const h of spec.having)
        if (!known.has(h.ref))
          throw new CompileError(`having names ${h.ref}, which is not an aggregate alias.`);
      lines.push(
        `WHERE ${spec.having.map((h) => `${printName(h.ref)} ${ops[h.op]} ${literal(h.value)}`).join(' AND ')}`,
      );
    }
  } else {
    const kept = spec.columns.map(column);
    const whereUsesOnlyKept = [...referencedColumns(spec.filter, new Set())].every((c) =>
      spec.columns.some((k) => k.column === c),
    );
    const sortUsesOnlyKept = spec.order_by.every((o) => spec.columns.some((k) => k.column === o.ref));
    if (kept.length > 0 && whereUsesOnlyKept && sortUsesOnlyKept) {
      lines.push(`KEEP ${kept.join(', ')}`);
      if (spec.filter) lines.push(`WHERE ${condition(spec.filter)}`);
    } else {
      if (spec.filter) lines.push(`WHERE ${condition(spec.filter)}`);
      if (kept.length > 0 && sortUsesOnlyKept) lines.push(`KEEP ${kept.join(', ')}`);
    }
  }
  if (spec.order_by.length > 0) {
    // A sort on a plain group's alias sorts on the column that group is named by.
    const groupColumn = new Map(
      spec.group_by.filter((g) => !g.time_bucket).map((g) => [g.alias, g.column.column]),
    );
    lines.push(
      `SORT ${spec.order_by.map((o) => `${printName(groupColumn.get(o.ref) ?? o.ref)} ${o.direction.toUpperCase()}`).join(', ')}`,
    );
  }
  if (
    !isAggregating(spec) &&
    spec.columns.length > 0 &&
    !spec.order_by.every((o) => spec.columns.some((k) => k.column === o.ref))
  ) {
    lines.push(`KEEP ${spec.columns.map(column).join(', ')}`);
  }
  if (spec.limit !== null) lines.push(`LIMIT ${spec.limit}`);
  const hidden = spec.aggregates.filter((a) => a.hidden).map((a) => printName(a.alias));
  if (hidden.length > 0) lines.push(`DROP ${hidden.join(', ')}`);
  return lines.join('\n| ');
}
