import {
  soleTopLevelEqualities,
  type Aggregate,
  type ColumnRef,
  type Condition,
  type QuerySpec,
  type RelatedRows,
} from '@aqs/contracts';
import { matchesIndexPattern, type DialectCapabilities, type Introspection } from '@aqs/connectors';
import type { SemanticType } from '@aqs/contracts';
import type { PlannerSchema, SchemaColumn, SchemaTable } from './types.ts';

// ---------- column type families ----------

const TIME_TYPES =
  /^(date|date_nanos|datetime|timestamp|timestamptz|timestamp with(out)? time zone|timestamp\(\d\)( with(out)? time zone)?)$/;
const NUMERIC_TYPES =
  /^(integer|int|int2|int4|int8|smallint|bigint|long|short|byte|double|double precision|float|float4|float8|half_float|scaled_float|unsigned_long|real|numeric|decimal|money|counter_integer|counter_long|counter_double|serial|bigserial)(\(.*\))?$/;

export function isTimeType(type: string): boolean {
  return TIME_TYPES.test(type.toLowerCase().trim());
}

export function isNumericType(type: string): boolean {
  return NUMERIC_TYPES.test(type.toLowerCase().trim());
}

export function isBooleanType(type: string): boolean {
  const t = type.toLowerCase();
  return t === 'boolean' || t === 'bool';
}

/** Full-text columns: searchable with `contains`, poor group keys (a keyword sibling is preferred). */
export function isTextType(type: string): boolean {
  const t = type.toLowerCase();
  return t === 'text' || t === 'match_only_text';
}

/** Columns whose values are labels: strings, enums, ips, booleans (not numbers, dates or geo). */
export function isCategoricalType(type: string): boolean {
  const t = type.toLowerCase();
  if (isTimeType(t) || isNumericType(t)) return false;
  return !/^(geo_|cartesian_|point|shape|unsupported|json|jsonb|bytea|tsvector|object|nested|binary)/.test(t);
}

// ---------- from introspection ----------

export interface SchemaExtras {
  /** Curated descriptions: `tables[table]`, `columns[table][column]`; tables keyed qualified or bare. */
  descriptions?: { tables?: Record<string, string>; columns?: Record<string, Record<string, string>> };
  /** Sampled values per table and column (discovery). */
  samples?: Record<string, Record<string, (string | number | boolean)[]>>;
  /** What each column holds, per table and column (the schema analysis). */
  semanticTypes?: Record<string, Record<string, SemanticType>>;
  /** Key and relationship overrides from curation; replace what introspection found for that table. */
  overrides?: {
    primary_keys?: Record<string, string[]>;
    foreign_keys?: Record<string, { columns: string[]; references: { table: string; columns: string[] } }[]>;
  };
}

function qualify(schema: string | null, table: string): string {
  return schema ? `${schema}.${table}` : table;
}

function pick<T>(record: Record<string, T> | undefined, qualified: string, bare: string): T | undefined {
  if (!record) return undefined;
  return record[qualified] ?? record[bare];
}

/** Turns a connector's introspection (plus discovery's descriptions and samples) into the planner's schema. */
export function fromIntrospection(
  introspection: Introspection,
  capabilities: DialectCapabilities,
  extras: SchemaExtras = {},
): PlannerSchema {
  const tables: SchemaTable[] = introspection.tables.map((t) => {
    const qualified = t.schema ? `${t.schema}.${t.name}` : t.name;
    const samples = pick(extras.samples, qualified, t.name) ?? {};
    const colDescriptions = pick(extras.descriptions?.columns, qualified, t.name) ?? {};
    const meanings = pick(extras.semanticTypes, qualified, t.name) ?? {};
    const columns: SchemaColumn[] = t.columns.map((c) => ({
      name: c.name,
      type: c.type,
      description: colDescriptions[c.name] ?? c.description ?? null,
      sample_values: samples[c.name] ?? [],
      queryable: c.queryable,
      ...(meanings[c.name] ? { semantic_type: meanings[c.name] } : {}),
    }));
    const fkOverride = pick(extras.overrides?.foreign_keys, qualified, t.name);
    return {
      name: qualified,
      kind: t.kind,
      description: pick(extras.descriptions?.tables, qualified, t.name) ?? null,
      row_estimate: t.row_estimate,
      columns,
      primary_key: pick(extras.overrides?.primary_keys, qualified, t.name) ?? [...t.primary_key],
      foreign_keys:
        fkOverride ??
        t.foreign_keys.map((fk) => ({
          columns: [...fk.columns],
          references: {
            table: qualify(fk.references.schema ?? t.schema, fk.references.table),
            columns: [...fk.references.columns],
          },
        })),
    };
  });
  return {
    capabilities,
    tables: capabilities.grouped_sources ? planningTables(tables, introspection) : tables,
  };
}

