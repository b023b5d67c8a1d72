import {
  measuredColumns,
  type TimeUnit,
  type Aggregate,
  type ColumnRef,
  type Condition,
  type MeasureExpression,
  type QuerySpec,
  type TimeRange,
} from '@aqs/contracts';
import {
  CompileError,
  absoluteBounds,
  applyOptions,
  checkAggregate,
  definedAliases,
  isAggregating,
  outputAliases,
  visibleAliases,
  type CompileOptions,
} from './common.ts';

/**
 * What differs between the SQL engines the compiler writes for: quoting, literals, time arithmetic,
 * case-insensitive matching, filtered aggregates and ordering of NULLs. Everything else (the join
 * graph, the grains, the wrapping for shares, having and top N) is shared.
 */
export interface SqlFlavour {
  /** As messages name it. */
  engine: string;
  quoteIdent(name: string): string;
  quoteLiteral(value: string): string;
  /** An instant (ISO string, UTC) as the engine compares it with a date column. */
  instant(iso: string): string;
  now: string;
  /** `expr` moved back by `count` units. */
  minus(expr: string, count: number, unit: TimeUnit): string;
  /** The start of the unit holding `expr` (weeks start on Monday). */
  truncate(unit: TimeUnit, expr: string): string;
  /** Case-insensitive match of the column's text against a LIKE pattern built with `likeEscape`. */
  ilike(expr: string, pattern: string): string;
  /** Case-sensitive match of the column's text against a LIKE pattern. */
  like(expr: string, pattern: string): string;
  /** The character that escapes `%` and `_` (and itself) in a LIKE pattern. */
  likeEscape: string;
  elapsedSeconds(from: string, to: string): string;
  /** Division that keeps decimals (and NULL on a zero divisor). */
  divide(left: string, right: string): string;
  /** An aggregate (`render` writes it over a value; null: over rows) over the rows meeting `where` only. */
  filtered(render: (value: string | null) => string, value: string | null, where: string): string;
  /** `percentile_cont(p)` when the engine has one; null when it has not. */
  percentile(fraction: number, value: string | null): string | null;
  /** Equality that also matches NULL with NULL. */
  sameGroup(left: string, right: string): string;
  /** ORDER BY terms: descending puts NULLs last, and so does ascending (PostgreSQL's default). */
  order(expr: string, direction: 'asc' | 'desc'): string;
  /**
   * Output aliases are sorted from an outer query: the engine cannot use an alias inside an ORDER BY
   * expression (`alias IS NULL`) when it names an aggregate, or a column of a joined table as well.
   */
  sortsOutputsOutside: boolean;
}

function plainLiteral(value: string): string {
  if (value.includes('\0')) throw new CompileError('Values cannot contain NUL characters.');
  return `'${value.replace(/'/g, "''")}'`;
}

const INTERVAL_UNIT: Record<Exclude<TimeUnit, 'quarter'>, string> = {
  minute: 'MINUTE',
  hour: 'HOUR',
  day: 'DAY',
  week: 'WEEK',
  month: 'MONTH',
  year: 'YEAR',
};

export const POSTGRES_SQL: SqlFlavour = {
  engine: 'PostgreSQL',
  quoteIdent(name) {
    if (name.includes('\0')) throw new CompileError('Identifiers cannot contain NUL characters.');
    return `"${name.replace(/"/g, '""')}"`;
  },
  quoteLiteral(value) {
    // A value with a backslash is written as an escape string (E'...', backslashes and quotes doubled),
    // which reads the same whatever the server's standard_conforming_strings says. The session pins that
    // setting too (postgres/session.ts); this keeps the compiled text safe on its own.
    if (value.includes('\\') && !value.includes('\0'))
      return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
    return plainLiteral(value);
  },
  instant: (iso) => `${plainLiteral(iso)}::timestamptz`,
  now: 'now()',
  minus: (expr, count, unit) =>
    `${expr} - interval '${unit === 'quarter' ? `${count * 3} months` : `${count} ${unit}s`}'`,
  truncate: (unit, expr) => `date_trunc('${unit}', ${expr})`,
  ilike: (expr, pattern) => `${expr}::text ILIKE ${pattern}`,
  like: (expr, pattern) => `${expr}::text LIKE ${pattern}`,
  likeEscape: '\\',
  elapsedSeconds: (from, to) => `EXTRACT(EPOCH FROM (${to}::timestamptz - ${from}::timestamptz))`,
  divide: (left, right) => `(${left}::numeric / NULLIF(${right}, 0))`,
  filtered: (render, value, where) => `${render(value)} FILTER (WHERE ${where})`,
  percentile: (fraction, value) => `percentile_cont(${fraction}) WITHIN GROUP (ORDER BY ${value})`,
  sameGroup: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  order: (expr, direction) => (direction === 'desc' ? `${expr} DESC NULLS LAST` : `${expr} ASC`),
  sortsOutputsOutside: false,
};

