import { useMemo, useState } from 'react';
import type { Connection } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { useIsOwner } from '../../lib/account.ts';
import {
  Button,
  Callout,
  ConfirmDialog,
  EmptyState,
  ErrorNote,
  PageHeader,
  Spinner,
} from '../../components/ui.tsx';
import { ConnectionRow } from './ConnectionRow.tsx';
import { useConnectionActions, useEngineNames, useConnections, useDialects } from './hooks.ts';

export function ConnectionsPage() {
  const connections = useConnections();
  const dialects = useDialects();
  const engines = useEngineNames();
  const [tag, setTag] = useState<string | null>(null);
  const [toDelete, setToDelete] = useState<Connection | null>(null);
  const actions = useConnectionActions();
  // Members ask and test; only the owner adds, changes, pauses or deletes connections.
  const owner = useIsOwner();

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
          owner ? (
            <Link to="/connections/new" className="btn btn-primary">
              New connection
            </Link>
          ) : undefined
        }
      />
      {!owner ? (
        <Callout tone="info">
          <p>
            You are a member of this workspace: you can ask its connections questions, browse their schema and
            test them. Only the owner adds, changes, pauses or deletes connections.
          </p>
        </Callout>
      ) : null}
      {allTags.length > 0 ? <TagFilter tags={allTags} active={tag} onChange={setTag} /> : null}
      <ErrorNote error={actions.setPaused.error ?? actions.duplicate.error} />
      {connections.isPending ? <Spinner label="Loading connections…" /> : null}
      <ErrorNote
        error={connections.error}
        title="The connections could not be loaded"
        onRetry={() => void connections.refetch()}
      />
      {connections.data && shown.length === 0 ? (
        <NoConnections tag={tag} engines={engines} owner={owner} onShowAll={() => setTag(null)} />
      ) : null}
      <ul className="conn-list" aria-label="Connections">
        {shown.map((c) => (
          <ConnectionRow
            key={c.id}
            connection={c}
            dialects={dialects.data}
            actions={actions}
            canManage={owner}
            onTag={setTag}
            onDelete={() => {
              actions.remove.reset();
              setToDelete(c);
            }}
          />
        ))}
      </ul>
      <DeleteConnectionDialog
        connection={toDelete}
        remove={actions.remove}
        onClose={() => setToDelete(null)}
      />
    </div>
  );
}

function TagFilter({
  tags,
  active,
  onChange,
}: {
  tags: string[];
  active: string | null;
  onChange: (tag: string | null) => void;
}) {
  return (
    <div className="tag-filter" role="group" aria-label="Filter by tag">
      <span className="muted small">Tags</span>
      <button
        type="button"
        className={`chip${active === null ? ' chip-active' : ''}`}
        aria-pressed={active === null}
        onClick={() => onChange(null)}
      >
        All
      </button>
      {tags.map((t) => (
        <button
          key={t}
          type="button"
          className={`chip${active === t ? ' chip-active' : ''}`}
          aria-pressed={active === t}
          onClick={() => onChange(active === t ? null : t)}
        >
          {t}
        </button>
      ))}
    </div>
  );
}

function NoConnections({
  tag,
  engines,
  owner,
  onShowAll,
}: {
  tag: string | null;
  engines: string;
  owner: boolean;
  onShowAll: () => void;
}) {
  return tag ? (
    <EmptyState
      title={`No connection is tagged “${tag}”`}
      action={<Button onClick={onShowAll}>Show all</Button>}
    />
  ) : (
    <EmptyState
      title="No connections yet"
      action={
        owner ? (
          <Link to="/connections/new" className="btn btn-primary">
            Connect a data source
          </Link>
        ) : undefined
      }
    >
      {owner
        ? `Connect ${engines} to start asking questions.`
        : "The workspace's owner has not connected a data source yet."}
    </EmptyState>
  );
}

function DeleteConnectionDialog({
  connection,
  remove,
  onClose,
}: {
  connection: Connection | null;
  remove: ReturnType<typeof useConnectionActions>['remove'];
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      open={connection !== null}
      title={`Delete “${connection?.name ?? ''}”?`}
      confirmLabel="Delete connection"
      busy={remove.isPending}
      error={remove.error}
      onCancel={onClose}
      onConfirm={() => {
        if (connection) remove.mutate(connection.id, { onSuccess: onClose });
      }}
    >
      <p>
        The connection, its stored schema, and its conversations and runs are deleted. This cannot be undone.
      </p>
      <p className="muted small">To stop using it for a while instead, pause it: pausing deletes nothing.</p>
    </ConfirmDialog>
  );
}
