import type { DownloadFormat } from '@aqs/contracts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { DomainError } from '../errors.ts';
import { csvStream } from '../artifacts/csv.ts';
import {
  DOWNLOAD_SIZE,
  fieldError,
  namedFile,
  renderOption,
  type FileResponse,
} from '../artifacts/exports.ts';
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
 * table) or JSON; a chart item as PNG (its default), SVG or JSON (the ECharts option) too.
 */
export async function downloadItem(
  deps: CoreDeps,
  principal: Principal,
  dashboardId: string,
  itemId: string,
  format: DownloadFormat | undefined,
): Promise<FileResponse> {
  const item = await loadOwnedItem(deps.db, principal, dashboardId, itemId);
  const chosen = format ?? (item.kind === 'table' ? 'csv' : 'png');
  if (chosen === 'csv') {
    const table = rowsOf(item);
    return namedFile(item.question, 'csv', csvStream(table.columns, table.rows));
  }
  if (item.kind === 'table') {
    if (chosen === 'json') {
      const { columns, rows } = rowsOf(item);
      return namedFile(item.question, 'json', JSON.stringify({ columns, rows }));
    }
    throw fieldError('format', `A table item downloads as csv or json, not ${chosen}.`);
  }
  const { option } = item.data as unknown as ChartPayload;
  if (chosen === 'json') return namedFile(item.question, 'json', JSON.stringify(option));
  // The data changes only when the item is pinned or refreshed, so that instant names this version.
  const version = (item.refreshedAt ?? item.createdAt).getTime();
  const body = await renderOption(`item:${item.id}:${version}`, option, { format: chosen, ...DOWNLOAD_SIZE });
  return namedFile(item.question, chosen, body);
}