/**
 * MySQL 8 and MariaDB 10.5+. The session pins NO_BACKSLASH_ESCAPES and the validator refuses any
 * backslash, so a value holding one is spelled with CHAR(92) rather than inside a literal.
 */
export const MYSQL_SQL: SqlFlavour = {
  engine: 'MySQL',
  quoteIdent(name) {
    if (name.includes('\0')) throw new CompileError('Identifiers cannot contain NUL characters.');
    if (name.includes('\\'))
      throw new CompileError(`The name ${name} holds a backslash, which MySQL queries here cannot carry.`);
    return `\`${name.replace(/`/g, '``')}\``;
  },
  quoteLiteral(value) {
    if (!value.includes('\\')) return plainLiteral(value);
    const parts = value.split('\\').map((part) => (part === '' ? null : plainLiteral(part)));
    return `CONCAT(${parts.flatMap((part, i) => [...(i > 0 ? ['CHAR(92)'] : []), ...(part ? [part] : [])]).join(', ')})`;
  },
  instant: (iso) => `CAST(${plainLiteral(iso.replace('T', ' ').replace(/Z$/, ''))} AS DATETIME(3))`,
  now: 'NOW()',
  // The validator's grammar has no INTERVAL ... QUARTER: a quarter is three months.
  minus: (expr, count, unit) =>
    unit === 'quarter'
      ? `${expr} - INTERVAL ${count * 3} MONTH`
      : `${expr} - INTERVAL ${count} ${INTERVAL_UNIT[unit]}`,
  truncate(unit, expr) {
    switch (unit) {
      case 'minute':
        return `CAST(DATE_FORMAT(${expr}, '%Y-%m-%d %H:%i:00') AS DATETIME)`;
      case 'hour':
        return `CAST(DATE_FORMAT(${expr}, '%Y-%m-%d %H:00:00') AS DATETIME)`;
      case 'day':
        return `CAST(DATE(${expr}) AS DATETIME)`;
      case 'week':
        return `CAST(DATE(${expr}) - INTERVAL WEEKDAY(${expr}) DAY AS DATETIME)`;
      case 'month':
        return `CAST(DATE_FORMAT(${expr}, '%Y-%m-01') AS DATETIME)`;
      case 'quarter':
        return `CAST(MAKEDATE(YEAR(${expr}), 1) + INTERVAL QUARTER(${expr}) * 3 - 3 MONTH AS DATETIME)`;
      case 'year':
        return `CAST(MAKEDATE(YEAR(${expr}), 1) AS DATETIME)`;
    }
  },
  ilike: (expr, pattern) => `LOWER(CAST(${expr} AS CHAR)) LIKE LOWER(${pattern}) ESCAPE '!'`,
  like: (expr, pattern) => `CAST(${expr} AS BINARY) LIKE CAST(${pattern} AS BINARY) ESCAPE '!'`,
  likeEscape: '!',
  elapsedSeconds: (from, to) => `(TIMESTAMPDIFF(MICROSECOND, ${from}, ${to}) / 1000000.0)`,
  divide: (left, right) => `(${left} / NULLIF(${right}, 0))`,
  filtered: (render, value, where) => render(`CASE WHEN ${where} THEN ${value ?? 1} END`),
  percentile: () => null,
  sameGroup: (left, right) => `(${left} = ${right} OR (${left} IS NULL AND ${right} IS NULL))`,
  order: (expr, direction) => (direction === 'desc' ? `${expr} DESC` : `${expr} IS NULL, ${expr} ASC`),
  sortsOutputsOutside: true,
};

