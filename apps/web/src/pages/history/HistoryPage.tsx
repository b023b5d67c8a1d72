import { useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { keys, trpc, type RunResult } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import {
  Badge,
  Button,
  EmptyState,
  ErrorNote,
  PageHeader,
  Spinner,
  formatDate,
  formatMs,
} from '../../components/ui.tsx';
import { useConnections } from '../connections/hooks.ts';
import { RunView } from '../ask/RunView.tsx';

const LIMIT = 20;
const STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

function statusBadge(status: RunResult['status']) {
  if (status === 'succeeded') return <Badge tone="success">Succeeded</Badge>;
  if (status === 'failed') return <Badge tone="danger">Failed</Badge>;
  return <Badge>Cancelled</Badge>;
}

/** Run history (`runs.list`) with status and connection filters, 20 per page. */
export function HistoryPage() {
  const connections = useConnections();
  const [status, setStatus] = useState<Status | ''>('');
  const [connectionId, setConnectionId] = useState('');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const filters = {
    offset,
    ...(status ? { status } : {}),
    ...(connectionId ? { connection_id: connectionId } : {}),
  };
  const runs = useQuery({
    queryKey: keys.runs(filters),
    queryFn: () => trpc.runs.list.query({ limit: LIMIT, ...filters }),
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
  const names = new Map((connections.data ?? []).map((c) => [c.id, c.name]));
  const total = runs.data?.total ?? 0;

  return (
    <div className="page">
      <PageHeader title="History" description="Every question asked in this workspace, newest first." />
      <div className="filters" role="group" aria-label="Filters">
        <div className="filter">
          <label htmlFor="history-status" className="small muted">
            Status
          </label>
          <select
            id="history-status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | '');
              setOffset(0);
            }}
          >
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]?.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <div className="filter">
          <label htmlFor="history-connection" className="small muted">
            Connection
          </label>
          <select
            id="history-connection"
            value={connectionId}
            onChange={(e) => {
              setConnectionId(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">All connections</option>
            {(connections.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        {runs.isFetching && runs.data ? (
          <span className="spinner spinner-inline" role="status" aria-label="Updating" />
        ) : null}
      </div>
      {runs.isPending ? <Spinner label="Loading runs…" /> : null}
      <ErrorNote
        error={runs.error}
        title="The history could not be loaded"
        onRetry={() => void runs.refetch()}
      />
      {runs.data && runs.data.runs.length === 0 ? (
        <EmptyState
          title={status || connectionId ? 'No run matches these filters' : 'No questions asked yet'}
          action={
            <Link to="/ask" className="btn btn-primary">
              Ask a question
            </Link>
          }
        />
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <div className="card table-card">
          <div className="table-scroll">
            <table className="data-table history-table">
              <caption className="visually-hidden">Runs</caption>
              <thead>
                <tr>
                  <th scope="col">Question</th>
                  <th scope="col">Status</th>
                  <th scope="col">Connection</th>
                  <th scope="col">Planner</th>
                  <th scope="col" className="num">
                    Time
                  </th>
                  <th scope="col">Asked</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.runs.map((r) => {
                  const ms = r.timings_ms.building_context + r.timings_ms.planning + r.timings_ms.executing;
                  return (
                    <HistoryRow
                      key={r.id}
                      run={r}
                      open={open === r.id}
                      onToggle={() => setOpen(open === r.id ? null : r.id)}
                    >
                      <td>{statusBadge(r.status)}</td>
                      <td>{r.connection_id ? (names.get(r.connection_id) ?? '—') : 'Deleted'}</td>
                      <td className="small">{r.planner ?? '—'}</td>
                      <td className="num small">{formatMs(ms)}</td>
                      <td className="small">{formatDate(r.created_at)}</td>
                    </HistoryRow>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <span className="muted small">
              {offset + 1}–{Math.min(offset + LIMIT, total)} of {total}
            </span>
            <div className="row gap-sm">
              <Button
                size="sm"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - LIMIT))}
              >
                ‹ Newer
              </Button>
              <Button size="sm" disabled={offset + LIMIT >= total} onClick={() => setOffset(offset + LIMIT)}>
                Older ›
              </Button>
            </div>
          </div>
        </div>
      ) : null}
    </div>
  );
}

function HistoryRow({
  run,
  open,
  onToggle,
  children,
}: {
  run: RunResult;
  open: boolean;
  onToggle: () => void;
  children: ReactNode;
}) {
  return (
    <>
      <tr className={open ? 'row-open' : ''}>
        <td>
          <button
            type="button"
            className="link-button history-question"
            aria-expanded={open}
            onClick={onToggle}
          >
            {run.question}
          </button>
          <div className="small">
            <Link to={`/ask/${run.conversation_id}`}>Open conversation</Link>
          </div>
        </td>
        {children}
      </tr>
      {open ? (
        <tr className="row-detail">
          <td colSpan={6}>
            <RunView run={run} />
          </td>
        </tr>
      ) : null}
    </>
  );
}
