import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { connectionSchemas, connections, queryTemplates } from '@aqs/db';
import { connectorFor, type Introspection, type IntrospectedTable } from '@aqs/connectors';
import type { z } from 'zod';
import type {
  DiscoverySummary,
  curatedMetadataInputSchema,
  schemaOverridesInputSchema,
  schemaSelectionInputSchema,
} from '@aqs/contracts';
import { DomainError, fromConnectorError } from '../errors.ts';
import { sanitizeForStore } from '../storable.ts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { connectorContext, loadOwnedConnection, targetOf, type ConnectionRow } from './service.ts';

type Curated = Omit<z.infer<typeof curatedMetadataInputSchema>, 'id'>;
type Overrides = Omit<z.infer<typeof schemaOverridesInputSchema>, 'id'>;
type Selection = Omit<z.infer<typeof schemaSelectionInputSchema>, 'id'>;

export function qualifiedName(table: Pick<IntrospectedTable, 'schema' | 'name'>): string {
  return table.schema ? `${table.schema}.${table.name}` : table.name;
}

const tableShape = (t: IntrospectedTable) =>
  [qualifiedName(t), t.kind, t.columns.map((c) => [c.name, c.type]).sort()] as const;
const hash = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);

/** A hash of what the planner depends on (tables, kinds, columns, types): metadata made from another structure is stale. */
export function structureFingerprint(introspection: Introspection): string {
  return hash(introspection.tables.map(tableShape).sort((a, b) => a[0].localeCompare(b[0])));
}

/** The same, per table: what tells which tables were added, removed or changed since an analysis. */
export function tableSignatures(introspection: Introspection): Record<string, string> {
  return Object.fromEntries(introspection.tables.map((t) => [qualifiedName(t), hash(tableShape(t))]));
}

function structureChanges(before: Record<string, string>, now: Record<string, string>) {
  return {
    added: Object.keys(now)
      .filter((t) => !(t in before))
      .sort(),
    removed: Object.keys(before)
      .filter((t) => !(t in now))
      .sort(),
    changed: Object.keys(now)
      .filter((t) => t in before && before[t] !== now[t])
      .sort(),
  };
}

async function storedSchema(deps: CoreDeps, connectionId: string) {
  const [row] = await deps.db
    .select()
    .from(connectionSchemas)
    .where(eq(connectionSchemas.connectionId, connectionId))
    .limit(1);
  return row;
}

/** Introspects a connection already loaded for its owner and stores the structure with its fingerprint. */
export async function runIntrospection(deps: CoreDeps, row: ConnectionRow, signal: AbortSignal | undefined) {
  const connector = connectorFor(row.dialect);
  if (!connector) throw new DomainError('conflict', `The ${row.dialect} connector is not available.`);
  const introspection = sanitizeForStore(
    await connector
      .introspect(targetOf(deps, row), await connectorContext(deps, row, signal))
      .catch((error: unknown) => {
        throw fromConnectorError(error);
      }),
  );
  const fingerprint = structureFingerprint(introspection);
  const now = new Date();
  const values = {
    structure: introspection as unknown as Record<string, unknown>,
    structureFingerprint: fingerprint,
    introspectedAt: now,
    updatedAt: now,
  };
  await deps.db
    .insert(connectionSchemas)
    .values({ connectionId: row.id, workspaceId: row.workspaceId, ...values })
    .onConflictDoUpdate({ target: connectionSchemas.connectionId, set: values });
  return { introspection, fingerprint, introspectedAt: now };
}

/** Introspects now (structure only, no AI) and stores the result. */
export async function introspect(deps: CoreDeps, principal: Principal, id: string, signal?: AbortSignal) {
  const row = await loadOwnedConnection(deps.db, principal, id);
  const { introspection, fingerprint, introspectedAt } = await runIntrospection(deps, row, signal);
  const stored = await storedSchema(deps, row.id);
  return {
    connection_id: row.id,
    dialect: introspection.dialect,
    schemas: introspection.schemas,
    tables: introspection.tables.map((t) =>
      summarize(t, stored?.curated as Curated | null, stored?.selectedTables ?? null),
    ),
    warnings: introspection.warnings,
    server_version: introspection.server_version,
    fingerprint,
    introspected_at: introspectedAt.toISOString(),
  };
}

type StoredSchema = typeof connectionSchemas.$inferSelect;