function literalOf(value: string | number | boolean, f: SqlFlavour): string {
  if (typeof value === 'string') return f.quoteLiteral(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CompileError(`${value} is not a finite number.`);
    return String(value);
  }
  return value ? 'TRUE' : 'FALSE';
}

/** `schema.table` -> `"schema"."table"`; a bare name stays unqualified. */
export function quoteTable(qualified: string, f: SqlFlavour = POSTGRES_SQL): string {
  const dot = qualified.indexOf('.');
  return dot === -1
    ? f.quoteIdent(qualified)
    : `${f.quoteIdent(qualified.slice(0, dot))}.${f.quoteIdent(qualified.slice(dot + 1))}`;
}

export const quoteIdent = (name: string): string => POSTGRES_SQL.quoteIdent(name);

function tableAlias(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot === -1 ? qualified : qualified.slice(dot + 1);
}

function likePattern(value: string, f: SqlFlavour, before: string, after: string): string {
  const special = new Set(['%', '_', f.likeEscape]);
  const escaped = [...value].map((c) => (special.has(c) ? `${f.likeEscape}${c}` : c)).join('');
  return f.quoteLiteral(`${before}${escaped}${after}`);
}

const SECONDS: Record<Extract<MeasureExpression, { op: 'elapsed' }>['unit'], number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
};
const ARITHMETIC = { add: '+', subtract: '-', multiply: '*' } as const;

/** Which table each alias in a FROM clause stands for; an `exists` subquery opens an inner scope. */
class Scope {
  constructor(
    readonly f: SqlFlavour,
    private readonly aliases: ReadonlyMap<string, string>,
    private readonly defaultTable: string,
    private readonly outer: Scope | null = null,
  ) {}

  column(ref: ColumnRef): string {
    const alias = this.aliases.get(ref.table ?? this.defaultTable);
    if (alias !== undefined) return `${this.f.quoteIdent(alias)}.${this.f.quoteIdent(ref.column)}`;
    if (this.outer) return this.outer.column(ref);
    throw new CompileError(`Column ${ref.column} names table ${ref.table}, which the query does not read.`);
  }

  outerScope(): Scope {
    if (!this.outer) throw new CompileError('A related-rows condition has no outer query.');
    return this.outer;
  }

  allAliases(): Set<string> {
    const names = new Set(this.aliases.values());
    if (this.outer) for (const a of this.outer.allAliases()) names.add(a);
    return names;
  }

  inner(table: string): Scope {
    const taken = this.allAliases();
    let alias = `${tableAlias(table)}_related`;
    for (let i = 2; taken.has(alias); i++) alias = `${tableAlias(table)}_related${i}`;
    return new Scope(this.f, new Map([[table, alias]]), table, this);
  }

  aliasOf(table: string): string {
    const alias = this.aliases.get(table);
    if (alias === undefined) throw new CompileError(`The query does not read ${table}.`);
    return alias;
  }
}

function timeCondition(c: string, range: TimeRange, f: SqlFlavour): string {
  if (range.kind === 'relative') {
    if (range.calendar) {
      const start = f.truncate(range.unit, f.now);
      if (range.count === 1) return `${c} >= ${start}`;
      return `${c} >= ${f.minus(start, range.count - 1, range.unit)}`;
    }
    return `${c} >= ${f.minus(f.now, range.count, range.unit)}`;
  }
  const { from, to } = absoluteBounds(range);
  const parts: string[] = [];
  if (from) parts.push(`${c} >= ${f.instant(from)}`);
  if (to) parts.push(`${c} < ${f.instant(to)}`);
  return parts.join(' AND ');
}

