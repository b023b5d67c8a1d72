import { useEffect, useState } from 'react';
import { Link } from '../../lib/router.tsx';
import { Badge, Button, Callout, ErrorNote, PageHeader, Spinner, formatDate } from '../../components/ui.tsx';
import { tableNoun, useConnection, useDialect } from '../connections/hooks.ts';
import { useDiscoveryActions, useJobs, useMetadataStatus } from './queries.ts';
import { useJobStream, type LiveJob } from './useJobStream.ts';
import { AnalysisReview } from './AnalysisReview.tsx';

const PHASES: Record<string, string> = {
  queued: 'Waiting for a worker',
  introspecting: 'Reading the structure',
  sampling: 'Sampling values',
  analysing: 'Counting and classifying columns',
  relationships: 'Checking relationships on the data',
  saving: 'Saving the analysis',
};

/**
 * A connection's schema analysis: its state (fresh or stale), a running job followed live (coming
 * back re-attaches to it), cancel, and the last analysis to review: keys, relationships, and what
 * each column holds.
 */
export function DiscoveryPage({ connectionId }: { connectionId: string }) {
  const connection = useConnection(connectionId);
  const dialect = useDialect(connection.data?.dialect);
  const noun = tableNoun(dialect);
  const status = useMetadataStatus(connectionId);
  const jobs = useJobs(connectionId);
  const actions = useDiscoveryActions(connectionId);
  const [crossIndex, setCrossIndex] = useState(false);
  const running = jobs.data?.job ?? null;
  // The job followed stays on screen after it ends (with how it ended), until another starts.
  const [followed, setFollowed] = useState<string | null>(null);
  useEffect(() => {
    if (running) setFollowed(running.id);
  }, [running]);
  const live = useJobStream(connectionId, followed);
  const following = live?.state === 'following';
  const summary = (live?.state === 'succeeded' ? live.summary : null) ?? jobs.data?.analysis ?? null;
  // Cross-index links: for engines without joins that can look rows up in another index.
  const offersCrossIndex = dialect?.capabilities?.joins === false && !!dialect.capabilities.lookup_join_from;

  return (
    <div className="page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/connections">Connections</Link> <span aria-hidden="true">/</span>{' '}
        <Link to={`/connections/${connectionId}`}>{connection.data?.name ?? 'Connection'}</Link>{' '}
        <span aria-hidden="true">/</span> <span>Schema analysis</span>
      </nav>
      <PageHeader
        title={`Schema analysis${connection.data ? ` of ${connection.data.name}` : ''}`}
        description={`What each column holds, which columns identify rows, and how ${noun.many} relate: found on the data, read by the planner.`}
        actions={
          <>
            <StatusBadge stale={status.data?.stale} analyzedAt={status.data?.analyzed_at ?? null} />
            {running && following ? (
              <Button
                onClick={() => actions.cancel.mutate(running.id)}
                busy={actions.cancel.isPending}
                disabled={actions.cancel.isSuccess}
              >
                {actions.cancel.isSuccess ? 'Stopping…' : 'Cancel'}
              </Button>
            ) : (
              <Button
                variant="primary"
                busy={actions.start.isPending}
                disabled={connection.data?.paused || jobs.isPending}
                onClick={() => {
                  actions.cancel.reset();
                  actions.start.mutate(crossIndex);
                }}
              >
                {status.data?.analyzed_at ? 'Re-analyse' : 'Analyse the schema'}
              </Button>
            )}
          </>
        }
      />
      {status.data?.stale && status.data.reason ? (
        <Callout tone="warning">{status.data.reason}</Callout>
      ) : null}
      {offersCrossIndex && !following ? (
        <label className="checkbox">
          <input type="checkbox" checked={crossIndex} onChange={(e) => setCrossIndex(e.target.checked)} />
          Also link fields that name documents of another index (cross-index links, used on 8.13 and later)
        </label>
      ) : null}
      <ErrorNote error={actions.start.error} title="The analysis could not start" />
      <ErrorNote error={actions.cancel.error} title="The job could not be cancelled" />
      <ErrorNote
        error={jobs.error}
        title="The analysis could not be read"
        onRetry={() => void jobs.refetch()}
      />
      {jobs.isPending ? <Spinner label="Loading the analysis…" /> : null}
      {live ? <JobProgress live={live} noun={noun.many} /> : null}
      {jobs.data?.last?.state === 'failed' && !following ? (
        <ErrorNote
          error={new Error(jobs.data.last.error?.message ?? 'The last analysis failed.')}
          title={`The last analysis failed (${formatDate(jobs.data.last.finished_at)})`}
        />
      ) : null}
      {summary ? <AnalysisReview connectionId={connectionId} summary={summary} noun={noun} /> : null}
      {!summary && !live && jobs.data ? (
        <p className="muted">
          No analysis yet. It counts rows and distinct values per column with read-only queries (a few per{' '}
          {noun.one}), and takes one of your plan’s monthly schema analyses.
        </p>
      ) : null}
    </div>
  );
}

function StatusBadge({ stale, analyzedAt }: { stale: boolean | undefined; analyzedAt: string | null }) {
  if (stale === undefined) return null;
  if (!analyzedAt) return <Badge tone="neutral">Not analysed</Badge>;
  return stale ? (
    <Badge tone="warning" title="The structure changed since the last analysis">
      Stale
    </Badge>
  ) : (
    <Badge tone="success" title={`Analysed ${formatDate(analyzedAt)}`}>
      Up to date
    </Badge>
  );
}

function JobProgress({ live, noun }: { live: LiveJob; noun: string }) {
  const percent = live.total > 0 ? Math.round((100 * Math.min(live.done, live.total)) / live.total) : 0;
  return (
    <section className="card discovery-progress" aria-label="Analysis progress">
      <div className="row gap-sm wrap">
        <strong>
          {live.state === 'following'
            ? (PHASES[live.phase ?? 'queued'] ?? 'Working')
            : live.state === 'succeeded'
              ? 'Analysis finished'
              : live.state === 'cancelled'
                ? 'Analysis cancelled'
                : 'Analysis failed'}
        </strong>
        {live.total > 0 ? (
          <span className="muted">
            {Math.min(live.done, live.total)} of {live.total} {noun}
            {live.state === 'following' && live.table ? ` · now ${live.table}` : ''}
          </span>
        ) : null}
      </div>
      <progress max={100} value={live.state === 'succeeded' ? 100 : percent} aria-label="Tables analysed" />
      <p className="visually-hidden" role="status" aria-live="polite">
        {live.state === 'following' ? '' : `Analysis ${live.state}.`}
      </p>
      {live.error ? <ErrorNote error={new Error(live.error.message)} title="The analysis failed" /> : null}
      <ErrorNote error={live.streamError} title="The progress could not be followed" />
      {live.finished.length > 0 ? (
        <ul className="discovery-finished">
          {live.finished.map((t) => (
            <li key={t.table}>
              ✓ {t.table} <span className="muted small">({t.columns} columns)</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
