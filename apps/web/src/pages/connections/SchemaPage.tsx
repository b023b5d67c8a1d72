import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { keys, trpc } from '../../lib/api.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import {
  Badge,
  Button,
  EmptyState,
  ErrorNote,
  PageHeader,
  Spinner,
  formatDate,
} from '../../components/ui.tsx';
import { discoveryKeys } from '../discovery/queries.ts';
import { tableNoun, useConnection, useDialect } from './hooks.ts';

const KIND: Record<string, string> = {
  table: 'Table',
  view: 'View',
  materialized_view: 'Materialized view',
  index: 'Index',
  alias: 'Alias',
  data_stream: 'Data stream',
};

/** Tables or indices in scope (`schema.tables`) and one table's columns and keys (`schema.table`). */
export function SchemaPage({ connectionId }: { connectionId: string }) {
  const { query } = useLocation();
  const connection = useConnection(connectionId);
  const queryClient = useQueryClient();
  const tables = useQuery({
    queryKey: keys.tables(connectionId),
    queryFn: async () => {
      const answer = await trpc.schema.tables.query({ connection_id: connectionId });
      // The first read introspects the connection, which changes what its metadata status says (a
      // schema analysis page opened meanwhile read it before).
      void queryClient.invalidateQueries({ queryKey: discoveryKeys.status(connectionId) });
      return answer;
    },
    staleTime: 10 * 60_000,
  });
  const [filter, setFilter] = useState('');
  const selected = query.get('table') ?? tables.data?.tables[0]?.name ?? null;
  const list = (tables.data?.tables ?? []).filter((t) =>
    t.name.toLowerCase().includes(filter.trim().toLowerCase()),
  );
  const noun = tableNoun(useDialect(connection.data?.dialect));

  return (
    <div className="page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/connections">Connections</Link> <span aria-hidden="true">/</span>{' '}
        <Link to={`/connections/${connectionId}`}>{connection.data?.name ?? 'Connection'}</Link>{' '}
        <span aria-hidden="true">/</span> <span>Schema</span>
      </nav>
      <PageHeader
        title={`Schema${connection.data ? ` of ${connection.data.name}` : ''}`}
        description={
          tables.data ? (
            <>
              {tables.data.tables.length} {noun.many} in scope · read{' '}
              {formatDate(tables.data.introspected_at)}
            </>
          ) : (
            'What the planner can see in this connection.'
          )
        }
        actions={
          <>
            <Link to={`/connections/${connectionId}/discovery`} className="btn">
              Schema analysis
            </Link>
            <Button
              variant="primary"
              disabled={connection.data?.paused}
              onClick={() => navigate(`/ask?connection=${connectionId}`)}
            >
              Ask a question
            </Button>
          </>
        }
      />
      {tables.isPending ? (
        <Spinner label="Reading the schema (the first time, the service introspects the connection)…" />
      ) : null}
      <ErrorNote
        error={tables.error}
        title="The schema could not be read"
        onRetry={() => void tables.refetch()}
      />
      {tables.data && tables.data.tables.length === 0 ? (
        <EmptyState title="Nothing in scope">
          {`No ${noun.one} in this connection’s scope is readable. Check the scope in the connection’s settings and the privileges of its credentials (the connection test names what is missing).`}
        </EmptyState>
      ) : null}
      {tables.data && tables.data.tables.length > 0 ? (
        <div className="schema-layout">
          <aside className="card schema-tables" aria-label={noun.many[0]!.toUpperCase() + noun.many.slice(1)}>
            <label className="visually-hidden" htmlFor="table-filter">
              Filter {noun.many}
            </label>
            <input
              id="table-filter"
              type="search"
              placeholder={`Filter ${noun.many}…`}
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
            <ul className="table-list">
              {list.map((t) => (
                <li key={t.name}>
                  <Link
                    to={`/connections/${connectionId}/schema?table=${encodeURIComponent(t.name)}`}
                    className={`table-link${t.name === selected ? ' active' : ''}`}
                    aria-current={t.name === selected ? 'true' : undefined}
                  >
                    <span className="table-name">{t.name}</span>
                    <span className="muted small">
                      {KIND[t.kind] ?? t.kind} · {t.column_count} columns
                    </span>
                  </Link>
                </li>
              ))}
              {list.length === 0 ? <li className="muted small pad">No match.</li> : null}
            </ul>
          </aside>
          {selected ? <TableDetailView connectionId={connectionId} name={selected} /> : null}
        </div>
      ) : null}
    </div>
  );
}

