import { useState } from 'react';
import { toApiError, type Dashboard, type ItemOutcome } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { Button, ConfirmDialog, EmptyState, ErrorNote, PageHeader, Spinner } from '../../components/ui.tsx';
import { DashboardForm } from './DashboardForm.tsx';
import { ItemGrid } from './ItemGrid.tsx';
import { useDashboard, useDashboardActions } from './queries.ts';

export function DashboardPage({ dashboardId }: { dashboardId: string }) {
  const dashboard = useDashboard(dashboardId);
  if (dashboard.isPending) return <Spinner label="Loading the dashboard…" />;
  if (dashboard.isError) {
    const missing = toApiError(dashboard.error).status === 404;
    return (
      <div className="page">
        <ErrorNote
          error={dashboard.error}
          title={missing ? 'This dashboard is not in your workspace' : 'The dashboard could not be loaded'}
          onRetry={missing ? undefined : () => void dashboard.refetch()}
        />
        <p>
          <Link to="/dashboards">All dashboards</Link>
        </p>
      </div>
    );
  }
  return <DashboardView dashboard={dashboard.data} />;
}

function DashboardView({ dashboard }: { dashboard: Dashboard }) {
  const actions = useDashboardActions(dashboard.id);
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const refreshing = actions.refreshAll.isPending;

  return (
    <div className="page page-wide">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/dashboards">Dashboards</Link>
      </nav>
      <PageHeader
        title={dashboard.name}
        description={dashboard.description ?? undefined}
        actions={
          <>
            <Button
              variant="primary"
              busy={refreshing}
              disabled={dashboard.items.length === 0}
              onClick={() => actions.refreshAll.mutate()}
              title="Run every item's query again, in one request (no question is charged)"
            >
              ↻ Refresh all
            </Button>
            <Button onClick={() => setRenaming(true)} disabled={renaming}>
              Rename
            </Button>
            <Button
              variant="ghost"
              onClick={() => {
                actions.remove.reset();
                setDeleting(true);
              }}
            >
              Delete
            </Button>
          </>
        }
      />
      {renaming ? (
        <DashboardForm
          label="Rename the dashboard"
          initial={dashboard}
          submitLabel="Save"
          mutation={actions.rename}
          onSaved={() => setRenaming(false)}
          onCancel={() => {
            actions.rename.reset();
            setRenaming(false);
          }}
        />
      ) : null}

      <RefreshSummary
        outcomes={actions.refreshAll.data?.outcomes}
        refreshing={refreshing}
        count={dashboard.items.length}
      />
      <ErrorNote error={actions.refreshAll.error} title="The dashboard could not be refreshed" />
      <ErrorNote error={actions.reorder.error} title="The new order was not saved" />

      {dashboard.items.length === 0 ? (
        <EmptyState
          title="Nothing pinned yet"
          action={
            <Link to="/ask" className="btn btn-primary">
              Ask a question
            </Link>
          }
        >
          Ask a question, then choose “Add to dashboard” under its answer.
        </EmptyState>
      ) : (
        <ItemGrid dashboard={dashboard} reorder={actions.reorder} refreshingAll={refreshing} />
      )}

      <ConfirmDialog
        open={deleting}
        title="Delete this dashboard?"
        confirmLabel="Delete dashboard"
        busy={actions.remove.isPending}
        error={actions.remove.error}
        onCancel={() => setDeleting(false)}
        onConfirm={() => actions.remove.mutate()}
      >
        <p>
          “{dashboard.name}” and its {dashboard.items.length} item{dashboard.items.length === 1 ? '' : 's'}{' '}
          are deleted. The answers they were pinned from stay in their conversations.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** What a whole refresh did, said once for screen readers and shown for everyone. */
function RefreshSummary({
  outcomes,
  refreshing,
  count,
}: {
  outcomes: ItemOutcome[] | undefined;
  refreshing: boolean;
  count: number;
}) {
  let text = '';
  if (refreshing) text = `Refreshing ${count} item${count === 1 ? '' : 's'}…`;
  else if (outcomes) {
    const failed = outcomes.filter((o) => o.status === 'failed').length;
    const refreshed = outcomes.length - failed;
    text =
      failed === 0
        ? `All ${refreshed} item${refreshed === 1 ? '' : 's'} refreshed.`
        : `${refreshed} of ${outcomes.length} items refreshed; ${failed} failed (the reason is on each).`;
  }
  return (
    <p className="muted small refresh-summary" role="status" aria-live="polite">
      {text}
    </p>
  );
}
