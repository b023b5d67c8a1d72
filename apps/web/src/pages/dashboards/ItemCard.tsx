import { useRef, useState, type CSSProperties } from 'react';
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { DashboardItem } from '../../lib/api.ts';
import { useSeenOnce } from '../../lib/use-in-view.ts';
import { Button, ConfirmDialog, DownloadLink, ErrorNote, formatDate } from '../../components/ui.tsx';
import { Chart } from '../ask/Chart.tsx';
import { DataTable } from '../ask/DataTable.tsx';
import { ItemEditForm } from './ItemEditForm.tsx';
import { useDashboardActions } from './queries.ts';

/** Grid columns an item spans on a medium screen (a 12-column grid becomes two columns). */
const mediumSpan = (w: number) => (w <= 6 ? 6 : 12);

/** One pinned answer on the grid: its chart or table (drawn once scrolled to), and its tools. */
export function ItemCard({
  dashboardId,
  item,
  refreshingAll,
  onRemoved,
}: {
  dashboardId: string;
  item: DashboardItem;
  refreshingAll: boolean;
  /** Called once the item is gone, to put the focus somewhere useful. */
  onRemoved: () => void;
}) {
  const sortable = useSortable({ id: item.id });
  const actions = useDashboardActions(dashboardId);
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const refreshing = refreshingAll || actions.refreshItem.isPending;
  const style = {
    '--w': item.size.w,
    '--w-md': mediumSpan(item.size.w),
    '--h': item.size.h,
    transform: CSS.Translate.toString(sortable.transform),
    transition: sortable.transition,
  } as CSSProperties;

  return (
    <li
      ref={sortable.setNodeRef}
      style={style}
      className={`card dash-item${sortable.isDragging ? ' is-dragging' : ''}`}
      aria-labelledby={`${item.id}-title`}
      aria-busy={refreshing || undefined}
    >
      <header className="dash-item-head">
        <button
          type="button"
          ref={sortable.setActivatorNodeRef}
          className="drag-handle"
          {...sortable.attributes}
          {...sortable.listeners}
          aria-label={`Move “${item.title}”`}
          title="Drag to move, or press Space and then the arrow keys"
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M9 5h.01M15 5h.01M9 12h.01M15 12h.01M9 19h.01M15 19h.01" />
          </svg>
        </button>
        <h2 id={`${item.id}-title`} className="dash-item-title" title={item.title}>
          {item.title}
        </h2>
        <ItemStatus item={item} refreshing={refreshing} />
      </header>

      {editing ? (
        <ItemEditForm
          item={item}
          update={actions.updateItem}
          onDone={() => setEditing(false)}
          onCancel={() => {
            actions.updateItem.reset();
            setEditing(false);
          }}
        />
      ) : (
        <ItemBody item={item} />
      )}

      <ItemProblems item={item} />
      <ErrorNote error={actions.refreshItem.error} title={`“${item.title}” could not be refreshed`} />

      <footer className="dash-item-tools" aria-label={`Tools for “${item.title}”`}>
        <Button
          size="sm"
          variant="ghost"
          busy={actions.refreshItem.isPending}
          disabled={refreshingAll || item.connection_id === null}
          onClick={() => actions.refreshItem.mutate(item.id)}
          aria-label={`Refresh “${item.title}”`}
          title="Run its query again (no question is charged)"
        >
          ↻
        </Button>
        <ItemDownloads dashboardId={dashboardId} item={item} />
        <Button
          size="sm"
          variant="ghost"
          onClick={() => setEditing((v) => !v)}
          aria-expanded={editing}
          aria-label={`Edit “${item.title}”`}
        >
          Edit
        </Button>
        <Button
          size="sm"
          variant="ghost"
          onClick={() => {
            actions.removeItem.reset();
            setRemoving(true);
          }}
          aria-label={`Remove “${item.title}”`}
        >
          Remove
        </Button>
      </footer>

      <ConfirmDialog
        open={removing}
        title="Remove this item?"
        confirmLabel="Remove"
        busy={actions.removeItem.isPending}
        error={actions.removeItem.error}
        onCancel={() => setRemoving(false)}
        onConfirm={() =>
          actions.removeItem.mutate(item.id, {
            onSuccess: () => {
              setRemoving(false);
              onRemoved();
            },
          })
        }
      >
        <p>“{item.title}” leaves this dashboard. The answer it was pinned from stays in its conversation.</p>
      </ConfirmDialog>
    </li>
  );
}

/** Plain text: the page's summary line is what a screen reader hears after a refresh. */
function ItemStatus({ item, refreshing }: { item: DashboardItem; refreshing: boolean }) {
  if (refreshing)
    return (
      <span className="dash-item-status muted small">
        <span className="spinner spinner-inline" aria-hidden="true" /> Refreshing…
      </span>
    );
  if (item.last_error) return <span className="dash-item-status badge badge-danger">Refresh failed</span>;
  return (
    <span className="dash-item-status muted small">
      {item.refreshed_at
        ? `Refreshed ${formatDate(item.refreshed_at)}`
        : `Pinned ${formatDate(item.created_at)}`}
    </span>
  );
}

/** Why the item cannot show fresh data: its last refresh failed, or its connection is gone. */
function ItemProblems({ item }: { item: DashboardItem }) {
  const since = formatDate(item.refreshed_at ?? item.created_at);
  if (item.connection_id === null)
    return (
      <p className="dash-item-problem small">
        Its connection was deleted, so it cannot be refreshed; the data shown is from {since}. Ask the
        question again on another connection and pin that answer.
      </p>
    );
  if (item.last_error)
    return (
      <p className="dash-item-problem small">
        {item.last_error.message} The data shown is from {since}.
      </p>
    );
  return null;
}

function ItemBody({ item }: { item: DashboardItem }) {
  const ref = useRef<HTMLDivElement>(null);
  const seen = useSeenOnce(ref);
  const data = item.data;
  return (
    <div ref={ref} className="dash-item-body">
      {!seen ? null : data.kind === 'chart' ? (
        <Chart
          option={data.option}
          chartType={data.chart_type}
          label={item.title}
          dataNote="Its rows download as CSV from the item's tools."
        />
      ) : (
        <DataTable
          columns={data.columns}
          rows={data.rows}
          truncated={data.truncated}
          caption={`Rows of “${item.title}”`}
        />
      )}
    </div>
  );
}

function ItemDownloads({ dashboardId, item }: { dashboardId: string; item: DashboardItem }) {
  const base = `/api/v1/dashboards/${encodeURIComponent(dashboardId)}/items/${encodeURIComponent(item.id)}/download`;
  const formats = item.kind === 'chart' ? (['csv', 'png', 'svg'] as const) : (['csv'] as const);
  return (
    <span className="row gap-sm" role="group" aria-label="Downloads">
      {formats.map((format) => (
        <DownloadLink
          key={format}
          ghost
          href={`${base}?format=${format}`}
          label={`Download “${item.title}” as ${format.toUpperCase()}`}
        >
          {format.toUpperCase()}
        </DownloadLink>
      ))}
    </span>
  );
}