function TableDetailView({ connectionId, name }: { connectionId: string; name: string }) {
  const table = useQuery({
    queryKey: keys.table(connectionId, name),
    queryFn: () => trpc.schema.table.query({ connection_id: connectionId, table_name: name }),
    staleTime: 10 * 60_000,
  });
  const [filter, setFilter] = useState('');
  if (table.isPending) return <Spinner label={`Loading ${name}…`} />;
  if (table.error)
    return (
      <ErrorNote
        error={table.error}
        title={`${name} could not be read`}
        onRetry={() => void table.refetch()}
      />
    );
  const t = table.data;
  const columns = t.columns.filter((c) => c.name.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <section className="card schema-detail" aria-labelledby="table-heading">
      <div className="row space-between wrap">
        <div>
          <h2 id="table-heading" className="mono-title">
            {t.name}
          </h2>
          <p className="muted small">
            {KIND[t.kind] ?? t.kind}
            {t.row_estimate !== null ? ` · about ${t.row_estimate.toLocaleString()} rows` : ''} ·{' '}
            {t.columns.length} columns
            {t.description ? ` · ${t.description}` : ''}
          </p>
        </div>
        <div>
          <label className="visually-hidden" htmlFor="column-filter">
            Filter columns
          </label>
          <input
            id="column-filter"
            type="search"
            placeholder="Filter columns…"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </div>
      </div>
      {t.members.length > 0 ? (
        <p className="small">
          <strong>Members:</strong> {t.members.join(', ')}
        </p>
      ) : null}
      {t.primary_key.length > 0 || t.foreign_keys.length > 0 ? (
        <div className="keys small">
          {t.primary_key.length > 0 ? (
            <p>
              <Badge tone="info">Primary key</Badge> <code>{t.primary_key.join(', ')}</code>
            </p>
          ) : null}
          {t.foreign_keys.map((fk) => (
            <p key={fk.columns.join(',') + fk.references.table}>
              <Badge>Foreign key</Badge> <code>{fk.columns.join(', ')}</code> →{' '}
              <code>{[fk.references.schema, fk.references.table].filter(Boolean).join('.')}</code>(
              <code>{fk.references.columns.join(', ')}</code>)
            </p>
          ))}
        </div>
      ) : t.kind === 'index' || t.kind === 'alias' || t.kind === 'data_stream' ? (
        <p className="muted small">
          Indices have no primary or foreign keys; nested fields appear as dot-notation columns.
        </p>
      ) : null}
      {t.warnings.map((w) => (
        <p key={w} className="text-warning small">
          {w}
        </p>
      ))}
      <div className="table-scroll">
        <table className="data-table schema-columns">
          <caption className="visually-hidden">Columns of {t.name}</caption>
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Type</th>
              <th scope="col">Native type</th>
              <th scope="col">Keys</th>
              <th scope="col">Description / sample values</th>
            </tr>
          </thead>
          <tbody>
            {columns.map((c) => (
              <tr key={c.name} className={c.queryable ? '' : 'muted'}>
                <td className="mono">{c.name}</td>
                <td>
                  <Badge>{c.type}</Badge>
                </td>
                <td className="mono small muted">
                  {c.native_type}
                  {c.nullable === false ? ' · not null' : ''}
                </td>
                <td className="small">
                  {c.is_primary_key ? <Badge tone="info">PK</Badge> : null}
                  {c.references ? (
                    <span title={`References ${c.references.table}.${c.references.column}`}>
                      <Badge>FK</Badge>{' '}
                      <code>
                        {c.references.table}.{c.references.column}
                      </code>
                    </span>
                  ) : null}
                </td>
                <td className="small">
                  {c.description ? <div>{c.description}</div> : null}
                  {c.note ? <div className="muted">{c.note}</div> : null}
                  {!c.queryable ? <div className="muted">Not queryable</div> : null}
                  {c.sample_values.length > 0 ? (
                    <div className="muted samples">
                      {c.sample_values.slice(0, 6).map((v) => (
                        <code key={String(v)}>{String(v)}</code>
                      ))}
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
