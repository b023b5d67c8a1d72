import { useEffect, useRef, useState } from 'react';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { RunPhase, RunRequest } from '@aqs/contracts';
import {
  keys,
  toApiError,
  trpc,
  type Conversation,
  type Onboarding,
  type Outputs,
  type RunResult,
  type Template,
} from '../../lib/api.ts';
import { countQuestion, noteQuotaError } from '../../lib/account.ts';
import { fillQuestion } from '../../lib/fill-question.ts';
import { streamRun, type RunEvent } from '../../lib/run-stream.ts';
import { navigate } from '../../lib/router.tsx';

const CHART_WORDS = /\b(chart|graph|plot|visuali[sz]e|bar|line|pie|scatter|trend)\b/i;

export type ConversationDetail = Outputs['conversations']['get'];

export interface LiveStep {
  index: number;
  op: string;
  ref: string;
  status: 'running' | 'ok' | 'error' | 'cancelled';
  elapsed_ms?: number;
}

/** The run being asked: its phase and steps as the stream reports them. */
export interface LiveRun {
  question: string;
  phase: RunPhase | null;
  steps: LiveStep[];
  error: { type: string; message: string } | null;
  /** The request failed before the stream opened (JSON error). */
  requestError: unknown;
  stopped: boolean;
  done: boolean;
}

/** Puts a finished run into the cached conversation, the conversation list and onboarding: no refetch after a run. */
function storeRun(queryClient: QueryClient, result: RunResult, replacedFrom: number | null): void {
  const now = new Date().toISOString();
  queryClient.setQueryData<ConversationDetail>(keys.conversation(result.conversation_id), (old) => {
    const kept = (old?.runs ?? []).filter((r) =>
      replacedFrom === null ? true : r.turn_index < replacedFrom,
    );
    const runsNext = [...kept.filter((r) => r.id !== result.id), result];
    return old
      ? { ...old, runs: runsNext, turn_count: runsNext.length, updated_at: now }
      : {
          id: result.conversation_id,
          title: result.question.slice(0, 120),
          connection_id: result.connection_id,
          turn_count: 1,
          created_at: result.created_at,
          updated_at: now,
          runs: runsNext,
        };
  });
  queryClient.setQueryData<Outputs['conversations']['list']>(keys.conversations, (old) => {
    if (!old) return old;
    const existing = old.conversations.find((c) => c.id === result.conversation_id);
    const detail = queryClient.getQueryData<ConversationDetail>(keys.conversation(result.conversation_id));
    const entry: Conversation = existing
      ? { ...existing, turn_count: detail?.turn_count ?? existing.turn_count, updated_at: now }
      : {
          id: result.conversation_id,
          title: result.question.slice(0, 120),
          connection_id: result.connection_id,
          turn_count: 1,
          created_at: result.created_at,
          updated_at: now,
        };
    return {
      ...old,
      total: existing ? old.total : old.total + 1,
      conversations: [entry, ...old.conversations.filter((c) => c.id !== entry.id)],
    };
  });
  queryClient.setQueryData<Onboarding>(keys.onboarding, (old) => {
    if (!old || old.steps.first_question) return old;
    const steps = { ...old.steps, first_question: true };
    const order = ['verify_email', 'first_connection', 'first_question'] as const;
    const next = order.find((s) => !steps[s]) ?? null;
    return { steps, completed: next === null, next_step: next };
  });
  // History is read again only when it is opened next.
  void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
  if (result.planner !== 'style') countQuestion(queryClient);
  if (result.planner === 'style') {
    // A style turn changed the conversation's style: its other charts are read again, restyled.
    void queryClient.invalidateQueries({ queryKey: keys.style(result.conversation_id) });
    void queryClient.invalidateQueries({ queryKey: keys.conversation(result.conversation_id) });
  }
}

/** The state of one live run as the stream's events move it on. */
function applyEvent(l: LiveRun, event: RunEvent): LiveRun {
  switch (event.event) {
    case 'status':
      return { ...l, phase: event.data.phase };
    case 'step_start':
      return { ...l, steps: [...l.steps, { ...event.data, status: 'running' }] };
    case 'step_complete':
      return {
        ...l,
        steps: l.steps.map((s) =>
          s.index === event.data.index
            ? { ...s, status: event.data.status, elapsed_ms: event.data.elapsed_ms }
            : s,
        ),
      };
    case 'error':
      return { ...l, error: { type: event.data.type, message: event.data.message } };
    default:
      return l;
  }
}

/**
 * Asking questions in a conversation over the run stream (POST /api/v1/run/stream): the live run's
 * progress, stop (closing the stream cancels the run on the server), replay from a turn (the later
 * turns are removed first), and the finished run written into the cache. Leaving the conversation
 * closes the stream.
 */
