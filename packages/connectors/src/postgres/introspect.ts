/**
 * Structure of the scoped schemas from the system catalogs (tables, views, materialized views,
 * foreign and partitioned tables; columns, keys, comments, row estimates). Shared by PostgreSQL and
 * the embedded demo; arrays travel as JSON so both drivers read them the same way.
 */
import type { IntrospectedTable, Introspection } from '../types.ts';
import { textArrayLiteral } from './results.ts';

export type MetaQuery = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const RELATIONS = `
SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind, c.reltuples::float8 AS reltuples,
       has_table_privilege(c.oid, 'SELECT') AS can_select
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
ORDER BY n.nspname, c.relname`;

const COLUMNS = `
SELECT n.nspname AS schema, c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       t.typname AS udt, NOT a.attnotnull AS nullable, col_description(c.oid, a.attnum) AS description
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY n.nspname, c.relname, a.attnum`;

const CONSTRAINTS = `
SELECT n.nspname AS schema, c.relname AS table, con.contype::text AS type, con.conname AS name,
       to_json(ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, i)
                     JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.i))::text AS columns,
       fn.nspname AS ref_schema, fc.relname AS ref_table,
       to_json(ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, i)
                     JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.i))::text AS ref_columns
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_class fc ON fc.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = fc.relnamespace
WHERE con.contype IN ('p', 'f') AND n.nspname = ANY($1::text[])
ORDER BY n.nspname, c.relname, con.contype, con.conname`;

const SCHEMAS = `SELECT n.nspname AS name FROM pg_catalog.pg_namespace n WHERE n.nspname = ANY($1::text[])`;

const KINDS: Record<string, IntrospectedTable['kind']> = {
  r: 'table',
  p: 'table',
  f: 'table',
  v: 'view',
  m: 'materialized_view',
};

function str(v: unknown): string {
  return typeof v === 'string' ? v : String(v ?? '');
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(str);
  if (typeof v === 'string') {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.map(str) : [];
  }
  return [];
}

export async function introspectCatalog(
  query: MetaQuery,
  schemas: readonly string[],
  serverVersion: string | null,
): Promise<Introspection> {
  // One text parameter in array syntax: the driver does not map JS arrays to PostgreSQL arrays.
  const scope = [...schemas];
  const scopeParam = textArrayLiteral(scope);
  const [existing, relations, columns, constraints] = [
    await query(SCHEMAS, [scopeParam]),
    await query(RELATIONS, [scopeParam]),
    await query(COLUMNS, [scopeParam]),
    await query(CONSTRAINTS, [scopeParam]),
  ];
  const tables = new Map<string, IntrospectedTable>();
  const key = (schema: unknown, name: unknown): string => `${str(schema)}\u0000${str(name)}`;
  for (const r of relations) {
    const kind = KINDS[str(r.kind)] ?? 'table';
    const reltuples = Number(r.reltuples);
    const table: IntrospectedTable = {
      name: str(r.name),
      schema: str(r.schema),
      kind,
      columns: [],
      primary_key: [],
      foreign_keys: [],
      // reltuples is -1 (PostgreSQL 14+) or 0 before the first ANALYZE; views have none.
      row_estimate:
        kind === 'view' || !Number.isFinite(reltuples) || reltuples < 0 ? null : Math.round(reltuples),
      members: [],
      warnings:
        r.can_select === false
          ? ["The connection's role has no SELECT privilege on this table; queries on it will fail."]
          : [],
    };
    tables.set(key(r.schema, r.name), table);
  }
  for (const c of columns) {
    const table = tables.get(key(c.schema, c.table));
    if (!table) continue;
    table.columns.push({
      name: str(c.name),
      type: str(c.type),
      native_type: str(c.udt),
      nullable: table.kind === 'table' ? c.nullable === true : c.nullable === false ? false : null,
      queryable: true,
      description: typeof c.description === 'string' ? c.description : null,
      note: null,
    });
  }
  for (const k of constraints) {
    const table = tables.get(key(k.schema, k.table));
    if (!table) continue;
    if (k.type === 'p') table.primary_key = list(k.columns);
    else
      table.foreign_keys.push({
        columns: list(k.columns),
        references: { schema: str(k.ref_schema), table: str(k.ref_table), columns: list(k.ref_columns) },
      });
  }
  const found = new Set(existing.map((s) => str(s.name)));
  const warnings: string[] = [];
  for (const s of scope)
    if (!found.has(s))
      warnings.push(`Schema "${s}" does not exist on the server (names are case-sensitive).`);
  const all = [...tables.values()];
  if (all.length === 0) warnings.push(`No tables or views in the scoped schemas (${scope.join(', ')}).`);
  return {
    dialect: 'postgres',
    schemas: scope
      .filter((s) => found.has(s))
      .map((name) => ({ name, table_count: all.filter((t) => t.schema === name).length })),
    tables: all,
    warnings,
    server_version: serverVersion,
  };
}
