import {
  measuredColumns,
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
  return dot === -1
    ? quoteIdent(qualified)
    : `${quoteIdent(qualified.slice(0, dot))}.${quoteIdent(qualified.slice(dot + 1))}`;
}

function tableAlias(qualified: string): string {
  const dot = qualified.indexOf('.');
  return dot === -1 ? qualified : qualified.slice(dot + 1);
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
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
    private readonly aliases: ReadonlyMap<string, string>,
    private readonly defaultTable: string,
    private readonly outer: Scope | null = null,
  ) {}

  column(ref: ColumnRef): string {
    const alias = this.aliases.get(ref.table ?? this.defaultTable);
    if (alias !== undefined) return `${quoteIdent(alias)}.${quoteIdent(ref.column)}`;
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
    return new Scope(new Map([[table, alias]]), table, this);
  }

  aliasOf(table: string): string {
    const alias = this.aliases.get(table);
    if (alias === undefined) throw new CompileError(`The query does not read ${table}.`);
    return alias;
  }
}

function timeCondition(c: string, range: TimeRange): string {
  if (range.kind === 'relative') {
    const interval = range.unit === 'quarter' ? `${range.count * 3} months` : `${range.count} ${range.unit}s`;
    if (range.calendar) {
      const start = `date_trunc('${range.unit}', now())`;
      if (range.count === 1) return `${c} >= ${start}`;
      const back =
        range.unit === 'quarter' ? `${(range.count - 1) * 3} months` : `${range.count - 1} ${range.unit}s`;
      return `${c} >= ${start} - interval '${back}'`;
    }
    return `${c} >= now() - interval '${interval}'`;
  }
  const { from, to } = absoluteBounds(range);
  const parts: string[] = [];
  if (from) parts.push(`${c} >= ${quoteLiteral(from)}::timestamptz`);
  if (to) parts.push(`${c} < ${quoteLiteral(to)}::timestamptz`);
  return parts.join(' AND ');
}

function condition(c: Condition, scope: Scope): string {
  const col = (ref: ColumnRef) => scope.column(ref);
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
      const sub = `SELECT 1 FROM ${quoteTable(c.table)} AS ${quoteIdent(inner.aliasOf(c.table))} WHERE ${links.join(' AND ')}`;
      return `${c.op === 'not_exists' ? 'NOT ' : ''}EXISTS (${sub})`;
    }
  }
}

/** The per-row value an aggregate reads: a column, or an expression over columns. */
function valueOf(a: Aggregate, scope: Scope): string | null {
  if (a.expression) {
    const e = a.expression;
    if (e.op === 'elapsed') {
      return `(EXTRACT(EPOCH FROM (${scope.column(e.to)}::timestamptz - ${scope.column(e.from)}::timestamptz)) / ${SECONDS[e.unit]}.0)`;
    }
    if (e.op === 'scale') return `(${scope.column(e.column)} * ${literal(e.factor)})`;
    if (e.op === 'divide') return `(${scope.column(e.left)}::numeric / NULLIF(${scope.column(e.right)}, 0))`;
    return `(${scope.column(e.left)} ${ARITHMETIC[e.op]} ${scope.column(e.right)})`;
  }
  return a.column ? scope.column(a.column) : null;
}

function aggregateOf(a: Aggregate, value: string | null, where: string | null = null): string {
  const plain = plainAggregate(a, value);
  if (where === null) return plain;
  const filtered = `${plain} FILTER (WHERE ${where})`;
  return a.share ? `(100.0 * ${filtered} / NULLIF(${plain}, 0))` : filtered;
}