function condition(c: Condition, scope: Scope): string {
  const f = scope.f;
  const col = (ref: ColumnRef) => scope.column(ref);
  const literal = (value: string | number | boolean) => literalOf(value, f);
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
      return f.ilike(col(c.column), likePattern(c.value, f, '%', '%'));
    case 'starts_with':
      return f.like(col(c.column), likePattern(c.value, f, '', '%'));
    case 'ends_with':
      return f.like(col(c.column), likePattern(c.value, f, '%', ''));
    case 'is_null':
      return `${col(c.column)} IS NULL`;
    case 'is_not_null':
      return `${col(c.column)} IS NOT NULL`;
    case 'time_range':
      return `(${timeCondition(col(c.column), c.range, f)})`;
    case 'and':
    case 'or':
      return `(${c.conditions.map((x) => condition(x, scope)).join(` ${c.op.toUpperCase()} `)})`;
    case 'not':
      return `NOT (${condition(c.condition, scope)})`;
    case 'exists':
    case 'not_exists': {
      const inner = scope.inner(c.table);
      const links = c.on.map(
        (o) => `${inner.column({ ...o.right, table: o.right.table ?? c.table })} = ${scope.column(o.left)}`,
      );
      if (c.filter) links.push(condition(c.filter, inner));
      const sub = `SELECT 1 FROM ${quoteTable(c.table, f)} AS ${f.quoteIdent(inner.aliasOf(c.table))} WHERE ${links.join(' AND ')}`;
      return `${c.op === 'not_exists' ? 'NOT ' : ''}EXISTS (${sub})`;
    }
  }
}

/** The per-row value an aggregate reads: a column, or an expression over columns. */
function valueOf(a: Aggregate, scope: Scope): string | null {
  const f = scope.f;
  if (a.expression) {
    const e = a.expression;
    if (e.op === 'elapsed')
      return `(${f.elapsedSeconds(scope.column(e.from), scope.column(e.to))} / ${SECONDS[e.unit]}.0)`;
    if (e.op === 'scale') return `(${scope.column(e.column)} * ${literalOf(e.factor, f)})`;
    if (e.op === 'divide') return f.divide(scope.column(e.left), scope.column(e.right));
    return `(${scope.column(e.left)} ${ARITHMETIC[e.op]} ${scope.column(e.right)})`;
  }
  return a.column ? scope.column(a.column) : null;
}

function aggregateOf(a: Aggregate, value: string | null, f: SqlFlavour, where: string | null = null): string {
  const render = (over: string | null) => plainAggregate(a, over, f);
  const plain = render(value);
  if (where === null) return plain;
  const filtered = f.filtered(render, value, where);
  return a.share ? `(100.0 * ${filtered} / NULLIF(${plain}, 0))` : filtered;
}

function plainAggregate(a: Aggregate, value: string | null, f: SqlFlavour): string {
  const fn = a.fn;
  switch (fn) {
    case 'count':
      return value === null ? 'count(*)' : `count(${value})`;
    case 'count_distinct':
      return `count(DISTINCT ${value})`;
    case 'median':
    case 'percentile': {
      const text = f.percentile(fn === 'median' ? 0.5 : (a.percentile ?? 50) / 100, value);
      if (text === null)
        throw new CompileError(`${f.engine} has no ${fn === 'median' ? 'median' : 'percentile'} function.`);
      return text;
    }
    default:
      return `${fn}(${value})`;
  }
}

function tablesOf(a: Aggregate, source: string): string[] {
  const refs = measuredColumns(a);
  if (refs.length === 0) return [source];
  return [...new Set(refs.map((r) => r.table ?? source))];
}

interface JoinEdge {
  a: string;
  b: string;
  aColumns: string[];
  bColumns: string[];
}

/**
 * The joins as a graph, and whether reading `home`'s rows through them repeats some of those rows:
 * true as soon as a join leaves the home tables along a key that is not unique on the far side.
 */
class JoinGraph {
  private readonly edges: JoinEdge[];
  constructor(
    private readonly spec: QuerySpec,
    private readonly keys: Readonly<Record<string, readonly (readonly string[])[]>>,
  ) {
    this.edges = spec.joins.map((join) => {
      const parents = new Set(join.on.map((o) => o.left.table ?? spec.source));
      if (parents.size !== 1)
        throw new CompileError(
          `The join of ${join.table} links it to several tables at once; join along one table's columns.`,
        );
      return {
        a: [...parents][0]!,
        b: join.table,
        aColumns: join.on.map((o) => o.left.column),
        bColumns: join.on.map((o) => o.right.column),
      };
    });
  }