/**
 * Sources as the planner should see them on an engine with grouped sources (Elasticsearch): each
 * wildcard scope pattern, alias and data stream is one table (`FROM logs-*` reads every matched
 * index), its fields merged over the indices it reads (by the type the query language reads, which
 * introspection gives); a field typed differently in different indices is kept but marked
 * unqueryable, as ES|QL reads it as `unsupported`. Concrete indices reached through one of these
 * are left out of planning (the schema routes still list them).
 */
function planningTables(tables: SchemaTable[], introspection: Introspection): SchemaTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const concrete = tables.filter((t) => t.kind === 'index' || t.kind === 'data_stream');
  const groups: SchemaTable[] = [];
  const covered = new Set<string>();
  for (const { name: pattern } of introspection.schemas) {
    if (!pattern.includes('*')) continue;
    const members = concrete.filter((t) => matchesIndexPattern(pattern, t.name));
    if (members.length < 2) continue;
    groups.push(mergeTables(pattern, 'pattern', members));
    members.forEach((m) => covered.add(m.name));
  }
  for (const t of introspection.tables) {
    if (t.kind !== 'alias' && t.kind !== 'data_stream') continue;
    const members = t.members.map((m) => byName.get(m)).filter((m): m is SchemaTable => m !== undefined);
    if (t.kind === 'alias' && members.length > 0 && members.every((m) => covered.has(m.name))) continue; // the pattern already reads them
    t.members.forEach((m) => covered.add(m));
    const own = byName.get(t.name);
    if (own && own.columns.length > 0) groups.push({ ...own, members: [...t.members] });
    else if (members.length > 0) groups.push(mergeTables(t.name, t.kind, members));
  }
  const names = new Set(groups.map((g) => g.name));
  return [
    ...groups,
    ...tables.filter(
      (t) => !names.has(t.name) && !covered.has(t.name) && t.kind !== 'alias' && t.kind !== 'data_stream',
    ),
  ];
}

function mergeTables(name: string, kind: string, members: SchemaTable[]): SchemaTable {
  const columns = new Map<string, { column: SchemaColumn; types: Map<string, number> }>();
  for (const m of members) {
    for (const c of m.columns) {
      const type = c.type;
      const entry = columns.get(c.name) ?? {
        column: { ...c, type, sample_values: [] },
        types: new Map<string, number>(),
      };
      entry.types.set(type, (entry.types.get(type) ?? 0) + 1);
      entry.column.queryable &&= c.queryable;
      entry.column.description ??= c.description;
      for (const v of c.sample_values)
        if (entry.column.sample_values.length < 20 && !entry.column.sample_values.includes(v))
          entry.column.sample_values.push(v);
      columns.set(c.name, entry);
    }
  }
  const merged = [...columns.values()].map(({ column, types }) => {
    if (types.size <= 1) return column;
    const detail = [...types].map(([t, n]) => `${t} in ${n} ${n === 1 ? 'index' : 'indices'}`).join(', ');
    return {
      ...column,
      type: 'unsupported',
      queryable: false,
      description: `Mapped with conflicting types across ${name} (${detail}); ES|QL cannot read it through ${name}.`,
    };
  });
  const estimates = members.map((m) => m.row_estimate);
  const sorted = members.map((m) => m.name).sort();
  return {
    name,
    kind,
    description:
      members.find((m) => m.description)?.description ??
      `${members.length} indices (${sorted[0]} to ${sorted[sorted.length - 1]}) read as one.`,
    row_estimate: estimates.every((e) => e !== null) ? estimates.reduce((a, b) => a! + b!, 0) : null,
    columns: merged,
    primary_key: [],
    foreign_keys: [],
    members: sorted,
  };
}

// ---------- lookups ----------

export function findTable(schema: PlannerSchema, name: string): SchemaTable | undefined {
  const exact = schema.tables.find((t) => t.name === name);
  if (exact) return exact;
  const bare = schema.tables.filter((t) => t.name.split('.').pop() === name);
  return bare.length === 1 ? bare[0] : undefined;
}

export function findColumn(table: SchemaTable, name: string): SchemaColumn | undefined {
  return table.columns.find((c) => c.name === name);
}

// ---------- validation ----------

type Leaf = Exclude<Condition, { conditions: unknown } | { condition: unknown } | RelatedRows>;

function walkConditions(
  c: Condition,
  visit: (leaf: Leaf) => void,
  related: (c: RelatedRows) => void = () => undefined,
): void {
  if ('conditions' in c) {
    for (const inner of c.conditions) walkConditions(inner, visit, related);
  } else if ('condition' in c) {
    walkConditions(c.condition, visit, related);
  } else if ('on' in c) {
    related(c);
  } else {
    visit(c);
  }
}

