import { useState } from 'react';
import { Link, navigate } from '../../lib/router.tsx';
import { Button, EmptyState, ErrorNote, PageHeader, Spinner, formatDate } from '../../components/ui.tsx';
import { DashboardForm } from './DashboardForm.tsx';
import { useCreateDashboard, useDashboards } from './queries.ts';

export function DashboardsPage() {
  const dashboards = useDashboards();
  const create = useCreateDashboard();
  const [creating, setCreating] = useState(false);
  return (
    <div className="page">
      <PageHeader
        title="Dashboards"
        description="Answers pinned side by side, refreshed together with one click."
        actions={
          creating ? null : (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New dashboard
            </Button>
          )
        }
      />
      {creating ? (
        <DashboardForm
          label="New dashboard"
          submitLabel="Create dashboard"
          mutation={create}
          onSaved={(dashboard) => navigate(`/dashboards/${encodeURIComponent(dashboard.id)}`)}
          onCancel={() => {
            create.reset();
            setCreating(false);
          }}
        />
      ) : null}
      {dashboards.isPending ? <Spinner label="Loading dashboards…" /> : null}
      <ErrorNote
        error={dashboards.error}
        title="The dashboards could not be loaded"
        onRetry={() => void dashboards.refetch()}
      />
      {dashboards.data?.length === 0 && !creating ? (
        <EmptyState
          title="No dashboards yet"
          action={
            <Button variant="primary" onClick={() => setCreating(true)}>
              New dashboard
            </Button>
          }
        >
          Make one here, or choose “Add to dashboard” under any answer.
        </EmptyState>
      ) : null}
      <ul className="dash-list" aria-label="Dashboards">
        {(dashboards.data ?? []).map((d) => (
          <li key={d.id} className="card dash-list-item">
            <Link to={`/dashboards/${encodeURIComponent(d.id)}`} className="dash-list-name">
              {d.name}
            </Link>
            {d.description ? <p className="muted">{d.description}</p> : null}
            <p className="muted small">
              {d.item_count} item{d.item_count === 1 ? '' : 's'} · updated {formatDate(d.updated_at)}
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