  keyOf(table: string): readonly string[] | null {
    return this.keys[table]?.[0] ?? null;
  }

  private unique(table: string, columns: string[]): boolean {
    return (this.keys[table] ?? []).some((key) => key.length > 0 && key.every((k) => columns.includes(k)));
  }

  multiplies(home: string[]): boolean {
    const seen = new Set<string>([home[0]!]);
    const queue = [home[0]!];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const e of this.edges) {
        const forward = e.a === from && !seen.has(e.b);
        const backward = e.b === from && !seen.has(e.a);
        if (!forward && !backward) continue;
        const to = forward ? e.b : e.a;
        const toColumns = forward ? e.bColumns : e.aColumns;
        if (!home.includes(to) && !this.unique(to, toColumns)) return true;
        seen.add(to);
        queue.push(to);
      }
    }
    return false;
  }
}

/** An aggregate that a fan-out would distort: its rows are counted again for every joined row. */
function sensitiveToRepeats(a: Aggregate): boolean {
  return a.fn !== 'count_distinct' && a.fn !== 'min' && a.fn !== 'max';
}

interface Part {
  aggregates: Aggregate[];
  /** Tables whose key columns identify one measured row; null: aggregate the joined rows as they are. */
  dedupBy: string[] | null;
}

/** What every part of one compilation reads: the flavour, the spec (options applied), its aliases and its FROM clause. */
interface Compilation {
  f: SqlFlavour;
  spec: QuerySpec;
  scope: Scope;
  /** FROM, the joins and WHERE, one line each. */
  from: string[];
  id(name: string): string;
}

/** A group-by column as the SELECT writes it: its alias and its expression over the joined rows. */
interface Group {
  alias: string;
  expr: string;
}

/** Names each table of the FROM clause after its unqualified name; two tables may not share one. */
function scopeOf(f: SqlFlavour, spec: QuerySpec): Scope {
  const aliases = new Map<string, string>([[spec.source, tableAlias(spec.source)]]);
  for (const join of spec.joins) {
    const alias = tableAlias(join.table);
    if ([...aliases.values()].includes(alias))
      throw new CompileError(`Two joined tables are both called ${alias}; join each table once.`);
    aliases.set(join.table, alias);
  }
  return new Scope(f, aliases, spec.source);
}

function fromClause(spec: QuerySpec, scope: Scope): string[] {
  const f = scope.f;
  const from = [`FROM ${quoteTable(spec.source, f)} AS ${f.quoteIdent(tableAlias(spec.source))}`];
  for (const join of spec.joins) {
    const on = join.on
      .map(
        (o) =>
          `${scope.column(o.left)} = ${scope.column({ ...o.right, table: o.right.table ?? join.table })}`,
      )
      .join(' AND ');
    from.push(
      `${join.type === 'left' ? 'LEFT JOIN' : 'JOIN'} ${quoteTable(join.table, f)} AS ${f.quoteIdent(tableAlias(join.table))} ON ${on}`,
    );
  }
  if (spec.filter) from.push(`WHERE ${condition(spec.filter, scope)}`);
  return from;
}

/** A spec without aggregates or groups: the rows themselves, or the columns it lists. */
function listingSql({ f, spec, scope, from, id }: Compilation): string {
  for (const extra of ['having', 'limit_per_group'] as const) {
    if (extra === 'having' ? spec.having.length > 0 : spec.limit_per_group)
      throw new CompileError(`${extra} needs aggregates or groups.`);
  }
  const select: string[] = [];
  if (spec.columns.length > 0) {
    for (const c of spec.columns)
      select.push(
        c.table ? `${scope.column(c)} AS ${id(`${tableAlias(c.table)}.${c.column}`)}` : scope.column(c),
      );
  } else {
    select.push(`${id(tableAlias(spec.source))}.*`);
  }
  const lines = [`SELECT ${select.join(', ')}`, ...from];
  if (spec.order_by.length > 0) {
    const defined = definedAliases(spec);
    lines.push(
      `ORDER BY ${spec.order_by.map((o) => `${f.order(defined.has(o.ref) ? id(o.ref) : scope.column({ column: o.ref }), o.direction)}`).join(', ')}`,
    );
  }
  if (spec.limit !== null) lines.push(`LIMIT ${spec.limit}`);
  return lines.join('\n');
}

