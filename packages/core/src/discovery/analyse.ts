import type { DiscoveredTable, QuerySpec, Relationship } from '@aqs/contracts';
import {
  ConnectorError,
  type Connector,
  type ConnectionTarget,
  type ConnectorContext,
  type Introspection,
  type IntrospectedColumn,
  type IntrospectedTable,
} from '@aqs/connectors';
import type { SchemaDescription } from '@aqs/planner';
import { qualifiedName } from '../connections/schema.ts';
import {
  looksLikeIdentifier,
  referencedStem,
  relationshipName,
  semanticTypeOf,
  tableNamedBy,
} from './semantics.ts';

/** Per table: at most this many engine queries, and this much time (less when the whole budget is nearer). */
export const TABLE_BUDGET = { queries: 6, ms: 15_000 } as const;
/** A column shows sampled values only when it was counted with at most this many distinct values. */
const SAMPLED_DISTINCT_MAX = 200;
/** Aggregates in one counting query (a QuerySpec takes at most 10). */
const AGGREGATES_PER_QUERY = 10;

/** Runs QuerySpecs on one connection through its compiler, validator and read-only execution, and counts them. */
export class Engine {
  queries = 0;
  constructor(
    private readonly connector: Connector,
    private readonly target: ConnectionTarget,
    private readonly ctx: ConnectorContext,
    private readonly signal: AbortSignal,
  ) {}

  get capabilities() {
    return this.connector.descriptor.capabilities;
  }

  async run(spec: QuerySpec, timeoutMs: number): Promise<{ columns: string[]; row: unknown[] }> {
    this.signal.throwIfAborted();
    this.queries += 1;
    const validated = await this.connector.validateQuery(this.target, this.connector.compile(spec), {
      rowCap: 1,
    });
    const bound = AbortSignal.any([this.signal, AbortSignal.timeout(timeoutMs)]);
    const result = await this.connector.execute(
      this.target,
      validated.text,
      { ...this.ctx, requestTimeoutMs: timeoutMs, signal: bound },
      { rowCap: 1, timeoutMs },
    );
    return { columns: result.columns.map((c) => c.name), row: result.rows[0] ?? [] };
  }
}

const countSpec = (source: string, aggregates: QuerySpec['aggregates'], filter: QuerySpec['filter'] = null) =>
  ({
    source,
    joins: [],
    columns: [],
    filter,
    group_by: [],
    aggregates,
    having: [],
    order_by: [],
    limit: null,
    limit_per_group: null,
  }) satisfies QuerySpec;

const numberAt = (result: { columns: string[]; row: unknown[] }, alias: string): number | null => {
  const value = result.row[result.columns.indexOf(alias)];
  return typeof value === 'number'
    ? value
    : typeof value === 'string' && /^\d+$/.test(value)
      ? Number(value)
      : null;
};

/** Columns whose distinct values are worth counting: what decides a category, a code or a key. */
function countable(engine: Engine, column: IntrospectedColumn): boolean {
  if (!column.queryable) return false;
  if (engine.capabilities.analyzed_text && column.type === 'text') return false;
  return /^(keyword|long|integer|short|byte|unsigned_long|text|character varying|varchar|character|char|bpchar|citext|bigint|smallint|int|int2|int4|int8|uuid|ip|enum|USER-DEFINED)$/i.test(
    column.type,
  );
}

export interface TableOutcome {
  table: DiscoveredTable;
  /** A table counted only in part (budget, or an engine error) says why. */
  warning: string | null;
}

/**
 * One table: its row count and distinct values per countable column (a few counting queries, within
 * the table's budget), semantic types from names, types and those counts, and a primary key: the
 * declared one, else (on engines with keys) an identifier-named column whose values are all there
 * and all different. Descriptions stay empty: a model writes them, the user curates them.
 */
