import { useMemo, useState, type ReactNode } from 'react';
import type { Connection } from '../../lib/api.ts';
import { Link, navigate } from '../../lib/router.tsx';
import {
  Badge,
  Button,
  ConfirmDialog,
  EmptyState,
  ErrorNote,
  PageHeader,
  Spinner,
  formatDate,
} from '../../components/ui.tsx';
import { dialectName, useConnectionActions, useEngineNames, useConnections, useDialects } from './hooks.ts';
import { TestResultView } from './TestResultView.tsx';

export function ConnectionsPage() {
  const connections = useConnections();
  const dialects = useDialects();
  const engines = useEngineNames();
  const [tag, setTag] = useState<string | null>(null);
  const [toDelete, setToDelete] = useState<Connection | null>(null);
  const actions = useConnectionActions();

  const allTags = useMemo(
    () => [...new Set((connections.data ?? []).flatMap((c) => c.tags))].sort(),
    [connections.data],
  );
  // Filtering the cached list costs no request (the server also filters with ?tag=).
  const shown = (connections.data ?? []).filter((c) => !tag || c.tags.includes(tag));

  return (
    <div className="page">
      <PageHeader
        title="Connections"
        description="Data sources you can ask questions of. Queries run read-only, within each connection's scope."
        actions={
          <Link to="/connections/new" className="btn btn-primary">
            New connection
          </Link>
        }
      />
      {allTags.length > 0 ? (
        <div className="tag-filter" role="group" aria-label="Filter by tag">
          <span className="muted small">Tags</span>
          <button
            type="button"
            className={`chip${tag === null ? ' chip-active' : ''}`}
            aria-pressed={tag === null}
            onClick={() => setTag(null)}
          >
            All
          </button>
          {allTags.map((t) => (
            <button
              key={t}
              type="button"
              className={`chip${tag === t ? ' chip-active' : ''}`}
              aria-pressed={tag === t}
              onClick={() => setTag(tag === t ? null : t)}
            >
              {t}
            </button>
          ))}
        </div>
      ) : null}
      <ErrorNote error={actions.setPaused.error ?? actions.duplicate.error} />
      {connections.isPending ? <Spinner label="Loading connections…" /> : null}
      <ErrorNote
        error={connections.error}
        title="The connections could not be loaded"
        onRetry={() => void connections.refetch()}
      />
      {connections.data && shown.length === 0 ? (
        tag ? (
          <EmptyState
            title={`No connection is tagged “${tag}”`}
            action={<Button onClick={() => setTag(null)}>Show all</Button>}
          />
        ) : (
          <EmptyState
            title="No connections yet"
            action={
              <Link to="/connections/new" className="btn btn-primary">
                Connect a data source
              </Link>
            }
          >
            Connect {engines} to start asking questions.
          </EmptyState>
        )
      ) : null}
      <ul className="conn-list" aria-label="Connections">
        {shown.map((c) => {
          const testing = actions.test.isPending && actions.test.variables === c.id;
          const tested = actions.test.data && actions.test.variables === c.id ? actions.test.data : null;
          const testError = actions.test.error && actions.test.variables === c.id ? actions.test.error : null;
          return (
            <li key={c.id} className={`card conn-card${c.paused ? ' is-paused' : ''}`}>
              <div className="conn-main">
                <div className="conn-title-row">
                  <span
                    className="dialect-dot"
                    style={{ background: dialects.data?.find((d) => d.id === c.dialect)?.color }}
                    aria-hidden="true"
                  />
                  <h2 className="conn-name">
                    <Link to={`/connections/${c.id}`}>{c.name}</Link>
                  </h2>
                  <Badge>{dialectName(dialects.data, c.dialect)}</Badge>
                  {c.is_demo ? <Badge tone="info">Demo</Badge> : null}
                  {c.paused ? <Badge tone="warning">Paused</Badge> : null}
                </div>
                <div className="conn-meta muted small">
                  <span>{c.target || 'No scope set'}</span>
                  <span aria-hidden="true">·</span>
                  <span>Updated {formatDate(c.updated_at)}</span>
                </div>
                {c.tags.length > 0 ? (
                  <ul className="tags" aria-label="Tags">
                    {c.tags.map((t) => (
                      <li key={t}>
                        <button
                          type="button"
                          className="tag"
                          onClick={() => setTag(t)}
                          aria-label={`Filter by tag ${t}`}
                        >
                          {t}
                        </button>
                      </li>
                    ))}
                  </ul>
                ) : null}
                {c.warnings.length > 0 ? (
                  <ul className="conn-warnings">
                    {c.warnings.map((w) => (
                      <li key={w} className="text-warning small">
                        {w}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </div>
              <div className="conn-actions">
                <Button
                  variant="primary"
                  size="sm"
                  disabled={c.paused}
                  onClick={() => navigate(`/ask?connection=${c.id}`)}
                  aria-label={`Ask ${c.name}`}
                >
                  Ask
                </Button>
                <Button
                  size="sm"
                  onClick={() => navigate(`/connections/${c.id}/schema`)}
                  aria-label={`Browse the schema of ${c.name}`}
                >
                  Schema
                </Button>
                <Button
                  size="sm"
                  busy={testing}
                  onClick={() => actions.test.mutate(c.id)}
                  aria-label={`Test ${c.name}`}
                >
                  Test
                </Button>
                <details className="more">
                  <summary className="btn btn-ghost btn-sm" aria-label={`More actions for ${c.name}`}>
                    More
                  </summary>
                  <div className="menu" role="menu">
                    {!c.is_demo ? (
                      <button
                        type="button"
                        role="menuitem"
                        className="menu-item"
                        onClick={() => navigate(`/connections/${c.id}`)}
                      >
                        Edit
                      </button>
                    ) : null}
                    <MenuItem onSelect={() => actions.setPaused.mutate({ id: c.id, paused: !c.paused })}>
                      {c.paused ? 'Resume' : 'Pause'}
                    </MenuItem>
                    {!c.is_demo ? (
                      <MenuItem onSelect={() => actions.duplicate.mutate(c.id)}>Duplicate</MenuItem>
                    ) : null}
                    {!c.is_demo ? (
                      <MenuItem
                        danger
                        onSelect={() => {
                          actions.remove.reset();
                          setToDelete(c);
                        }}
                      >
                        Delete…
                      </MenuItem>
                    ) : null}
                  </div>
                </details>
              </div>
              {tested || testError ? (
                <div className="conn-test">
                  {tested ? <TestResultView result={tested} /> : null}
                  <ErrorNote error={testError} />
                </div>
              ) : null}
              {c.paused ? (
                <p className="small muted conn-paused-note">
                  Paused: questions are refused until you resume it. Pausing frees a connection slot; nothing
                  is deleted.
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        open={toDelete !== null}
        title={`Delete “${toDelete?.name ?? ''}”?`}
        confirmLabel="Delete connection"
        busy={actions.remove.isPending}
        error={actions.remove.error}
        onCancel={() => setToDelete(null)}
        onConfirm={() => {
          if (toDelete) actions.remove.mutate(toDelete.id, { onSuccess: () => setToDelete(null) });
        }}
      >
        <p>
          The connection, its stored schema, and its conversations and runs are deleted. This cannot be
          undone.
        </p>
        <p className="muted small">
          To stop using it for a while instead, pause it: pausing deletes nothing.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** An item of a <details> menu: closes the menu, then acts. */
function MenuItem({
  onSelect,
  danger = false,
  children,
}: {
  onSelect: () => void;
  danger?: boolean;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      role="menuitem"
      className={danger ? 'menu-item danger' : 'menu-item'}
      onClick={(e) => {
        e.currentTarget.closest('details')?.removeAttribute('open');
        onSelect();
      }}
    >
      {children}
    </button>
  );
}