/**
 * Each measure is computed at its own grain: one whose rows the joins repeat is read from the
 * distinct (group, row key) pairs of its own table(s) instead of from the joined rows. Returns the
 * parts that hold a measure, the one over the joined rows (if any) first.
 */
function measureParts(spec: QuerySpec, graph: JoinGraph): Part[] {
  const parts: Part[] = [{ aggregates: [], dedupBy: null }];
  for (const a of spec.aggregates) {
    const home = tablesOf(a, spec.source);
    const dedupable = home.every((t) => graph.keyOf(t) !== null);
    if (spec.joins.length === 0 || !sensitiveToRepeats(a) || !dedupable || !graph.multiplies(home)) {
      parts[0]!.aggregates.push(a);
      continue;
    }
    const key = [...home].sort().join('\n');
    const part = parts.find((p) => p.dedupBy !== null && [...p.dedupBy].sort().join('\n') === key);
    if (part) part.aggregates.push(a);
    else parts.push({ aggregates: [a], dedupBy: home });
  }
  return parts.filter((p) => p.aggregates.length > 0);
}

/** A part whose measures the joins do not distort: aggregated over the joined rows as they are. */
function joinedRowsPartSql(
  { f, scope, from, id }: Compilation,
  groups: Group[],
  aggregates: Aggregate[],
): string {
  const select = [
    ...groups.map((g) => `${g.expr} AS ${id(g.alias)}`),
    ...aggregates.map(
      (a) =>
        `${aggregateOf(a, valueOf(a, scope), f, a.where ? condition(a.where, scope) : null)} AS ${id(a.alias)}`,
    ),
  ];
  const lines = [`SELECT ${select.join(', ')}`, ...from];
  if (groups.length > 0) lines.push(`GROUP BY ${groups.map((g) => g.expr).join(', ')}`);
  return lines.join('\n');
}

/**
 * A part whose rows the joins repeat: the distinct (groups, key of each `dedupBy` table, per-measure
 * value and condition) rows first, then the measures over those.
 */
function distinctRowsPartSql(
  { f, scope, from, id }: Compilation,
  groups: Group[],
  graph: JoinGraph,
  aggregates: Aggregate[],
  dedupBy: string[],
): string {
  const rows = id('rows');
  const inner: string[] = groups.map((g) => `${g.expr} AS ${id(g.alias)}`);
  dedupBy.forEach((table, t) =>
    graph
      .keyOf(table)!
      .forEach((k, i) => inner.push(`${scope.column({ table, column: k })} AS ${id(`__key${t}_${i}`)}`)),
  );
  const values = aggregates.map((a, i) => {
    const value = valueOf(a, scope);
    if (a.where) inner.push(`(${condition(a.where, scope)}) AS ${id(`__where${i}`)}`);
    if (value === null) return null;
    inner.push(`${value} AS ${id(`__value${i}`)}`);
    return `${rows}.${id(`__value${i}`)}`;
  });
  const select = [
    ...groups.map((g) => `${rows}.${id(g.alias)}`),
    ...aggregates.map(
      (a, i) =>
        `${aggregateOf(a, values[i]!, f, a.where ? `${rows}.${id(`__where${i}`)}` : null)} AS ${id(a.alias)}`,
    ),
  ];
  const lines = [
    `SELECT ${select.join(', ')}`,
    `FROM (SELECT DISTINCT ${inner.join(', ')}`,
    ...from,
    `) AS ${rows}`,
  ];
  if (groups.length > 0) lines.push(`GROUP BY ${groups.map((g) => `${rows}.${id(g.alias)}`).join(', ')}`);
  return lines.join('\n');
}

/** Groups without aggregates: the distinct values of the groups. */
function groupsOnlySql({ from, id }: Compilation, groups: Group[]): string {
  return [
    `SELECT ${groups.map((g) => `${g.expr} AS ${id(g.alias)}`).join(', ')}`,
    ...from,
    `GROUP BY ${groups.map((g) => g.expr).join(', ')}`,
  ].join('\n');
}

