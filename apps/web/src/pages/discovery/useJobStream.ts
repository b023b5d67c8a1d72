import { useEffect, useState } from 'react';
import type { DiscoveryEvents, DiscoverySummary } from '@aqs/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { toApiError, type ApiError } from '../../lib/api.ts';
import { openEventStream } from '../../lib/event-stream.ts';
import { discoveryKeys } from './queries.ts';

export interface LiveJob {
  phase: DiscoveryEvents['status']['phase'] | null;
  done: number;
  total: number;
  table: string | null;
  /** Tables finished, in the order they finished. */
  finished: { table: string; columns: number }[];
  state: 'following' | 'succeeded' | 'failed' | 'cancelled';
  summary: DiscoverySummary | null;
  error: { type: string; message: string } | null;
  streamError: ApiError | null;
}

const initial: LiveJob = {
  phase: null,
  done: 0,
  total: 0,
  table: null,
  finished: [],
  state: 'following',
  summary: null,
  error: null,
  streamError: null,
};

/**
 * Follows a discovery job's stream: it replays what happened before (coming back to the page
 * re-attaches) and then what happens live, until `complete`. One request for the whole job. When the
 * job ends, the connection's job and metadata status are read again (in one batched request).
 */
export function useJobStream(connectionId: string, jobId: string | null): LiveJob | null {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveJob | null>(null);
  useEffect(() => {
    if (!jobId) {
      setLive(null);
      return;
    }
    setLive(initial);
    const controller = new AbortController();
    const path = `/api/v1/connections/${encodeURIComponent(connectionId)}/discover/jobs/${encodeURIComponent(jobId)}/stream`;
    openEventStream(
      path,
      { method: 'GET' },
      ({ event, data }) => {
        setLive((old) => {
          const now = old ?? initial;
          switch (event) {
            case 'status':
              return { ...now, phase: (data as DiscoveryEvents['status']).phase };
            case 'progress': {
              const p = data as DiscoveryEvents['progress'];
              return { ...now, done: p.done, total: p.total, table: p.table };
            }
            case 'table_complete': {
              const t = data as DiscoveryEvents['table_complete'];
              return { ...now, done: now.done + 1, finished: [...now.finished, t] };
            }
            case 'error':
              return { ...now, error: data as DiscoveryEvents['error'] };
            case 'complete': {
              const c = data as DiscoveryEvents['complete'];
              return {
                ...now,
                state:
                  c.state === 'succeeded' ? 'succeeded' : c.state === 'cancelled' ? 'cancelled' : 'failed',
                summary: c.summary,
              };
            }
            default:
              return now;
          }
        });
      },
      controller.signal,
    ).then(
      () => {
        void queryClient.invalidateQueries({ queryKey: discoveryKeys.jobs(connectionId) });
        void queryClient.invalidateQueries({ queryKey: discoveryKeys.status(connectionId) });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLive((old) => ({ ...(old ?? initial), streamError: toApiError(error) }));
      },
    );
    return () => controller.abort();
  }, [connectionId, jobId, queryClient]);
  return live;
}