export async function analyseTable(
  engine: Engine,
  table: IntrospectedTable,
  samples: Record<string, unknown[]>,
  budgetMs: number,
): Promise<TableOutcome> {
  const name = qualifiedName(table);
  const started = performance.now();
  const left = () => Math.min(TABLE_BUDGET.ms, budgetMs) - (performance.now() - started);
  const candidates = table.columns.filter((c) => countable(engine, c));
  const distinct: Record<string, number | null> = {};
  const nonNull: Record<string, number | null> = {};
  let rowCount: number | null = null;
  let warning: string | null = null;
  const keyed = engine.capabilities.joins && table.kind !== 'view';
  const keyCandidates =
    keyed && table.primary_key.length === 0
      ? candidates.filter((c) => looksLikeIdentifier(c.name)).slice(0, 3)
      : [];

  // Aggregates: count(*), then count_distinct per column, and count(column) for key candidates.
  const aggregates: { alias: string; spec: QuerySpec['aggregates'][number] }[] = [
    { alias: 'rows', spec: { fn: 'count', alias: 'rows' } },
    ...keyCandidates.map((c, i) => ({
      alias: `nn${i}`,
      spec: { fn: 'count' as const, column: { column: c.name }, alias: `nn${i}` },
    })),
    ...candidates.map((c, i) => ({
      alias: `d${i}`,
      spec: { fn: 'count_distinct' as const, column: { column: c.name }, alias: `d${i}` },
    })),
  ];
  for (let at = 0; at < aggregates.length; at += AGGREGATES_PER_QUERY) {
    const batch = aggregates.slice(at, at + AGGREGATES_PER_QUERY);
    if (at / AGGREGATES_PER_QUERY >= TABLE_BUDGET.queries || left() <= 0) {
      warning = `${name}: counted ${Object.keys(distinct).length} of ${candidates.length} columns within its budget.`;
      break;
    }
    try {
      const result = await engine.run(
        countSpec(
          name,
          batch.map((b) => b.spec),
        ),
        Math.max(1, Math.floor(left())),
      );
      for (const b of batch) {
        const value = numberAt(result, b.alias);
        if (b.alias === 'rows') rowCount = value;
        else if (b.alias.startsWith('nn')) nonNull[keyCandidates[Number(b.alias.slice(2))]!.name] = value;
        else distinct[candidates[Number(b.alias.slice(1))]!.name] = value;
      }
    } catch (error) {
      if (error instanceof ConnectorError && ['unreachable', 'auth', 'tls', 'cancelled'].includes(error.kind))
        throw error;
      warning = `${name}: some columns could not be counted (${error instanceof ConnectorError ? error.symptom : 'the query failed'}).`;
    }
  }

  let primaryKey: string[] | null = table.primary_key.length > 0 ? table.primary_key : null;
  let source: DiscoveredTable['primary_key_source'] = primaryKey ? 'declared' : null;
  if (!primaryKey && rowCount && rowCount > 0) {
    const unique = keyCandidates.find((c) => distinct[c.name] === rowCount && nonNull[c.name] === rowCount);
    if (unique) {
      primaryKey = [unique.name];
      source = 'inferred';
    }
  }

  return {
    table: {
      name,
      description: null,
      row_count: rowCount,
      primary_key: primaryKey,
      primary_key_source: source,
      columns: table.columns.map((c) => {
        const semantic = semanticTypeOf({
          ...c,
          distinct: distinct[c.name] ?? null,
          rows: rowCount,
          analyzed: engine.capabilities.analyzed_text && c.type === 'text',
        });
        const values = samples[c.name] ?? [];
        return {
          name: c.name,
          semantic_type: semantic,
          description: c.description ?? null,
          // Only of columns counted as holding few values: an uncounted one may be anything.
          sample_values:
            (semantic === 'category' || semantic === 'boolean' || semantic === 'geo') &&
            (distinct[c.name] ?? Infinity) <= SAMPLED_DISTINCT_MAX
              ? values.filter(
                  (v): v is string | number | boolean =>
                    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
                )
              : [],
        };
      }),
    },
    warning,
  };
}

/** The declared foreign keys of the structure, as relationships between qualified names. */
export function declaredRelationships(introspection: Introspection): Relationship[] {
  return introspection.tables.flatMap((t) =>
    t.foreign_keys.map((fk) => ({
      from_table: qualifiedName(t),
      from_columns: fk.columns,
      to_table: fk.references.schema
        ? `${fk.references.schema}.${fk.references.table}`
        : qualifiedName({ schema: t.schema, name: fk.references.table }),
      to_columns: fk.references.columns,
      source: 'declared' as const,
      name: relationshipName(qualifiedName(t), fk.references.table),
    })),
  );
}

/**
 * Relationships the engine does not declare, found by name and checked on the data: a column named
 * after another table (`orders.customer_id` and `customers`) whose every non-null value is a key of
 * that table (no row without a match: one `not exists` count). Engines without joins get none; for
 * Elasticsearch, `crossIndex` links a keyword field to an index named by it, by name alone.
 */