/**
 * Measures at different grains are joined on their groups. Groups may be NULL, which an equi-join
 * cannot match, so every group seen by any part is listed once and each part is joined to that list.
 */
function joinedPartsSql(
  { f, spec, id }: Compilation,
  groups: Group[],
  parts: Part[],
  partTexts: string[],
): string {
  const keys = id('keys');
  const names = parts.map((_, i) => `part${i}`);
  const partOf = new Map(parts.flatMap((p, i) => p.aggregates.map((a) => [a.alias, names[i]!] as const)));
  const measures = spec.aggregates.map((a) => `${partOf.get(a.alias)}.${id(a.alias)}`);
  const ctes = `WITH ${partTexts.map((text, i) => `${names[i]} AS (${text})`).join(',\n')}`;
  if (groups.length === 0)
    return [ctes, `SELECT ${measures.join(', ')}`, `FROM ${names.join(' CROSS JOIN ')}`].join('\n');
  const groupList = groups.map((g) => id(g.alias)).join(', ');
  return [
    ctes,
    `SELECT ${[...groups.map((g) => `${keys}.${id(g.alias)}`), ...measures].join(', ')}`,
    `FROM (${names.map((n) => `SELECT ${groupList} FROM ${n}`).join(' UNION ')}) AS ${keys}`,
    ...names.map(
      (n) =>
        `LEFT JOIN ${n} ON ${groups.map((g) => f.sameGroup(`${keys}.${id(g.alias)}`, `${n}.${id(g.alias)}`)).join(' AND ')}`,
    ),
  ].join('\n');
}

/** The groups and measures, each measure at its grain, before any wrapper. */
function measuresSql(c: Compilation, options: CompileOptions): string {
  const { f, spec, scope } = c;
  const groups: Group[] = spec.group_by.map((g) => ({
    alias: g.alias,
    expr: g.time_bucket ? f.truncate(g.time_bucket, scope.column(g.column)) : scope.column(g.column),
  }));
  spec.aggregates.forEach(checkAggregate);
  const graph = new JoinGraph(spec, options.uniqueKeys ?? {});
  const parts = measureParts(spec, graph);
  const partTexts = parts.map((p) =>
    p.dedupBy === null
      ? joinedRowsPartSql(c, groups, p.aggregates)
      : distinctRowsPartSql(c, groups, graph, p.aggregates, p.dedupBy),
  );
  if (parts.length === 0) return groupsOnlySql(c, groups);
  if (parts.length === 1) return partTexts[0]!;
  return joinedPartsSql(c, groups, parts, partTexts);
}

/** `query` as a subquery named q. */
function selectFrom(query: string, select: string[], where: string[] = []): string {
  return [
    `SELECT ${select.join(', ')}`,
    `FROM (${query}) AS q`,
    ...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
  ].join('\n');
}

/** Measures with `share` (and no `where`, which shares within its group instead) as a percentage of their total. */
function withShares({ spec, id }: Compilation, outputs: string[], query: string): string {
  const shared = new Set(spec.aggregates.filter((a) => a.share && !a.where).map((a) => a.alias));
  if (shared.size === 0) return query;
  return selectFrom(
    query,
    outputs.map((alias) =>
      shared.has(alias)
        ? `(q.${id(alias)} * 100.0 / NULLIF(sum(q.${id(alias)}) OVER (), 0)) AS ${id(alias)}`
        : `q.${id(alias)}`,
    ),
  );
}

const HAVING_OPERATORS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function withHaving({ f, spec, id }: Compilation, plain: string[], query: string): string {
  if (spec.having.length === 0) return query;
  return selectFrom(
    query,
    plain,
    spec.having.map((h) => `q.${id(h.ref)} ${HAVING_OPERATORS[h.op]} ${literalOf(h.value, f)}`),
  );
}

