import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { keys, trpc, type Connection, type RunResult } from '../../lib/api.ts';
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

interface HistoryFilter {
  offset: number;
  status?: Status;
  connection_id?: string;
}

/** A page of `runs.list`; the previous page stays shown while the next one loads. */
function useRunHistory(filters: HistoryFilter) {
  return useQuery({
    queryKey: keys.runs(filters),
    queryFn: () => trpc.runs.list.query({ limit: LIMIT, ...filters }),
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
}

/** Run history (`runs.list`) with status and connection filters, 20 per page. */
export function HistoryPage() {
  const connections = useConnections();
  const [status, setStatus] = useState<Status | ''>('');
  const [connectionId, setConnectionId] = useState('');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const runs = useRunHistory({
    offset,
    ...(status ? { status } : {}),
    ...(connectionId ? { connection_id: connectionId } : {}),
  });
  const names = new Map((connections.data ?? []).map((c) => [c.id, c.name]));
  const total = runs.data?.total ?? 0;

  return (
    <div className="page">
      <PageHeader title="History" description="Every question asked in this workspace, newest first." />
      <HistoryFilters
        status={status}
        onStatus={(s) => {
          setStatus(s);
          setOffset(0);
        }}
        connectionId={connectionId}
        onConnection={(id) => {
          setConnectionId(id);
          setOffset(0);
        }}
        connections={connections.data ?? []}
        updating={runs.isFetching && runs.data !== undefined}
      />
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
          <HistoryTable
            runs={runs.data.runs}
            connectionNames={names}
            open={open}
            onToggle={(id) => setOpen(open === id ? null : id)}
          />
          <Pager offset={offset} total={total} onOffset={setOffset} />
        </div>
      ) : null}
    </div>
  );
}

function HistoryFilters({
  status,
  onStatus,
  connectionId,
  onConnection,
  connections,
  updating,
}: {
  status: Status | '';
  onStatus: (status: Status | '') => void;
  connectionId: string;
  onConnection: (connectionId: string) => void;
  connections: Connection[];
  updating: boolean;
}) {
  return (
    <div className="filters" role="group" aria-label="Filters">
      <div className="filter">
        <label htmlFor="history-status" className="small muted">
          Status
        </label>
        <select id="history-status" value={status} onChange={(e) => onStatus(e.target.value as Status | '')}>
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
        <select id="history-connection" value={connectionId} onChange={(e) => onConnection(e.target.value)}>
          <option value="">All connections</option>
          {connections.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      {updating ? <span className="spinner spinner-inline" role="status" aria-label="Updating" /> : null}
    </div>
  );
}

function HistoryTable({
  runs,
  connectionNames,
  open,
  onToggle,
}: {
  runs: RunResult[];
  connectionNames: Map<string, string>;
  open: string | null;
  onToggle: (runId: string) => void;
}) {
  return (
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
          {runs.map((r) => (
            <HistoryRow
              key={r.id}
              run={r}
              connectionName={r.connection_id ? (connectionNames.get(r.connection_id) ?? '—') : 'Deleted'}
              open={open === r.id}
              onToggle={() => onToggle(r.id)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Pager({
  offset,
  total,
  onOffset,
}: {
  offset: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  return (
    <div className="pager">
      <span className="muted small">
        {offset + 1}–{Math.min(offset + LIMIT, total)} of {total}
      </span>
      <div className="row gap-sm">
        <Button size="sm" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - LIMIT))}>
          ‹ Newer
        </Button>
        <Button size="sm" disabled={offset + LIMIT >= total} onClick={() => onOffset(offset + LIMIT)}>
          Older ›
        </Button>
      </div>
    </div>
  );
}

/** A run: its question (which opens the run below it), status, connection, planner, duration and date. */
function HistoryRow({
  run,
  connectionName,
  open,
  onToggle,
}: {
  run: RunResult;
  connectionName: string;
  open: boolean;
  onToggle: () => void;
}) {
  const ms = run.timings_ms.building_context + run.timings_ms.planning + run.timings_ms.executing;
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
        <td>{statusBadge(run.status)}</td>
        <td>{connectionName}</td>
        <td className="small">{run.planner ?? '—'}</td>
        <td className="num small">{formatMs(ms)}</td>
        <td className="small">{formatDate(run.created_at)}</td>
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
