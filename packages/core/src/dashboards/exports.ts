import type { DownloadFormat } from '@aqs/contracts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { DomainError } from '../errors.ts';
import { downloadOf, type FileResponse } from '../artifacts/exports.ts';
import type { ChartPayload, TablePayload } from '../artifacts/service.ts';
import { loadOwnedItem, type ItemRow } from './service.ts';

/** The rows an item shows or is drawn from (a chart item keeps them beside its chart). */
function rowsOf(item: ItemRow): TablePayload {
  if (item.kind === 'table') return item.data as unknown as TablePayload;
  if (item.sourceTable) return item.sourceTable as unknown as TablePayload;
  throw new DomainError(
    'conflict',
    `Item ${item.id} was pinned without its rows; refresh it (POST /api/v1/dashboards/${item.dashboardId}/items/${item.id}/refresh), then download its CSV.`,
  );
}

/**
 * An item's latest data as a file, named after its question: its rows as CSV (the default for a
 * table) or JSON; a chart item as PNG (its default), SVG, JSON (the ECharts option) or CSV (its rows).
 */
export async function downloadItem(
  deps: CoreDeps,
  principal: Principal,
  dashboardId: string,
  itemId: string,
  format: DownloadFormat | undefined,
): Promise<FileResponse> {
  const item = await loadOwnedItem(deps.db, principal, dashboardId, itemId);
  // The data changes only when the item is pinned or refreshed, so that instant names this version.
  const version = (item.refreshedAt ?? item.createdAt).getTime();
  return downloadOf(
    {
      question: item.question,
      kind: item.kind,
      rows: async () => rowsOf(item),
      chart: async () => ({
        option: (item.data as unknown as ChartPayload).option,
        renderKey: `item:${item.id}:${version}`,
      }),
      chartCsvElsewhere: null,
    },
    format,
  );
}
