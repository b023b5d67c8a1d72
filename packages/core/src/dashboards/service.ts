import { and, asc, count, desc, eq, getTableColumns, inArray, max } from 'drizzle-orm';
import { dashboardItems, dashboards, newId, type Database, type Executor } from '@aqs/db';
import {
  DASHBOARD_MAX_ITEMS,
  type Dashboard,
  type DashboardItem,
  type ItemSize,
  type QuerySpec,
} from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import {
  chartPayloadOf,
  loadOwnedArtifact,
  tableOf,
  type ChartPayload,
  type TablePayload,
} from '../artifacts/service.ts';

export type DashboardRow = typeof dashboards.$inferSelect;
export type ItemRow = typeof dashboardItems.$inferSelect;
/** An item as shown and refreshed: without the rows a chart item keeps only for its CSV. */
export type ShownItemRow = Omit<ItemRow, 'sourceTable'>;
const { sourceTable: _rowsForCsv, ...shownItemColumns } = getTableColumns(dashboardItems);

const DEFAULT_SIZE: Record<'table' | 'chart', ItemSize> = { chart: { w: 6, h: 4 }, table: { w: 12, h: 4 } };

export function toItem(row: ShownItemRow): DashboardItem {
  return {
    id: row.id,
    dashboard_id: row.dashboardId,
    title: row.title ?? row.question,
    position: row.position,
    size: (row.layout as ItemSize | null) ?? DEFAULT_SIZE[row.kind],
    kind: row.kind,
    artifact_id: row.artifactId,
    run_id: row.runId,
    connection_id: row.connectionId,
    query: { dialect: row.queryDialect, text: row.queryText },
    query_spec: (row.querySpec as QuerySpec | null) ?? null,
    data: row.data as unknown as DashboardItem['data'],
    refreshed_at: row.refreshedAt?.toISOString() ?? null,
    last_error: (row.lastError as DashboardItem['last_error']) ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function summaryOf(row: DashboardRow, itemCount: number) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    item_count: itemCount,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function loadOwnedDashboard(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<DashboardRow> {
  const [row] = await db
    .select()
    .from(dashboards)
    .where(and(eq(dashboards.id, id), eq(dashboards.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!row) throw new DomainError('not_found', `Dashboard ${id} was not found in your workspace.`);
  return row;
}

export async function loadOwnedItem(
  db: Executor,
  principal: Principal,
  dashboardId: string,
  itemId: string,
): Promise<ItemRow> {
  const [row] = await db
    .select()
    .from(dashboardItems)
    .where(
      and(
        eq(dashboardItems.id, itemId),
        eq(dashboardItems.dashboardId, dashboardId),
        eq(dashboardItems.workspaceId, principal.workspaceId),
      ),
    )
    .limit(1);
  if (!row) throw new DomainError('not_found', `Item ${itemId} of dashboard ${dashboardId} was not found.`);
  return row;
}

export function itemsOf(db: Executor, dashboardId: string): Promise<ShownItemRow[]> {
  return db
    .select(shownItemColumns)
    .from(dashboardItems)
    .where(eq(dashboardItems.dashboardId, dashboardId))
    .orderBy(asc(dashboardItems.position), asc(dashboardItems.id));
}

export async function listDashboards(db: Executor, principal: Principal) {
  const rows = await db
    .select()
    .from(dashboards)
    .where(eq(dashboards.workspaceId, principal.workspaceId))
    .orderBy(desc(dashboards.updatedAt), desc(dashboards.id));
  const counts = rows.length
    ? await db
        .select({ id: dashboardItems.dashboardId, n: count() })
        .from(dashboardItems)
        .where(
          inArray(
            dashboardItems.dashboardId,
            rows.map((r) => r.id),
          ),
        )
        .groupBy(dashboardItems.dashboardId)
    : [];
  const countOf = new Map(counts.map((c) => [c.id, c.n]));
  return { dashboards: rows.map((row) => summaryOf(row, countOf.get(row.id) ?? 0)) };
}

export async function getDashboard(db: Executor, principal: Principal, id: string): Promise<Dashboard> {
  const row = await loadOwnedDashboard(db, principal, id);
  const items = await itemsOf(db, row.id);
  return { ...summaryOf(row, items.length), items: items.map(toItem) };
}

export async function createDashboard(
  db: Executor,
  principal: Principal,
  input: { name: string; description?: string | null | undefined },
): Promise<Dashboard> {
  const [row] = await db
    .insert(dashboards)
    .values({
      id: newId('dsh'),
      workspaceId: principal.workspaceId,
      name: input.name,
      description: input.description ?? null,
      createdBy: principal.userId,
    })
    .returning();
  return { ...summaryOf(row!, 0), items: [] };
}

export async function updateDashboard(
  db: Executor,
  principal: Principal,
  input: { id: string; name: string; description?: string | null | undefined },
): Promise<Dashboard> {
  const row = await loadOwnedDashboard(db, principal, input.id);
  await db
    .update(dashboards)
    .set({ name: input.name, description: input.description ?? null, updatedAt: new Date() })
    .where(eq(dashboards.id, row.id));
  return getDashboard(db, principal, row.id);
}

export async function deleteDashboard(db: Executor, principal: Principal, id: string): Promise<void> {
  const row = await loadOwnedDashboard(db, principal, id);
  await db.delete(dashboards).where(eq(dashboards.id, row.id));
}

/**
 * Pins an artifact of one of the caller's runs: the item keeps its own copy of the run's query and of
 * the artifact's data, so it outlives the run and its conversation.
 */
export async function addItem(
  db: Database,
  principal: Principal,
  input: { id: string; artifact_id: string; title?: string | undefined; size?: ItemSize | undefined },
): Promise<DashboardItem> {
  const dashboard = await loadOwnedDashboard(db, principal, input.id);
  const owned = await loadOwnedArtifact(db, principal, input.artifact_id);
  const { run, artifact } = owned;
  const { queryText, queryDialect } = run;
  if (run.status !== 'succeeded' || !queryText || !queryDialect)
    throw new DomainError('validation', 'Only an answer with a query can be pinned.', {
      fields: [
        { field: 'artifact_id', message: 'belongs to a run without a query; pin an answered question' },
      ],
    });
  // A chart keeps the rows it is drawn from beside it, for its CSV.
  const table: TablePayload = await tableOf(db, owned);
  const data: TablePayload | ChartPayload = artifact.kind === 'table' ? table : chartPayloadOf(artifact);
  return db.transaction(async (tx) => {
    // Pins to one dashboard take turns, so positions stay distinct and the item cap holds.
    await tx
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(eq(dashboards.id, dashboard.id))
      .for('update');
    const [last] = await tx
      .select({ position: max(dashboardItems.position), n: count() })
      .from(dashboardItems)
      .where(eq(dashboardItems.dashboardId, dashboard.id));
    if ((last?.n ?? 0) >= DASHBOARD_MAX_ITEMS)
      throw new DomainError(
        'conflict',
        `A dashboard holds at most ${DASHBOARD_MAX_ITEMS} items; remove one first.`,
      );
    const [row] = await tx
      .insert(dashboardItems)
      .values({
        id: newId('dbi'),
        workspaceId: principal.workspaceId,
        dashboardId: dashboard.id,
        runId: run.id,
        artifactId: artifact.id,
        title: input.title ?? null,
        position: (last?.position ?? -1) + 1,
        layout: (input.size ?? null) as unknown as Record<string, unknown> | null,
        kind: artifact.kind,
        connectionId: run.connectionId,
        queryDialect,
        queryText,
        querySpec: run.querySpec,
        question: run.question,
        data: data as unknown as Record<string, unknown>,
        sourceTable: artifact.kind === 'chart' ? (table as unknown as Record<string, unknown>) : null,
        refreshedAt: artifact.refreshedAt,
      })
      .returning();
    await tx.update(dashboards).set({ updatedAt: new Date() }).where(eq(dashboards.id, dashboard.id));
    return toItem(row!);
  });
}

export async function updateItem(
  db: Executor,
  principal: Principal,
  input: { id: string; item_id: string; title?: string | undefined; size?: ItemSize | undefined },
): Promise<DashboardItem> {
  const item = await loadOwnedItem(db, principal, input.id, input.item_id);
  const [row] = await db
    .update(dashboardItems)
    .set({
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.size !== undefined ? { layout: input.size as unknown as Record<string, unknown> } : {}),
      updatedAt: new Date(),
    })
    .where(eq(dashboardItems.id, item.id))
    .returning();
  return toItem(row!);
}

export async function deleteItem(db: Executor, principal: Principal, dashboardId: string, itemId: string) {
  const item = await loadOwnedItem(db, principal, dashboardId, itemId);
  await db.delete(dashboardItems).where(eq(dashboardItems.id, item.id));
}

/**
 * Puts the items in the given order, atomically. The list must be exactly the dashboard's items: a
 * 422 names the ids missing, unknown or repeated.
 */
export async function reorderItems(
  db: Database,
  principal: Principal,
  input: { id: string; item_ids: string[] },
): Promise<Dashboard> {
  const dashboard = await loadOwnedDashboard(db, principal, input.id);
  await db.transaction(async (tx) => {
    await tx
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(eq(dashboards.id, dashboard.id))
      .for('update');
    const current = (await itemsOf(tx, dashboard.id)).map((i) => i.id);
    const problems = permutationProblems(current, input.item_ids);
    if (problems.length > 0)
      throw new DomainError('validation', 'item_ids must list every item of the dashboard exactly once.', {
        fields: problems.map((message) => ({ field: 'item_ids', message })),
      });
    for (const [position, id] of input.item_ids.entries())
      await tx.update(dashboardItems).set({ position }).where(eq(dashboardItems.id, id));
    await tx.update(dashboards).set({ updatedAt: new Date() }).where(eq(dashboards.id, dashboard.id));
  });
  return getDashboard(db, principal, dashboard.id);
}

/** What keeps `given` from being an ordering of `current`, in sentences (empty when it is one). */
export function permutationProblems(current: readonly string[], given: readonly string[]): string[] {
  const known = new Set(current);
  const seen = new Set<string>();
  const repeated = given.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  const missing = current.filter((id) => !seen.has(id));
  const unknown = [...seen].filter((id) => !known.has(id));
  return [
    ...(missing.length ? [`is missing ${missing.join(', ')}`] : []),
    ...(unknown.length ? [`holds ids that are not items of this dashboard: ${unknown.join(', ')}`] : []),
    ...(repeated.length ? [`repeats ${[...new Set(repeated)].join(', ')}`] : []),
  ];
}