function plainAggregate(a: Aggregate, value: string | null): string {
  switch (a.fn) {
    case 'count':
      return value === null ? 'count(*)' : `count(${value})`;
    case 'count_distinct':
      return `count(DISTINCT ${value})`;
    case 'median':
      return `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${value})`;
    case 'percentile':
      return `percentile_cont(${(a.percentile ?? 50) / 100}) WITHIN GROUP (ORDER BY ${value})`;
    default:
      return `${a.fn}(${value})`;
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

/** Compiles a QuerySpec to one PostgreSQL SELECT (the validator parses it and applies the row cap). */
export function compileSql(input: QuerySpec, options: CompileOptions = {}): string {
  const spec = applyOptions(input, options);
  const aliases = new Map<string, string>([[spec.source, tableAlias(spec.source)]]);
  for (const join of spec.joins) {
    const alias = tableAlias(join.table);
    if ([...aliases.values()].includes(alias))
      throw new CompileError(`Two joined tables are both called ${alias}; join each table once.`);
    aliases.set(join.table, alias);
  }
  const scope = new Scope(aliases, spec.source);

  const from = [`FROM ${quoteTable(spec.source)} AS ${quoteIdent(tableAlias(spec.source))}`];
  for (const join of spec.joins) {
    const on = join.on
      .map(
        (o) =>
          `${scope.column(o.left)} = ${scope.column({ ...o.right, table: o.right.table ?? join.table })}`,
      )
      .join(' AND ');
    from.push(
      `${join.type === 'left' ? 'LEFT JOIN' : 'JOIN'} ${quoteTable(join.table)} AS ${quoteIdent(tableAlias(join.table))} ON ${on}`,
    );
  }
  if (spec.filter) from.push(`WHERE ${condition(spec.filter, scope)}`);

  if (!isAggregating(spec)) {
    for (const extra of ['having', 'limit_per_group'] as const) {
      if (extra === 'having' ? spec.having.length > 0 : spec.limit_per_group)
        throw new CompileError(`${extra} needs aggregates or groups.`);
    }
    const select: string[] = [];
    if (spec.columns.length > 0) {
      for (const c of spec.columns)
        select.push(
          c.table
            ? `${scope.column(c)} AS ${quoteIdent(`${tableAlias(c.table)}.${c.column}`)}`
            : scope.column(c),
        );
    } else {
      select.push(`${quoteIdent(tableAlias(spec.source))}.*`);
    }
    const lines = [`SELECT ${select.join(', ')}`, ...from];
    if (spec.order_by.length > 0) {
      const defined = definedAliases(spec);
      lines.push(
        `ORDER BY ${spec.order_by.map((o) => `${defined.has(o.ref) ? quoteIdent(o.ref) : scope.column({ column: o.ref })} ${direction(o.direction)}`).join(', ')}`,
      );
    }
    if (spec.limit !== null) lines.push(`LIMIT ${spec.limit}`);
    return lines.join('\n');
  }

  const groups = spec.group_by.map((g) => ({
    alias: g.alias,
    expr: g.time_bucket
      ? `date_trunc('${g.time_bucket}', ${scope.column(g.column)})`
      : scope.column(g.column),
  }));
  // Groups without aggregates list the distinct values of the groups.
  const aggregates: Aggregate[] = spec.aggregates;
  aggregates.forEach(checkAggregate);

  // Each measure is computed at its own grain: one whose rows the joins repeat is read from the
  // distinct (group, row key) pairs of its own table(s) instead of from the joined rows.
  const graph = new JoinGraph(spec, options.uniqueKeys ?? {});
  const parts: Part[] = [{ aggregates: [], dedupBy: null }];
  for (const a of aggregates) {
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
  const used = parts.filter((p) => p.aggregates.length > 0);

  const partSql = (part: Part): string => {
    if (part.dedupBy === null) {
      const select = [
        ...groups.map((g) => `${g.expr} AS ${quoteIdent(g.alias)}`),
        ...part.aggregates.map(
          (a) =>
            `${aggregateOf(a, valueOf(a, scope), a.where ? condition(a.where, scope) : null)} AS ${quoteIdent(a.alias)}`,
        ),
      ];
      const lines = [`SELECT ${select.join(', ')}`, ...from];
      if (groups.length > 0) lines.push(`GROUP BY ${groups.map((g) => g.expr).join(', ')}`);
      return lines.join('\n');
    }
    const inner: string[] = groups.map((g) => `${g.expr} AS ${quoteIdent(g.alias)}`);
    part.dedupBy.forEach((table, t) =>
      graph
        .keyOf(table)!
        .forEach((k, i) =>
          inner.push(`${scope.column({ table, column: k })} AS ${quoteIdent(`__key${t}_${i}`)}`),
        ),
    );
    const values = part.aggregates.map((a, i) => {
      const value = valueOf(a, scope);
      if (a.where) inner.push(`(${condition(a.where, scope)}) AS ${quoteIdent(`__where${i}`)}`);
      if (value === null) return null;
      inner.push(`${value} AS ${quoteIdent(`__value${i}`)}`);
      return `rows.${quoteIdent(`__value${i}`)}`;
    });
    const select = [
      ...groups.map((g) => `rows.${quoteIdent(g.alias)}`),
      ...part.aggregates.map(
        (a, i) =>
          `${aggregateOf(a, values[i]!, a.where ? `rows.${quoteIdent(`__where${i}`)}` : null)} AS ${quoteIdent(a.alias)}`,
      ),
    ];
    const lines = [
      `SELECT ${select.join(', ')}`,
      `FROM (SELECT DISTINCT ${inner.join(', ')}`,
      ...from,
      ') AS rows',
    ];
    if (groups.length > 0)
      lines.push(`GROUP BY ${groups.map((g) => `rows.${quoteIdent(g.alias)}`).join(', ')}`);
    return lines.join('\n');
  };

  let core: string;
  if (used.length === 0) {
    core = [
      `SELECT ${groups.map((g) => `${g.expr} AS ${quoteIdent(g.alias)}`).join(', ')}`,
      ...from,
      `GROUP BY ${groups.map((g) => g.expr).join(', ')}`,
    ].join('\n');
  } else if (used.length === 1) {
    core = partSql(used[0]!);
  } else {
    // Measures at different grains are joined on their groups. Groups may be NULL, which an equi-join
    // cannot match, so every group seen by any part is listed once and each part is joined to that list.
    const names = used.map((_, i) => `part${i}`);
    const partOf = new Map(used.flatMap((p, i) => p.aggregates.map((a) => [a.alias, names[i]!] as const)));
    const ctes = `WITH ${used.map((p, i) => `${names[i]} AS (${partSql(p)})`).join(',\n')}`;
    const groupList = groups.map((g) => quoteIdent(g.alias)).join(', ');
    const lines =
      groups.length === 0
        ? [
            ctes,
            `SELECT ${aggregates.map((a) => `${partOf.get(a.alias)}.${quoteIdent(a.alias)}`).join(', ')}`,
            `FROM ${names.join(' CROSS JOIN ')}`,
          ]
        : [
            ctes,
            `SELECT ${[...groups.map((g) => `keys.${quoteIdent(g.alias)}`), ...aggregates.map((a) => `${partOf.get(a.alias)}.${quoteIdent(a.alias)}`)].join(', ')}`,
            `FROM (${names.map((n) => `SELECT ${groupList} FROM ${n}`).join(' UNION ')}) AS keys`,
            ...names.map(
              (n) =>
                `LEFT JOIN ${n} ON ${groups.map((g) => `keys.${quoteIdent(g.alias)} IS NOT DISTINCT FROM ${n}.${quoteIdent(g.alias)}`).join(' AND ')}`,
            ),
          ];
    core = lines.join('\n');
  }

  const outputs = outputAliases({ ...spec, aggregates });
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
    return `${quoteIdent(o.ref)} ${direction(o.direction)}`;
  });
  const plain = outputs.map((alias) => `q.${quoteIdent(alias)}`);

  let query = core;
  const wrap = (select: string[], where: string[] = []) => {
    query = [
      `SELECT ${select.join(', ')}`,
      `FROM (${query}) AS q`,
      ...(where.length > 0 ? [`WHERE ${where.join(' AND ')}`] : []),
    ].join('\n');
  };
  if (aggregates.some((a) => a.share && !a.where)) {
    const shared = new Set(aggregates.filter((a) => a.share && !a.where).map((a) => a.alias));
    wrap(
      outputs.map((alias) =>
        shared.has(alias)
          ? `(q.${quoteIdent(alias)} * 100.0 / NULLIF(sum(q.${quoteIdent(alias)}) OVER (), 0)) AS ${quoteIdent(alias)}`
          : `q.${quoteIdent(alias)}`,
      ),
    );
  }
  if (spec.having.length > 0) {
    const ops = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
    wrap(
      plain,
      spec.having.map((h) => `q.${quoteIdent(h.ref)} ${ops[h.op]} ${literal(h.value)}`),
    );
  }
  if (spec.limit_per_group) {
    const { n, partition_by } = spec.limit_per_group;
    for (const p of partition_by)
      if (!spec.group_by.some((g) => g.alias === p))
        throw new CompileError(`limit_per_group partitions by ${p}, which is not a group alias.`);
    const within =
      orderBy.length > 0
        ? spec.order_by.map((o) => `q.${quoteIdent(o.ref)} ${direction(o.direction)}`)
        : [`q.${quoteIdent(aggregates[0]!.alias)} DESC NULLS LAST`];
    query = [
      `SELECT ${plain.join(', ')}`,
      `FROM (SELECT q.*, row_number() OVER (PARTITION BY ${partition_by.map((p) => `q.${quoteIdent(p)}`).join(', ')} ORDER BY ${within.join(', ')}) AS "__rank"`,
      `FROM (${query}) AS q) AS q`,
      `WHERE q."__rank" <= ${n}`,
    ].join('\n');
  }
  const tail: string[] = [];
  if (orderBy.length > 0) tail.push(`ORDER BY ${orderBy.join(', ')}`);
  if (spec.limit !== null) tail.push(`LIMIT ${spec.limit}`);
  const visible = visibleAliases({ ...spec, aggregates });
  if (visible.length < outputs.length) {
    // Hidden measures filter or sort, then are left out of the result; the outer query sorts, so the
    // order does not rest on a subquery's.
    const outerOrder = spec.order_by.map((o) => `q.${quoteIdent(o.ref)} ${direction(o.direction)}`);
    return [
      `SELECT ${visible.map((alias) => `q.${quoteIdent(alias)}`).join(', ')}`,
      `FROM (${query}) AS q`,
      ...(outerOrder.length > 0 ? [`ORDER BY ${outerOrder.join(', ')}`] : []),
      ...(spec.limit !== null ? [`LIMIT ${spec.limit}`] : []),
    ].join('\n');
  }
  return [query, ...tail].join('\n');
}

function direction(d: 'asc' | 'desc'): string {
  return d === 'desc' ? 'DESC NULLS LAST' : 'ASC';
}