/** A connection of the caller's workspace with its stored schema row (null before the first introspection). */
export interface ConnectionWithSchema {
  row: ConnectionRow;
  schema: StoredSchema | null;
  /** Whether any query template is saved on it. */
  hasTemplates: boolean;
}

/** `loadOwnedConnection` and the connection's stored schema in one statement (what a run reads first). */
export async function loadConnectionWithSchema(
  deps: CoreDeps,
  principal: Principal,
  id: string,
): Promise<ConnectionWithSchema> {
  const [found] = await deps.db
    .select({
      row: connections,
      schema: connectionSchemas,
      hasTemplates: sql<boolean>`exists (select 1 from ${queryTemplates} where ${queryTemplates.connectionId} = ${connections.id})`,
    })
    .from(connections)
    .leftJoin(connectionSchemas, eq(connectionSchemas.connectionId, connections.id))
    .where(and(eq(connections.id, id), eq(connections.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!found) throw new DomainError('not_found', `Connection ${id} was not found in your workspace.`);
  return { row: found.row, schema: found.schema, hasTemplates: found.hasTemplates === true };
}

/**
 * The stored structure, introspecting first when the connection was never introspected. Takes an id,
 * a row already loaded for the caller, or one loaded with its schema (`loadConnectionWithSchema`).
 */
export async function loadStructure(
  deps: CoreDeps,
  principal: Principal,
  connection: string | ConnectionRow | ConnectionWithSchema,
  signal?: AbortSignal,
) {
  const loaded = typeof connection === 'object' && 'hasTemplates' in connection;
  const row: ConnectionRow = loaded
    ? connection.row
    : typeof connection === 'string'
      ? await loadOwnedConnection(deps.db, principal, connection)
      : connection;
  let stored = loaded ? (connection.schema ?? undefined) : await storedSchema(deps, row.id);
  if (!stored?.structure || !stored.introspectedAt) {
    await runIntrospection(deps, row, signal);
    stored = await storedSchema(deps, row.id);
  }
  if (!stored?.structure || !stored.introspectedAt) throw new Error('introspection was not stored');
  return {
    row,
    introspection: stored.structure as unknown as Introspection,
    introspectedAt: stored.introspectedAt,
    curated: (stored.curated ?? null) as Curated | null,
    overrides: (stored.overrides ?? null) as Overrides | null,
    selection: (stored.selection ?? null) as Selection | null,
    selectedTables: stored.selectedTables ?? null,
    /** Top values per table and column, gathered by runs (see runs/samples.ts); empty until then. */
    samples: ((stored.analysis as { samples?: Record<string, Record<string, unknown[]>> } | null)?.samples ??
      {}) as Record<string, Record<string, unknown[]>>,
    /** The last schema analysis (discovery), whatever structure it was made from; null before the first. */
    discovery: (stored.analysis as { discovery?: DiscoverySummary } | null)?.discovery ?? null,
    /** The stored analysis whole, as read (samples and probes read it again otherwise). */
    analysis: { stored: stored.analysis as unknown },
  };
}

function tableDescription(curated: Curated | null, name: string): string | null {
  return curated?.tables.find((t) => t.name === name)?.description ?? null;
}

function summarize(table: IntrospectedTable, curated: Curated | null, selectedTables: string[] | null) {
  const name = qualifiedName(table);
  return {
    name,
    schema: table.schema,
    kind: table.kind,
    column_count: table.columns.length,
    row_estimate: table.row_estimate,
    description: tableDescription(curated, name),
    selected: selectedTables === null || selectedTables.includes(name),
  };
}

export async function listSchemas(deps: CoreDeps, principal: Principal, id: string, signal?: AbortSignal) {
  const s = await loadStructure(deps, principal, id, signal);
  return {
    connection_id: s.row.id,
    schemas: s.introspection.schemas,
    introspected_at: s.introspectedAt.toISOString(),
  };
}

export async function listTables(deps: CoreDeps, principal: Principal, id: string, signal?: AbortSignal) {
  const s = await loadStructure(deps, principal, id, signal);
  return {
    connection_id: s.row.id,
    tables: s.introspection.tables.map((t) => summarize(t, s.curated, s.selectedTables)),
    introspected_at: s.introspectedAt.toISOString(),
  };
}

/** Finds a table by its qualified name, or by its bare name when that is unique. */
function findTable(tables: IntrospectedTable[], name: string): IntrospectedTable | undefined {
  const exact = tables.find((t) => qualifiedName(t) === name);
  if (exact) return exact;
  const bare = tables.filter((t) => t.name === name);
  return bare.length === 1 ? bare[0] : undefined;
}

export async function getTable(
  deps: CoreDeps,
  principal: Principal,
  id: string,
  tableName: string,
  signal?: AbortSignal,
) {
  const s = await loadStructure(deps, principal, id, signal);
  const table = findTable(s.introspection.tables, tableName);
  if (!table)
    throw new DomainError(
      'not_found',
      `Table ${tableName} was not found in connection ${id}. List tables with GET /api/v1/schema/${id}/tables.`,
    );
  const name = qualifiedName(table);
  const curatedColumns = s.curated?.tables.find((t) => t.name === name)?.columns ?? [];
  const pkOverride = s.overrides?.primary_keys.find((p) => p.table === name)?.columns;
  const primaryKey = pkOverride ?? table.primary_key;
  const relationships = s.overrides?.relationships.filter((r) => r.from_table === name) ?? [];
  const references = (column: string) => {
    const fk = table.foreign_keys.find((f) => f.columns.length === 1 && f.columns[0] === column);
    if (fk)
      return {
        table: qualifiedName({ schema: fk.references.schema, name: fk.references.table }),
        column: fk.references.columns[0] ?? '',
      };
    const rel = relationships.find((r) => r.from_columns.length === 1 && r.from_columns[0] === column);
    return rel ? { table: rel.to_table, column: rel.to_columns[0] ?? '' } : null;
  };
  return {
    ...summarize(table, s.curated, s.selectedTables),
    columns: table.columns.map((c) => ({
      name: c.name,
      type: c.type,
      native_type: c.native_type,
      nullable: c.nullable,
      queryable: c.queryable,
      description: curatedColumns.find((cc) => cc.name === c.name)?.description ?? c.description,
      note: c.note,
      is_primary_key: primaryKey.includes(c.name),
      references: references(c.name),
      sample_values: s.samples[name]?.[c.name] ?? [],
    })),
    primary_key: primaryKey,
    foreign_keys: [
      ...table.foreign_keys,
      ...relationships.map((r) => ({
        columns: r.from_columns,
        references: { schema: null, table: r.to_table, columns: r.to_columns },
      })),
    ],
    members: table.members,
    warnings: table.warnings,
  };
}

export async function metadataStatus(deps: CoreDeps, principal: Principal, id: string) {
  const row = await loadOwnedConnection(deps.db, principal, id);
  const stored = await storedSchema(deps, row.id);
  const introspectedAt = stored?.introspectedAt ?? null;
  const analysisFingerprint = stored?.analysisFingerprint ?? null;
  let stale = true;
  let changes: { added: string[]; removed: string[]; changed: string[] } | null = null;
  let reason: string | null =
    'The connection has not been introspected yet. Run POST /api/v1/connections/{id}/introspect.';
  if (introspectedAt) {
    if (!stored?.analyzedAt) {
      reason =
        'No schema analysis yet: planning uses the structure alone. Run a discovery to add descriptions and relationships.';
    } else if (analysisFingerprint !== stored.structureFingerprint) {
      const before = (stored.analysis as { discovery_tables?: Record<string, string> } | null)
        ?.discovery_tables;
      if (before && stored.structure) {
        changes = structureChanges(before, tableSignatures(stored.structure as unknown as Introspection));
        const parts = [
          changes.added.length > 0 ? `added: ${changes.added.join(', ')}` : '',
          changes.removed.length > 0 ? `removed: ${changes.removed.join(', ')}` : '',
          changes.changed.length > 0 ? `changed: ${changes.changed.join(', ')}` : '',
        ].filter(Boolean);
        reason = `The structure changed since the last analysis (${parts.join('; ') || 'kinds of tables'}). Run a discovery again.`;
      } else reason = 'The structure changed since the last analysis. Run a discovery again.';
    } else {
      stale = false;
      reason = null;
    }
  }
  return {
    connection_id: row.id,
    introspected_at: introspectedAt?.toISOString() ?? null,
    structure_fingerprint: stored?.structureFingerprint ?? null,
    analyzed_at: stored?.analyzedAt?.toISOString() ?? null,
    analysis_fingerprint: analysisFingerprint,
    stale,
    reason,
    changes,
  };
}

/** Every table and column named in a settings body must exist; errors name the offending entries. */
function assertKnown(
  tables: IntrospectedTable[],
  refs: { field: string; table: string; columns?: string[] }[],
) {
  const errors = [];
  for (const ref of refs) {
    const table = findTable(tables, ref.table);
    if (!table) {
      errors.push({ field: ref.field, message: `names an unknown table "${ref.table}"` });
      continue;
    }
    for (const column of ref.columns ?? []) {
      if (!table.columns.some((c) => c.name === column))
        errors.push({ field: ref.field, message: `names an unknown column "${column}" of ${ref.table}` });
    }
  }
  if (errors.length > 0)
    throw new DomainError('validation', 'Unknown tables or columns.', { fields: errors });
}

async function saveSettings(
  deps: CoreDeps,
  row: ConnectionRow,
  values: Partial<typeof connectionSchemas.$inferInsert>,
) {
  await deps.db
    .update(connectionSchemas)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(connectionSchemas.connectionId, row.id));
  return settingsOf(deps, row.id);
}

export async function settingsOf(deps: CoreDeps, connectionId: string) {
  const stored = await storedSchema(deps, connectionId);
  return {
    connection_id: connectionId,
    curated: stored?.curated ?? null,
    overrides: stored?.overrides ?? null,
    selection: stored?.selection ?? null,
    selected_tables: stored?.selectedTables ?? null,
  };
}

/** The curated values of one of the caller's connections. */
export async function getSettings(deps: CoreDeps, principal: Principal, id: string) {
  const row = await loadOwnedConnection(deps.db, principal, id);
  return settingsOf(deps, row.id);
}

export async function putCurated(
  deps: CoreDeps,
  principal: Principal,
  input: z.infer<typeof curatedMetadataInputSchema>,
) {
  const s = await loadStructure(deps, principal, input.id);
  assertKnown(
    s.introspection.tables,
    input.tables.map((t, i) => ({
      field: `tables.${i}`,
      table: t.name,
      columns: t.columns.map((c) => c.name),
    })),
  );
  const curated: Curated = {
    tables: input.tables.map((t) => ({
      ...t,
      name: qualifiedName(findTable(s.introspection.tables, t.name)!),
    })),
  };
  return saveSettings(deps, s.row, { curated: curated as unknown as Record<string, unknown> });
}

export async function putOverrides(
  deps: CoreDeps,
  principal: Principal,
  input: z.infer<typeof schemaOverridesInputSchema>,
) {
  const s = await loadStructure(deps, principal, input.id);
  assertKnown(s.introspection.tables, [
    ...input.primary_keys.map((p, i) => ({ field: `primary_keys.${i}`, table: p.table, columns: p.columns })),
    ...input.relationships.flatMap((r, i) => [
      { field: `relationships.${i}.from_table`, table: r.from_table, columns: r.from_columns },
      { field: `relationships.${i}.to_table`, table: r.to_table, columns: r.to_columns },
    ]),
    ...input.no_relationships.map((table, i) => ({ field: `no_relationships.${i}`, table })),
  ]);
  const { id: _id, ...overrides } = input;
  return saveSettings(deps, s.row, { overrides: overrides as unknown as Record<string, unknown> });
}

export async function putSelection(
  deps: CoreDeps,
  principal: Principal,
  input: z.infer<typeof schemaSelectionInputSchema>,
) {
  const s = await loadStructure(deps, principal, input.id);
  assertKnown(
    s.introspection.tables,
    input.tables.map((t, i) => ({ field: `tables.${i}`, table: t.name, columns: t.columns })),
  );
  const { id: _id, ...selection } = input;
  return saveSettings(deps, s.row, {
    selection: selection as unknown as Record<string, unknown>,
    selectedTables: input.tables.map((t) => qualifiedName(findTable(s.introspection.tables, t.name)!)),
  });
}

export async function putSelectedTables(deps: CoreDeps, principal: Principal, id: string, tables: string[]) {
  const s = await loadStructure(deps, principal, id);
  assertKnown(
    s.introspection.tables,
    tables.map((t, i) => ({ field: `tables.${i}`, table: t })),
  );
  return saveSettings(deps, s.row, {
    selectedTables: tables.map((t) => qualifiedName(findTable(s.introspection.tables, t)!)),
  });
}
