import { eq } from 'drizzle-orm';
import { dashboardItems } from '@aqs/db';
import type { Dashboard } from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { loadOwnedConnection, type ConnectionRow } from '../connections/service.ts';
import {
  executeStoredQuery,
  type ConnectionLoader,
  rebuiltChart,
  type ChartPayload,
  type TablePayload,
} from '../artifacts/service.ts';
import { getDashboard, itemsOf, loadOwnedDashboard, loadOwnedItem, type ShownItemRow } from './service.ts';

/** Item queries running at once for one refresh, and at once on one connection. */
export const REFRESH_CONCURRENCY = { total: 4, perConnection: 2 } as const;

export interface ItemOutcome {
  item_id: string;
  status: 'refreshed' | 'failed';
  error: { type: string; message: string } | null;
  refreshed_at: string | null;
}

/**
 * Runs `work` over `items` with at most `total` at once and at most `perKey` at once for one key,
 * in the items' order as far as the bounds allow. Resolves with the results in the items' order.
 */
export async function runBounded<T, R>(
  items: readonly T[],
  bounds: { total: number; perKey: number },
  keyOf: (item: T) => string,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const waiting = items.map((item, index) => ({ item, index }));
  const running = new Map<string, number>();
  let active = 0;
  return new Promise((resolve, reject) => {
    const startEligible = () => {
      if (waiting.length === 0 && active === 0) return resolve(results);
      for (let i = 0; i < waiting.length && active < bounds.total;) {
        const { item, index } = waiting[i]!;
        const key = keyOf(item);
        if ((running.get(key) ?? 0) >= bounds.perKey) {
          i++;
          continue;
        }
        waiting.splice(i, 1);
        active++;
        running.set(key, (running.get(key) ?? 0) + 1);
        work(item).then((result) => {
          results[index] = result;
          active--;
          running.set(key, running.get(key)! - 1);
          startEligible();
        }, reject);
      }
    };
    startEligible();
  });
}

function errorOf(error: unknown): { type: string; message: string } {
  if (error instanceof DomainError) return { type: error.code ?? error.kind, message: error.message };
  return { type: 'internal', message: 'The refresh failed on our side; the error was logged. Try again.' };
}

/**
 * Runs one item's own query again (never the planner, no question charged) and stores the rows as
 * its data (a chart is rebuilt from them); a failure is kept as `last_error` beside the old data.
 */
async function refreshItem(
  deps: CoreDeps,
  principal: Principal,
  item: ShownItemRow,
  loadConnection?: ConnectionLoader,
): Promise<ItemOutcome> {
  try {
    const stored = {
      owner: `item ${item.id}`,
      connectionId: item.connectionId,
      dialect: item.queryDialect,
      text: item.queryText,
    };
    const result = await executeStoredQuery(deps, principal, stored, { loadConnection });
    const table: TablePayload = {
      kind: 'table',
      columns: result.columns,
      rows: result.rows,
      row_count: result.rows.length,
      truncated: result.truncated,
    };
    const data =
      item.kind === 'table' ? table : rebuiltChart(item, item.data as unknown as ChartPayload, table);
    const refreshedAt = new Date();
    await deps.db
      .update(dashboardItems)
      .set({
        data: data as unknown as Record<string, unknown>,
        sourceTable: item.kind === 'chart' ? (table as unknown as Record<string, unknown>) : null,
        refreshedAt,
        lastError: null,
      })
      .where(eq(dashboardItems.id, item.id));
    return { item_id: item.id, status: 'refreshed', error: null, refreshed_at: refreshedAt.toISOString() };
  } catch (error) {
    if (!(error instanceof DomainError))
      deps.logger.error({ err: error, itemId: item.id }, 'item refresh failed');
    const failure = errorOf(error);
    await deps.db.update(dashboardItems).set({ lastError: failure }).where(eq(dashboardItems.id, item.id));
    return {
      item_id: item.id,
      status: 'failed',
      error: failure,
      refreshed_at: item.refreshedAt?.toISOString() ?? null,
    };
  }
}

/** Refreshes under way on this instance, by dashboard (or item): a second request joins the first. */
const inFlight = new Map<string, Promise<ItemOutcome[]>>();

function joined(key: string, start: () => Promise<ItemOutcome[]>): Promise<ItemOutcome[]> {
  const running = inFlight.get(key);
  if (running) return running;
  const started = start().finally(() => inFlight.delete(key));
  inFlight.set(key, started);
  return started;
}

/**
 * Re-executes every item's query with bounded concurrency (REFRESH_CONCURRENCY); one item's failure
 * never fails the others. Answers the dashboard and each item's outcome.
 */
export async function refreshDashboard(
  deps: CoreDeps,
  principal: Principal,
  dashboardId: string,
): Promise<{ dashboard: Dashboard; outcomes: ItemOutcome[] }> {
  const dashboard = await loadOwnedDashboard(deps.db, principal, dashboardId);
  const outcomes = await joined(dashboard.id, async () => {
    // Items on one connection share one read of it.
    const loaded = new Map<string, Promise<ConnectionRow>>();
    const loadConnection: ConnectionLoader = (id) => {
      let row = loaded.get(id);
      if (!row) loaded.set(id, (row = loadOwnedConnection(deps.db, principal, id)));
      return row;
    };
    return runBounded(
      await itemsOf(deps.db, dashboard.id),
      { total: REFRESH_CONCURRENCY.total, perKey: REFRESH_CONCURRENCY.perConnection },
      (item) => item.connectionId ?? `none:${item.id}`,
      (item) => refreshItem(deps, principal, item, loadConnection),
    );
  });
  return { dashboard: await getDashboard(deps.db, principal, dashboard.id), outcomes };
}

export async function refreshDashboardItem(
  deps: CoreDeps,
  principal: Principal,
  dashboardId: string,
  itemId: string,
): Promise<{ dashboard: Dashboard; outcomes: ItemOutcome[] }> {
  const item = await loadOwnedItem(deps.db, principal, dashboardId, itemId);
  const outcomes = await joined(`${dashboardId}:${item.id}`, async () => [
    await refreshItem(deps, principal, item),
  ]);
  return { dashboard: await getDashboard(deps.db, principal, dashboardId), outcomes };
}