export function useRunStream(options: {
  connectionId: string | null;
  conversationId: string | null;
  alwaysChart: boolean;
  onAnswered: () => void;
}) {
  const { connectionId, conversationId, alwaysChart, onAnswered } = options;
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveRun | null>(null);
  const [replaying, setReplaying] = useState<number | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const running = live !== null && !live.done;

  useEffect(() => () => abortRef.current?.abort(), [conversationId]);
  useEffect(() => {
    setLive(null);
  }, [conversationId]);

  const truncate = useMutation({
    mutationFn: (v: { id: string; from: number }) =>
      trpc.conversations.truncate.mutate({ id: v.id, from_turn_index: v.from }),
  });

  /** Starts a run: `shown` is the question as the thread shows it while the answer streams. */
  const start = async (
    body: Pick<RunRequest, 'question' | 'template'>,
    shown: string,
    startOptions: { replayFrom?: number; chart: boolean },
  ) => {
    const q = shown.trim();
    if (!q || !connectionId || running) return;
    const controller = new AbortController();
    abortRef.current = controller;
    const replayFrom = startOptions.replayFrom ?? null;
    setLive({
      question: q,
      phase: null,
      steps: [],
      error: null,
      requestError: null,
      stopped: false,
      done: false,
    });
    const update = (fn: (l: LiveRun) => LiveRun) => setLive((l) => (l ? fn(l) : l));
    try {
      if (replayFrom !== null && conversationId) {
        setReplaying(replayFrom);
        await truncate.mutateAsync({ id: conversationId, from: replayFrom });
        queryClient.setQueryData<ConversationDetail>(keys.conversation(conversationId), (old) =>
          old
            ? { ...old, runs: old.runs.filter((r) => r.turn_index < replayFrom), turn_count: replayFrom }
            : old,
        );
      }
      let completed: RunResult | null = null;
      await streamRun(
        {
          ...body,
          connection_id: connectionId,
          ...(conversationId ? { conversation_id: conversationId } : {}),
          chart_requested: alwaysChart || startOptions.chart,
        },
        (event: RunEvent) => {
          if (event.event === 'complete') completed = event.data;
          else update((l) => applyEvent(l, event));
        },
        controller.signal,
      );
      const result = completed as RunResult | null;
      if (result) {
        storeRun(queryClient, result, replayFrom);
        setLive(null);
        onAnswered();
        if (!conversationId) navigate(`/ask/${result.conversation_id}`);
      } else {
        update((l) => ({
          ...l,
          done: true,
          error: l.error ?? { type: 'stream', message: 'The stream ended without an answer. Try again.' },
        }));
      }
    } catch (error) {
      const e = toApiError(error);
      if (controller.signal.aborted || e.code === 'aborted') {
        update((l) => ({
          ...l,
          done: true,
          stopped: true,
          steps: l.steps.map((s) => (s.status === 'running' ? { ...s, status: 'cancelled' } : s)),
        }));
        // The server stored the run as cancelled; the cached thread is refreshed on the next visit.
        void queryClient.invalidateQueries({ queryKey: keys.conversations, refetchType: 'none' });
        if (conversationId)
          void queryClient.invalidateQueries({
            queryKey: keys.conversation(conversationId),
            refetchType: 'none',
          });
      } else {
        // A refusal for the month's questions shows in the quota banner at once.
        noteQuotaError(queryClient, error);
        update((l) => ({
          ...l,
          done: true,
          requestError: error,
          steps: l.steps.map((s) => (s.status === 'running' ? { ...s, status: 'error' } : s)),
        }));
      }
    } finally {
      setReplaying(null);
      if (abortRef.current === controller) abortRef.current = null;
    }
  };

  const ask = (question: string, askOptions: { replayFrom?: number } = {}) =>
    start({ question: question.trim() }, question, { ...askOptions, chart: CHART_WORDS.test(question) });

  /** Runs a saved question (no planner): the thread shows its question with the values filled in. */
  const askTemplate = (template: Template, parameters: Record<string, string | number>) => {
    const defaults = Object.fromEntries(template.parameters.map((p) => [p.name, p.default]));
    return start(
      { template: { id: template.id, parameters } },
      fillQuestion(template.question, { ...defaults, ...parameters }),
      { chart: CHART_WORDS.test(template.question) },
    );
  };

  return {
    live,
    running,
    /** The turn a replay starts from while it runs: later turns are hidden. */
    replaying,
    ask,
    askTemplate,
    stop: () => abortRef.current?.abort(),
    dismiss: () => setLive(null),
  };
}