export async function inferRelationships(
  engine: Engine,
  introspection: Introspection,
  tables: DiscoveredTable[],
  known: Relationship[],
  options: { crossIndex: boolean; budgetMs: number },
): Promise<{ relationships: Relationship[]; warnings: string[] }> {
  const found: Relationship[] = [];
  const warnings: string[] = [];
  const started = performance.now();
  const linked = new Set(known.map((r) => `${r.from_table}|${r.from_columns.join(',')}`));
  const byName = new Map(introspection.tables.map((t) => [qualifiedName(t), t]));
  for (const table of tables) {
    const structure = byName.get(table.name);
    if (!structure || structure.kind === 'alias' || structure.kind === 'data_stream') continue;
    for (const column of structure.columns) {
      const stem = referencedStem(column.name);
      if (stem.length === 0 || linked.has(`${table.name}|${column.name}`)) continue;
      const schemaOf = (name: string) => (name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '');
      const named = tables.filter(
        (p) => p.name !== table.name && tableNamedBy(p.name.split('.').pop() ?? p.name, stem),
      );
      // A table of the same schema first: `crm.contacts.account_id` names `crm.accounts`.
      const parent = named.find((p) => schemaOf(p.name) === schemaOf(table.name)) ?? named[0];
      if (!parent) continue;
      if (!engine.capabilities.joins) {
        if (!options.crossIndex || !engine.capabilities.lookup_join_from) continue;
        const target = parent.columns.find((c) => c.name === column.name || c.name === 'id');
        if (!target || target.semantic_type !== 'identifier') continue;
        found.push(link(table.name, column.name, parent.name, target.name));
        continue;
      }
      const key = parent.primary_key;
      if (!key || key.length !== 1) continue;
      const left = options.budgetMs - (performance.now() - started);
      if (left <= 0) {
        warnings.push('Some relationships were not checked within the analysis budget.');
        return { relationships: found, warnings };
      }
      try {
        const orphans = await engine.run(
          countSpec(table.name, [{ fn: 'count', alias: 'orphans' }], {
            op: 'and',
            conditions: [
              { op: 'is_not_null', column: { column: column.name } },
              {
                op: 'not_exists',
                table: parent.name,
                on: [
                  {
                    left: { table: table.name, column: column.name },
                    right: { table: parent.name, column: key[0]! },
                  },
                ],
              },
            ],
          }),
          Math.max(1, Math.floor(Math.min(left, TABLE_BUDGET.ms))),
        );
        if (numberAt(orphans, 'orphans') !== 0) continue;
        // No orphans among no values proves nothing: the column must hold some.
        const present = await engine.run(
          countSpec(table.name, [{ fn: 'count', column: { column: column.name }, alias: 'present' }]),
          Math.max(
            1,
            Math.floor(Math.min(options.budgetMs - (performance.now() - started), TABLE_BUDGET.ms)),
          ),
        );
        if ((numberAt(present, 'present') ?? 0) > 0)
          found.push(link(table.name, column.name, parent.name, key[0]!));
      } catch (error) {
        if (
          error instanceof ConnectorError &&
          ['unreachable', 'auth', 'tls', 'cancelled'].includes(error.kind)
        )
          throw error;
        warnings.push(`${table.name}.${column.name}: its link to ${parent.name} could not be checked.`);
      }
    }
  }
  return { relationships: found, warnings };
}

function link(fromTable: string, fromColumn: string, toTable: string, toColumn: string): Relationship {
  return {
    from_table: fromTable,
    from_columns: [fromColumn],
    to_table: toTable,
    to_columns: [toColumn],
    source: 'inferred',
    name: relationshipName(fromTable, toTable),
  };
}

/** Semantic types read from the engine's own types: a model's guess does not replace them. */
const TYPE_DERIVED = new Set<DiscoveredTable['columns'][number]['semantic_type']>([
  'datetime',
  'boolean',
  'identifier',
]);

/**
 * A model's description merged into the analysis: it fills descriptions the engine gave none of,
 * refines semantic types the names and counts guessed (not those the engine's types give), and names
 * the relationships. Tables, columns and links it was not shown were dropped before this.
 */
export function withDescription(
  tables: DiscoveredTable[],
  relationships: Relationship[],
  description: SchemaDescription,
): { tables: DiscoveredTable[]; relationships: Relationship[] } {
  const byTable = new Map(description.tables.map((t) => [t.name, t]));
  return {
    tables: tables.map((table) => {
      const told = byTable.get(table.name);
      if (!told) return table;
      const columns = new Map(told.columns.map((c) => [c.name, c]));
      return {
        ...table,
        description: table.description ?? told.description,
        columns: table.columns.map((column) => {
          const c = columns.get(column.name);
          if (!c) return column;
          return {
            ...column,
            description: column.description ?? c.description,
            semantic_type: TYPE_DERIVED.has(column.semantic_type) ? column.semantic_type : c.semantic_type,
          };
        }),
      };
    }),
    relationships: relationships.map((r) => {
      const named = description.relationships.find(
        (d) =>
          d.from_table === r.from_table &&
          d.to_table === r.to_table &&
          d.from_columns.join(',') === r.from_columns.join(','),
      );
      return named ? { ...r, name: named.name } : r;
    }),
  };
}
