import type { ColumnRef, Condition, QuerySpec, TimeRange } from '@aqs/contracts';
import { AGGREGATE_NEEDS_COLUMN, CompileError, absoluteBounds, applyOptions, definedAliases, isAggregating, type CompileOptions } from './common.ts';

export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new CompileError('Identifiers cannot contain NUL characters.');
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new CompileError('Values cannot contain NUL characters.');
  // A value with a backslash is written as an escape string (E'...', backslashes and quotes doubled),
  // which reads the same whatever the server's standard_conforming_strings says. The session pins that
  // setting too (postgres/session.ts); this keeps the compiled text safe on its own.
  if (value.includes('\\')) return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return `'${value.replace(/'/g, "''")}'`;
}

function literal(value: string | number | boolean): string {
  if (typeof value === 'string') return quoteLiteral(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CompileError(`${value} is not a finite number.`);
    return String(value);
  }
  return value ? 'TRUE' : 'FALSE';
}

/** `schema.table` -> `"schema"."table"`; a bare name stays unqualified. */
export function quoteTable(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot === -1 ? quoteIdent(qualified) : `${quoteIdent(qualified.slice(0, dot))}.${quoteIdent(qualified.slice(dot + 1))}`;
}

function tableAlias(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot === -1 ? qualified : qualified.slice(dot + 1);
}

const FUNCTION: Record<string, string> = {
  count: 'count',
  count_distinct: 'count',
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
};

