import { useMutation, useQueryClient } from '@tanstack/react-query';
import { keys, trpc, type RunResult } from '../../lib/api.ts';
import { Button, DownloadLink, ErrorNote, formatDate } from '../../components/ui.tsx';
import { PinAction } from '../dashboards/PinAction.tsx';
import type { ConversationDetail } from './useRunStream.ts';

type TableOfRun = Extract<RunResult['artifacts'][number], { kind: 'table' }>;

/**
 * An answer's files and its refresh. The files are plain links: the browser downloads them with the
 * session cookie, one GET per click and no script in between.
 */
export function AnswerTools({ run }: { run: RunResult }) {
  const table = run.artifacts.find((a): a is TableOfRun => a.kind === 'table');
  const chart = run.artifacts.find((a) => a.kind === 'chart');
  const refresh = useRefresh(run, table, chart !== undefined);
  if (!table && !chart) return null;
  const runId = encodeURIComponent(run.id);
  return (
    <div className="answer-tools">
      <div className="row gap-sm wrap" role="group" aria-label="Downloads">
        {table ? (
          <DownloadLink href={`/api/v1/runs/${runId}/artifacts/${encodeURIComponent(table.id)}/csv`}>
            Download CSV
          </DownloadLink>
        ) : null}
        {chart
          ? (['png', 'svg'] as const).map((format) => (
              <DownloadLink
                key={format}
                href={`/api/v1/artifacts/${encodeURIComponent(chart.id)}/download?format=${format}`}
                label={`Download the chart as ${format.toUpperCase()}`}
              >
                {format.toUpperCase()}
              </DownloadLink>
            ))
          : null}
        {table && run.status === 'succeeded' && run.query ? (
          <Button
            size="sm"
            variant="ghost"
            busy={refresh.isPending}
            onClick={() => refresh.mutate()}
            title="Run the stored query again for fresh rows (no question is charged)"
          >
            ↻ Refresh data
          </Button>
        ) : null}
        <PinAction run={run} />
        {refresh.data?.refreshed_at ? (
          <span className="muted small" role="status">
            Refreshed {formatDate(refresh.data.refreshed_at)}
          </span>
        ) : null}
      </div>
      <ErrorNote error={refresh.error} title="The data could not be refreshed" />
    </div>
  );
}

/**
 * `artifacts.refresh` on the run's table. The fresh table goes into the cached conversation; a chart
 * was rebuilt from it on the server, so then that one conversation is read again.
 */
function useRefresh(run: RunResult, table: TableOfRun | undefined, hasChart: boolean) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => trpc.artifacts.refresh.mutate({ run_id: run.id, artifact_id: table?.id ?? '' }),
    onSuccess: async (fresh) => {
      if (fresh.kind !== 'table') return;
      const { columns, rows, row_count, truncated } = fresh;
      queryClient.setQueryData<ConversationDetail>(keys.conversation(run.conversation_id), (old) =>
        old
          ? {
              ...old,
              runs: old.runs.map((r) =>
                r.id !== run.id
                  ? r
                  : {
                      ...r,
                      artifacts: r.artifacts.map((a) =>
                        a.id === fresh.id && a.kind === 'table'
                          ? { ...a, columns, rows, row_count, truncated }
                          : a,
                      ),
                    },
              ),
            }
          : old,
      );
      void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
      if (hasChart) await queryClient.invalidateQueries({ queryKey: keys.conversation(run.conversation_id) });
    },
  });
}