/**
 * Checks a spec against the schema it was planned over: every table, column and order reference
 * must exist, types must fit the operation (sums over numbers, buckets and ranges over dates), and
 * the shape must be one the compilers can express. Returns human sentences, empty when valid.
 */
export function validateSpecAgainstSchema(spec: QuerySpec, schema: PlannerSchema): string[] {
  const errors: string[] = [];
  const known = schema.tables.map((t) => t.name).join(', ');
  const source = schema.tables.find((t) => t.name === spec.source);
  if (!source) {
    errors.push(`Unknown source '${spec.source}'. Known ${schema.capabilities.table_noun.many}: ${known}.`);
    return errors;
  }
  const inScope: SchemaTable[] = [source];
  const can = schema.capabilities;
  const engine = can.engine;
  if (spec.joins.length > 0 && !can.joins) errors.push(`Joins are not available for ${engine} sources.`);
  for (const j of spec.joins) {
    const t = schema.tables.find((x) => x.name === j.table);
    if (!t) errors.push(`Unknown joined table '${j.table}'. Known tables: ${known}.`);
    else if (inScope.includes(t)) errors.push(`Table '${j.table}' is joined twice (or is the source).`);
    else inScope.push(t);
  }

  const resolve = (ref: ColumnRef, where: string): SchemaColumn | undefined => {
    if (ref.table !== undefined) {
      const t = inScope.find((x) => x.name === ref.table);
      if (!t) {
        errors.push(`${where}: table '${ref.table}' is neither the source nor a joined table.`);
        return undefined;
      }
      const c = findColumn(t, ref.column);
      if (!c) errors.push(`${where}: unknown column '${ref.column}' in ${t.name}.`);
      else if (!c.queryable) errors.push(`${where}: column '${ref.column}' in ${t.name} cannot be queried.`);
      return c;
    }
    const hits = inScope
      .map((t) => findColumn(t, ref.column))
      .filter((c): c is SchemaColumn => c !== undefined);
    if (hits.length === 0) {
      errors.push(`${where}: unknown column '${ref.column}' in ${inScope.map((t) => t.name).join(', ')}.`);
      return undefined;
    }
    if (hits.length > 1) errors.push(`${where}: column '${ref.column}' is ambiguous; set its table.`);
    const c = hits[0] as SchemaColumn;
    if (!c.queryable) errors.push(`${where}: column '${ref.column}' cannot be queried.`);
    return c;
  };

  spec.joins.forEach((j, i) => {
    for (const pair of j.on) {
      resolve(pair.left, `joins[${i}]`);
      resolve(pair.right, `joins[${i}]`);
    }
  });
  spec.columns.forEach((c, i) => resolve(c, `columns[${i}]`));
  // A field with several values in some documents is compared only by one top-level equality, which
  // the compiler reads after MV_EXPAND; ES|QL comparisons skip such documents otherwise.
  const expandable = new Set<Condition>(soleTopLevelEqualities(spec.filter));
  const checkLeaf = (leaf: Leaf, col: SchemaColumn | undefined): void => {
    if (!col) return;
    if (
      col.multi_valued &&
      leaf.op !== 'is_null' &&
      leaf.op !== 'is_not_null' &&
      leaf.op !== 'time_range' &&
      !expandable.has(leaf)
    ) {
      errors.push(
        `filter (${leaf.op}): '${leaf.column.column}' holds several values in some documents, and ES|QL comparisons leave those documents out; ask for one value at a time, or group by '${leaf.column.column}', which counts each value.`,
      );
    }
    if (leaf.op === 'time_range' && !isTimeType(col.type))
      errors.push(`filter: time_range needs a date column; '${leaf.column.column}' is ${col.type}.`);
    if (
      (leaf.op === 'gt' || leaf.op === 'gte' || leaf.op === 'lt' || leaf.op === 'lte') &&
      isBooleanType(col.type)
    ) {
      errors.push(`filter: '${leaf.column.column}' is boolean and cannot be compared with ${leaf.op}.`);
    }
  };
  if (spec.filter) {
    walkConditions(
      spec.filter,
      (leaf) => checkLeaf(leaf, resolve(leaf.column, `filter (${leaf.op})`)),
      (rel) => {
        if (!can.related_rows)
          errors.push(`filter (${rel.op}): related-row tests are not available for ${engine} sources.`);
        const table = schema.tables.find((t) => t.name === rel.table);
        if (!table) {
          errors.push(`filter (${rel.op}): unknown table '${rel.table}'. Known tables: ${known}.`);
          return;
        }
        const inner = (ref: ColumnRef, where: string): SchemaColumn | undefined => {
          if (ref.table !== undefined && ref.table !== rel.table) return resolve(ref, where);
          const c = findColumn(table, ref.column);
          if (!c) errors.push(`${where}: unknown column '${ref.column}' in ${table.name}.`);
          return c;
        };
        for (const pair of rel.on) {
          resolve(pair.left, `filter (${rel.op})`);
          inner(pair.right, `filter (${rel.op})`);
        }
        if (rel.filter)
          walkConditions(rel.filter, (leaf) => checkLeaf(leaf, inner(leaf.column, `filter (${rel.op})`)));
      },
    );
  }
  const aliases = new Set<string>();
  const addAlias = (alias: string, where: string): void => {
    if (aliases.has(alias)) errors.push(`${where}: alias '${alias}' is used twice.`);
    aliases.add(alias);
  };
  spec.group_by.forEach((g, i) => {
    const col = resolve(g.column, `group_by[${i}]`);
    if (col && g.time_bucket !== undefined && !isTimeType(col.type))
      errors.push(`group_by[${i}]: time_bucket needs a date column; '${g.column.column}' is ${col.type}.`);
    if (g.time_bucket !== undefined && !can.time_buckets)
      errors.push(`group_by[${i}]: time buckets are not available for ${engine} sources.`);
    addAlias(g.alias, `group_by[${i}]`);
  });
  const numericFns = new Set<Aggregate['fn']>(['sum', 'avg', 'median', 'percentile']);
  spec.aggregates.forEach((a, i) => {
    const where = `aggregates[${i}]`;
    const e = a.expression;
    if (e) {
      if (e.op === 'elapsed') {
        for (const ref of [e.from, e.to]) {
          const col = resolve(ref, where);
          if (col && !isTimeType(col.type))
            errors.push(`${where}: elapsed time needs date columns; '${ref.column}' is ${col.type}.`);
        }
      } else if (e.op === 'scale') {
        const col = resolve(e.column, where);
        if (col && !isNumericType(col.type))
          errors.push(`${where}: scale needs a numeric column; '${e.column.column}' is ${col.type}.`);
      } else {
        for (const ref of [e.left, e.right]) {
          const col = resolve(ref, where);
          if (col && !isNumericType(col.type))
            errors.push(`${where}: ${e.op} needs numeric columns; '${ref.column}' is ${col.type}.`);
        }
      }
    } else if (a.column === undefined) {
      if (a.fn !== 'count') errors.push(`${where}: ${a.fn} needs a column or an expression.`);
    } else {
      const col = resolve(a.column, where);
      if (col && numericFns.has(a.fn) && !isNumericType(col.type))
        errors.push(`${where}: ${a.fn} needs a numeric column; '${a.column.column}' is ${col.type}.`);
    }
    if (a.where)
      walkConditions(
        a.where,
        (leaf) => checkLeaf(leaf, resolve(leaf.column, `${where}.where (${leaf.op})`)),
        () => errors.push(`${where}.where: related-row tests are not allowed in a measure's condition.`),
      );
    if (a.share && !a.where && !can.share_of_total)
      errors.push(`${where}: a share of the total is not available for ${engine} sources.`);
    if ((a.fn === 'median' && !can.median) || (a.fn === 'percentile' && !can.percentiles))
      errors.push(`${where}: ${a.fn} is not available for ${engine} sources.`);
    addAlias(a.alias, where);
  });
  const aggregateAliases = new Set(spec.aggregates.map((a) => a.alias));
  spec.having.forEach((h, i) => {
    if (!aggregateAliases.has(h.ref))
      errors.push(
        `having[${i}]: '${h.ref}' is not an aggregate alias (${[...aggregateAliases].join(', ') || 'none'}).`,
      );
  });
  if (spec.limit_per_group) {
    if (!can.limit_per_group) errors.push(`limit_per_group is not available for ${engine} sources.`);
    for (const p of spec.limit_per_group.partition_by) {
      if (!spec.group_by.some((g) => g.alias === p))
        errors.push(`limit_per_group: '${p}' is not a group alias.`);
    }
  }
  const aggregated = spec.aggregates.length > 0 || spec.group_by.length > 0;
  if (aggregated && spec.columns.length > 0)
    errors.push(
      'columns must be empty when the spec groups or aggregates (the result columns are the groups and aggregates).',
    );
  spec.order_by.forEach((o, i) => {
    if (aliases.has(o.ref)) return;
    if (aggregated) {
      errors.push(
        `order_by[${i}]: '${o.ref}' is not an alias of a group or aggregate (${[...aliases].join(', ') || 'none'}).`,
      );
      return;
    }
    const found = inScope.some((t) => findColumn(t, o.ref) !== undefined);
    if (!found) errors.push(`order_by[${i}]: '${o.ref}' is neither an alias nor a column.`);
  });
  return errors;
}