/** Compiles a QuerySpec to one PostgreSQL SELECT (the validator parses it and applies the row cap). */
export function compileSql(input: QuerySpec, options: CompileOptions = {}): string {
  const spec = applyOptions(input, options);
  const tables = new Map<string, string>([[spec.source, tableAlias(spec.source)]]);
  for (const join of spec.joins) {
    const alias = tableAlias(join.table);
    if ([...tables.values()].includes(alias)) throw new CompileError(`Two joined tables are both called ${alias}; join each table once.`);
    tables.set(join.table, alias);
  }
  const col = (ref: ColumnRef): string => {
    const table = ref.table ?? spec.source;
    const alias = tables.get(table) ?? (ref.table ? undefined : tableAlias(spec.source));
    if (alias === undefined) throw new CompileError(`Column ${ref.column} names table ${ref.table}, which the query does not read.`);
    return `${quoteIdent(alias)}.${quoteIdent(ref.column)}`;
  };

  const timeCondition = (c: string, range: TimeRange): string => {
    if (range.kind === 'relative') {
      const interval = range.unit === 'quarter' ? `${range.count * 3} months` : `${range.count} ${range.unit}s`;
      if (range.calendar) {
        const unit = range.unit;
        const start = `date_trunc('${unit}', now())`;
        if (range.count === 1) return `${c} >= ${start}`;
        const back = unit === 'quarter' ? `${(range.count - 1) * 3} months` : `${range.count - 1} ${unit}s`;
        return `${c} >= ${start} - interval '${back}'`;
      }
      return `${c} >= now() - interval '${interval}'`;
    }
    const { from, to } = absoluteBounds(range);
    const parts: string[] = [];
    if (from) parts.push(`${c} >= ${quoteLiteral(from)}::timestamptz`);
    if (to) parts.push(`${c} < ${quoteLiteral(to)}::timestamptz`);
    return parts.join(' AND ');
  };

  const condition = (c: Condition): string => {
    switch (c.op) {
      case 'eq':
        return `${col(c.column)} = ${literal(c.value)}`;
      case 'neq':
        return `${col(c.column)} <> ${literal(c.value)}`;
      case 'gt':
        return `${col(c.column)} > ${literal(c.value)}`;
      case 'gte':
        return `${col(c.column)} >= ${literal(c.value)}`;
      case 'lt':
        return `${col(c.column)} < ${literal(c.value)}`;
      case 'lte':
        return `${col(c.column)} <= ${literal(c.value)}`;
      case 'in':
        return `${col(c.column)} IN (${c.values.map(literal).join(', ')})`;
      case 'not_in':
        return `${col(c.column)} NOT IN (${c.values.map(literal).join(', ')})`;
      case 'contains':
        return `${col(c.column)}::text ILIKE ${quoteLiteral(`%${escapeLike(c.value)}%`)}`;
      case 'starts_with':
        return `${col(c.column)}::text LIKE ${quoteLiteral(`${escapeLike(c.value)}%`)}`;
      case 'ends_with':
        return `${col(c.column)}::text LIKE ${quoteLiteral(`%${escapeLike(c.value)}`)}`;
      case 'is_null':
        return `${col(c.column)} IS NULL`;
      case 'is_not_null':
        return `${col(c.column)} IS NOT NULL`;
      case 'time_range':
        return `(${timeCondition(col(c.column), c.range)})`;
      case 'and':
      case 'or':
        return `(${c.conditions.map(condition).join(` ${c.op.toUpperCase()} `)})`;
      case 'not':
        return `NOT (${condition(c.condition)})`;
    }
  };

  const select: string[] = [];
  const groupBy: string[] = [];
  if (isAggregating(spec)) {
    for (const g of spec.group_by) {
      const expr = g.time_bucket ? `date_trunc('${g.time_bucket}', ${col(g.column)})` : col(g.column);
      select.push(`${expr} AS ${quoteIdent(g.alias)}`);
      groupBy.push(expr);
    }
    const aggregates = spec.aggregates.length > 0 ? spec.aggregates : [{ fn: 'count' as const, alias: 'count', column: undefined }];
    for (const a of aggregates) {
      if (AGGREGATE_NEEDS_COLUMN[a.fn] && !a.column) throw new CompileError(`${a.fn} needs a column.`);
      let expr: string;
      if (a.fn === 'median') expr = `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${col(a.column!)})`;
      else if (a.fn === 'count_distinct') expr = `count(DISTINCT ${col(a.column!)})`;
      else if (a.fn === 'count') expr = a.column ? `count(${col(a.column)})` : 'count(*)';
      else expr = `${FUNCTION[a.fn]}(${col(a.column!)})`;
      select.push(`${expr} AS ${quoteIdent(a.alias)}`);
    }
  } else if (spec.columns.length > 0) {
    for (const c of spec.columns) select.push(c.table ? `${col(c)} AS ${quoteIdent(`${tableAlias(c.table)}.${c.column}`)}` : col(c));
  } else {
    select.push(`${quoteIdent(tableAlias(spec.source))}.*`);
  }

  const lines = [`SELECT ${select.join(', ')}`, `FROM ${quoteTable(spec.source)} AS ${quoteIdent(tableAlias(spec.source))}`];
  for (const join of spec.joins) {
    const on = join.on.map((o) => `${col(o.left)} = ${col({ ...o.right, table: o.right.table ?? join.table })}`).join(' AND ');
    lines.push(`${join.type === 'left' ? 'LEFT JOIN' : 'JOIN'} ${quoteTable(join.table)} AS ${quoteIdent(tableAlias(join.table))} ON ${on}`);
  }
  if (spec.filter) lines.push(`WHERE ${condition(spec.filter)}`);
  if (groupBy.length > 0) lines.push(`GROUP BY ${groupBy.join(', ')}`);
  if (spec.order_by.length > 0) {
    const aliases = definedAliases(spec);
    lines.push(
      `ORDER BY ${spec.order_by
        .map((o) => `${aliases.has(o.ref) ? quoteIdent(o.ref) : col({ column: o.ref })} ${o.direction.toUpperCase()}${o.direction === 'desc' ? ' NULLS LAST' : ''}`)
        .join(', ')}`,
    );
  }
  if (spec.limit !== null) lines.push(`LIMIT ${spec.limit}`);
  return lines.join('\n');
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