/** The first n rows of each partition, by the spec's order (or its first measure, descending). */
function withTopPerGroup({ f, spec, id }: Compilation, plain: string[], query: string): string {
  if (!spec.limit_per_group) return query;
  const { n, partition_by } = spec.limit_per_group;
  for (const p of partition_by)
    if (!spec.group_by.some((g) => g.alias === p))
      throw new CompileError(`limit_per_group partitions by ${p}, which is not a group alias.`);
  if (spec.order_by.length === 0 && spec.aggregates.length === 0)
    throw new CompileError(
      'limit_per_group needs an order_by or a measure to rank the rows of each group by.',
    );
  const within =
    spec.order_by.length > 0
      ? spec.order_by.map((o) => f.order(`q.${id(o.ref)}`, o.direction))
      : [f.order(`q.${id(spec.aggregates[0]!.alias)}`, 'desc')];
  return [
    `SELECT ${plain.join(', ')}`,
    `FROM (SELECT q.*, row_number() OVER (PARTITION BY ${partition_by.map((p) => `q.${id(p)}`).join(', ')} ORDER BY ${within.join(', ')}) AS ${id('__rank')}`,
    `FROM (${query}) AS q) AS q`,
    `WHERE q.${id('__rank')} <= ${n}`,
  ].join('\n');
}

/** The final order and limit, and the columns the result shows (hidden measures left out). */
function withOrderAndLimit(
  { f, spec, id }: Compilation,
  outputs: string[],
  orderBy: string[],
  query: string,
): string {
  const visible = visibleAliases(spec);
  if (visible.length < outputs.length || (f.sortsOutputsOutside && orderBy.length > 0)) {
    // Hidden measures filter or sort, then are left out of the result; the outer query sorts, so the
    // order does not rest on a subquery's. Engines that cannot test an output alias in ORDER BY sort
    // outside too.
    const outerOrder = spec.order_by.map((o) => f.order(`q.${id(o.ref)}`, o.direction));
    return [
      `SELECT ${visible.map((alias) => `q.${id(alias)}`).join(', ')}`,
      `FROM (${query}) AS q`,
      ...(outerOrder.length > 0 ? [`ORDER BY ${outerOrder.join(', ')}`] : []),
      ...(spec.limit !== null ? [`LIMIT ${spec.limit}`] : []),
    ].join('\n');
  }
  const tail: string[] = [];
  if (orderBy.length > 0) tail.push(`ORDER BY ${orderBy.join(', ')}`);
  if (spec.limit !== null) tail.push(`LIMIT ${spec.limit}`);
  return [query, ...tail].join('\n');
}

/** Share of total, having, top N per group, then the final order, limit and visible columns. */
function wrapMeasures(c: Compilation, measures: string): string {
  const { f, spec, id } = c;
  const outputs = outputAliases(spec);
  const known = new Set(outputs);
  for (const h of spec.having)
    if (!known.has(h.ref))
      throw new CompileError(
        `having names ${h.ref}, which is not an aggregate alias (${outputs.join(', ')}).`,
      );
  const orderBy = spec.order_by.map((o) => {
    if (!known.has(o.ref))
      throw new CompileError(
        `order_by names ${o.ref}, which is not a group or aggregate alias (${outputs.join(', ')}).`,
      );
    return f.order(id(o.ref), o.direction);
  });
  const plain = outputs.map((alias) => `q.${id(alias)}`);
  const shared = withShares(c, outputs, measures);
  const filtered = withHaving(c, plain, shared);
  const ranked = withTopPerGroup(c, plain, filtered);
  return withOrderAndLimit(c, outputs, orderBy, ranked);
}

/** Compiles a QuerySpec to one SELECT in the flavour's SQL (the validator parses it and applies the row cap). */
export function compileSqlWith(f: SqlFlavour, input: QuerySpec, options: CompileOptions = {}): string {
  const spec = applyOptions(input, options);
  const scope = scopeOf(f, spec);
  const c: Compilation = { f, spec, scope, from: fromClause(spec, scope), id: (name) => f.quoteIdent(name) };
  if (!isAggregating(spec)) return listingSql(c);
  return wrapMeasures(c, measuresSql(c, options));
}

export const compileSql = (spec: QuerySpec, options?: CompileOptions): string =>
  compileSqlWith(POSTGRES_SQL, spec, options);

export const compileMysql = (spec: QuerySpec, options?: CompileOptions): string =>
  compileSqlWith(MYSQL_SQL, spec, options);
