import type { ReactNode } from 'react';
import type { Connection, Dialect } from '../../lib/api.ts';
import { Link, navigate } from '../../lib/router.tsx';
import { Badge, Button, ErrorNote, formatDate } from '../../components/ui.tsx';
import { dialectName, type useConnectionActions } from './hooks.ts';
import { TestResultView } from './TestResultView.tsx';

type ConnectionActions = ReturnType<typeof useConnectionActions>;

/** A connection in the list: what it is, its actions and menu, its last test from this page. */
export function ConnectionRow({
  connection: c,
  dialects,
  actions,
  canManage,
  onTag,
  onDelete,
}: {
  connection: Connection;
  dialects: Dialect[] | undefined;
  actions: ConnectionActions;
  /** The owner's menu (edit, pause, duplicate, delete); members do not get it. */
  canManage: boolean;
  onTag: (tag: string) => void;
  onDelete: () => void;
}) {
  const { test } = actions;
  const tested = test.data && test.variables === c.id ? test.data : null;
  const testError = test.error && test.variables === c.id ? test.error : null;
  return (
    <li className={`card conn-card${c.paused ? ' is-paused' : ''}`}>
      <ConnectionSummary connection={c} dialects={dialects} onTag={onTag} />
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
          busy={test.isPending && test.variables === c.id}
          onClick={() => test.mutate(c.id)}
          aria-label={`Test ${c.name}`}
        >
          Test
        </Button>
        {canManage ? <ConnectionMenu connection={c} actions={actions} onDelete={onDelete} /> : null}
      </div>
      {tested || testError ? (
        <div className="conn-test">
          {tested ? <TestResultView result={tested} /> : null}
          <ErrorNote error={testError} />
        </div>
      ) : null}
      {c.paused ? (
        <p className="small muted conn-paused-note">
          {c.paused_by_plan ? (
            <>
              Paused by a plan change: the plan has fewer connection slots than there were active connections.
              Nothing is deleted; it resumes when the plan has a free slot (see{' '}
              <Link to="/billing">Billing</Link>), or pause another one and resume this.
            </>
          ) : (
            'Paused: questions are refused until you resume it. Pausing frees a connection slot; nothing is deleted.'
          )}
        </p>
      ) : null}
    </li>
  );
}

function ConnectionSummary({
  connection: c,
  dialects,
  onTag,
}: {
  connection: Connection;
  dialects: Dialect[] | undefined;
  onTag: (tag: string) => void;
}) {
  return (
    <div className="conn-main">
      <div className="conn-title-row">
        <span
          className="dialect-dot"
          style={{ background: dialects?.find((d) => d.id === c.dialect)?.color }}
          aria-hidden="true"
        />
        <h2 className="conn-name">
          <Link to={`/connections/${c.id}`}>{c.name}</Link>
        </h2>
        <Badge>{dialectName(dialects, c.dialect)}</Badge>
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
                onClick={() => onTag(t)}
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
  );
}

/** The "More" menu: edit, pause or resume, duplicate, delete (the demo can only be paused). */
function ConnectionMenu({
  connection: c,
  actions,
  onDelete,
}: {
  connection: Connection;
  actions: ConnectionActions;
  onDelete: () => void;
}) {
  return (
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
        {!c.is_demo ? <MenuItem onSelect={() => actions.duplicate.mutate(c.id)}>Duplicate</MenuItem> : null}
        {!c.is_demo ? (
          <MenuItem danger onSelect={onDelete}>
            Delete…
          </MenuItem>
        ) : null}
      </div>
    </details>
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
