import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RunPhase } from '@aqs/contracts';
import { DEMO_SUGGESTED_QUESTIONS } from '@aqs/contracts/demo';
import { keys, toApiError, trpc, type Connection, type Conversation, type Onboarding, type Outputs, type RunResult } from '../../lib/api.ts';
import { streamRun, type RunEvent } from '../../lib/run-stream.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorNote, Spinner, formatDate, formatMs } from '../../components/ui.tsx';
import { useConnections, useDialect, useEngineNames } from '../connections/hooks.ts';
import { PHASES, RunError, RunView, STEP_LABELS } from './RunView.tsx';

const MAX = 2000;
const CHART_WORDS = /\b(chart|graph|plot|visuali[sz]e|bar|line|pie|scatter|trend)\b/i;
const DEMO_QUESTIONS = DEMO_SUGGESTED_QUESTIONS;

type ConversationDetail = Outputs['conversations']['get'];

interface LiveStep {
  index: number;
  op: string;
  ref: string;
  status: 'running' | 'ok' | 'error' | 'cancelled';
  elapsed_ms?: number;
}

interface LiveRun {
  question: string;
  phase: RunPhase | null;
  steps: LiveStep[];
  error: { type: string; message: string } | null;
  /** The request failed before the stream opened (JSON error). */
  requestError: unknown;
  stopped: boolean;
  done: boolean;
}

function useOnboarding() {
  return useQuery({ queryKey: keys.onboarding, queryFn: () => trpc.auth.onboardingStatus.query(), staleTime: 5 * 60_000 });
}

export function AskPage({ conversationId }: { conversationId: string | null }) {
  const { query } = useLocation();
  const queryClient = useQueryClient();
  const connections = useConnections();
  const conversations = useQuery({
    queryKey: keys.conversations,
    queryFn: () => trpc.conversations.list.query({ limit: 50 }),
    staleTime: 5 * 60_000,
  });
  const conversation = useQuery({
    queryKey: keys.conversation(conversationId ?? ''),
    queryFn: () => trpc.conversations.get.query({ id: conversationId ?? '' }),
    enabled: conversationId !== null,
    staleTime: 5 * 60_000,
  });
  const onboarding = useOnboarding();

  // Which connection the question goes to: the conversation's, the one in ?connection=, or the first usable one.
  const requested = query.get('connection');
  const [chosen, setChosen] = useState<string | null>(requested);
  useEffect(() => {
    if (requested) setChosen(requested);
  }, [requested]);
  const list = connections.data ?? [];
  const conversationConnection = conversation.data?.connection_id ?? null;
  const connectionId = conversationId ? conversationConnection : (chosen ?? list.find((c) => !c.paused)?.id ?? null);
  const connection = list.find((c) => c.id === connectionId);

  const [text, setText] = useState(query.get('q') ?? '');
  const [alwaysChart, setAlwaysChart] = useState(false);
  const [live, setLive] = useState<LiveRun | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const threadEndRef = useRef<HTMLDivElement>(null);
  const [toDelete, setToDelete] = useState<Conversation | null>(null);
  const running = live !== null && !live.done;

  // Leaving the page (or switching conversation) closes the stream, which cancels the run server-side.
  useEffect(() => () => abortRef.current?.abort(), [conversationId]);
  useEffect(() => {
    setLive(null);
  }, [conversationId]);
  useEffect(() => {
    threadEndRef.current?.scrollIntoView?.({ block: 'end', behavior: 'smooth' });
  }, [live?.steps.length, live?.done, conversation.data?.runs.length]);

  const runs = conversation.data?.runs ?? [];
  const [replaying, setReplaying] = useState<number | null>(null);
  const visibleRuns = replaying === null ? runs : runs.filter((r) => r.turn_index < replaying);

  const truncate = useMutation({
    mutationFn: (v: { id: string; from: number }) => trpc.conversations.truncate.mutate({ id: v.id, from_turn_index: v.from }),
  });
  const removeConversation = useMutation({
    mutationFn: (id: string) => trpc.conversations.delete.mutate({ id }),
    onSuccess: (_r, id) => {
      queryClient.setQueryData<Outputs['conversations']['list']>(keys.conversations, (old) =>
        old ? { ...old, total: old.total - 1, conversations: old.conversations.filter((c) => c.id !== id) } : old,
      );
      queryClient.removeQueries({ queryKey: keys.conversation(id) });
      void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
      setToDelete(null);
      if (id === conversationId) navigate('/ask');
    },
  });

  /** Puts a finished run into the cached conversation and list: no refetch after a run. */
  const storeRun = (result: RunResult, replacedFrom: number | null) => {
    const now = new Date().toISOString();
    queryClient.setQueryData<ConversationDetail>(keys.conversation(result.conversation_id), (old) => {
      const kept = (old?.runs ?? []).filter((r) => (replacedFrom === null ? true : r.turn_index < replacedFrom));
      const runsNext = [...kept.filter((r) => r.id !== result.id), result];
      return old
        ? { ...old, runs: runsNext, turn_count: runsNext.length, updated_at: now }
        : { id: result.conversation_id, title: result.question.slice(0, 120), connection_id: result.connection_id, turn_count: 1, created_at: result.created_at, updated_at: now, runs: runsNext };
    });
    queryClient.setQueryData<Outputs['conversations']['list']>(keys.conversations, (old) => {
      if (!old) return old;
      const existing = old.conversations.find((c) => c.id === result.conversation_id);
      const detail = queryClient.getQueryData<ConversationDetail>(keys.conversation(result.conversation_id));
      const entry: Conversation = existing
        ? { ...existing, turn_count: detail?.turn_count ?? existing.turn_count, updated_at: now }
        : { id: result.conversation_id, title: result.question.slice(0, 120), connection_id: result.connection_id, turn_count: 1, created_at: result.created_at, updated_at: now };
      return { ...old, total: existing ? old.total : old.total + 1, conversations: [entry, ...old.conversations.filter((c) => c.id !== entry.id)] };
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
  };

  const ask = async (question: string, options: { replayFrom?: number } = {}) => {
    const q = question.trim();
    if (!q || !connectionId || running) return;
    const controller = new AbortController();
    abortRef.current = controller;
    const replayFrom = options.replayFrom ?? null;
    setLive({ question: q, phase: null, steps: [], error: null, requestError: null, stopped: false, done: false });
    const update = (fn: (l: LiveRun) => LiveRun) => setLive((l) => (l ? fn(l) : l));
    try {
      if (replayFrom !== null && conversationId) {
        setReplaying(replayFrom);
        await truncate.mutateAsync({ id: conversationId, from: replayFrom });
        queryClient.setQueryData<ConversationDetail>(keys.conversation(conversationId), (old) =>
          old ? { ...old, runs: old.runs.filter((r) => r.turn_index < replayFrom), turn_count: replayFrom } : old,
        );
      }
      let completed: RunResult | null = null;
      await streamRun(
        {
          question: q,
          connection_id: connectionId,
          ...(conversationId ? { conversation_id: conversationId } : {}),
          chart_requested: alwaysChart || CHART_WORDS.test(q),
        },
        (event: RunEvent) => {
          switch (event.event) {
            case 'status':
              update((l) => ({ ...l, phase: event.data.phase }));
              break;
            case 'step_start':
              update((l) => ({ ...l, steps: [...l.steps, { ...event.data, status: 'running' }] }));
              break;
            case 'step_complete':
              update((l) => ({
                ...l,
                steps: l.steps.map((s) => (s.index === event.data.index ? { ...s, status: event.data.status, elapsed_ms: event.data.elapsed_ms } : s)),
              }));
              break;
            case 'error':
              update((l) => ({ ...l, error: { type: event.data.type, message: event.data.message } }));
              break;
            case 'complete':
              completed = event.data;
              break;
          }
        },
        controller.signal,
      );
      const result = completed as RunResult | null;
      if (result) {
        storeRun(result, replayFrom);
        setLive(null);
        setText('');
        if (!conversationId) navigate(`/ask/${result.conversation_id}`);
      } else {
        update((l) => ({ ...l, done: true, error: l.error ?? { type: 'stream', message: 'The stream ended without an answer. Try again.' } }));
      }
    } catch (error) {
      const e = toApiError(error);
      if (controller.signal.aborted || e.code === 'aborted') {
        update((l) => ({ ...l, done: true, stopped: true, steps: l.steps.map((s) => (s.status === 'running' ? { ...s, status: 'cancelled' } : s)) }));
        // The server stored the run as cancelled; the cached thread is refreshed on the next visit.
        void queryClient.invalidateQueries({ queryKey: keys.conversations, refetchType: 'none' });
        if (conversationId) void queryClient.invalidateQueries({ queryKey: keys.conversation(conversationId), refetchType: 'none' });
      } else {
        update((l) => ({ ...l, done: true, requestError: error, steps: l.steps.map((s) => (s.status === 'running' ? { ...s, status: 'error' } : s)) }));
      }
    } finally {
      setReplaying(null);
      if (abortRef.current === controller) abortRef.current = null;
    }
  };

  const stop = () => abortRef.current?.abort();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void ask(text);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void ask(text);
    }
  };

  const connectionNames = useMemo(() => new Map(list.map((c) => [c.id, c.name])), [list]);
  const demo = list.find((c) => c.is_demo);
  const newThread = conversationId === null;
  const tooLong = text.length > MAX;

  return (
    <div className="ask-layout">
      <aside className="conversations" aria-label="Conversations">
        <div className="conversations-head">
          <h2>Conversations</h2>
          <Button
            size="sm"
            variant="primary"
            onClick={() => {
              navigate(connectionId ? `/ask?connection=${connectionId}` : '/ask');
              inputRef.current?.focus();
            }}
          >
            New
          </Button>
        </div>
        {conversations.isPending ? <Spinner label="Loading…" /> : null}
        <ErrorNote error={conversations.error} onRetry={() => void conversations.refetch()} />
        {conversations.data && conversations.data.conversations.length === 0 ? <p className="muted small pad">No conversations yet. Ask your first question.</p> : null}
        <ul className="conversation-list">
          {conversations.data?.conversations.map((c) => (
            <li key={c.id} className={c.id === conversationId ? 'active' : ''}>
              <Link to={`/ask/${c.id}`} className="conversation-link" aria-current={c.id === conversationId ? 'page' : undefined}>
                <span className="conversation-title">{c.title}</span>
                <span className="muted small">
                  {(c.connection_id && connectionNames.get(c.connection_id)) ?? 'Deleted connection'} · {c.turn_count} turn{c.turn_count === 1 ? '' : 's'} · {formatDate(c.updated_at)}
                </span>
              </Link>
              <button type="button" className="icon-button" aria-label={`Delete conversation “${c.title}”`} onClick={() => setToDelete(c)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      </aside>

      <section className="thread" aria-label="Question and answers">
        <div className="thread-head">
          {newThread ? (
            <div className="connection-picker">
              <h1 className="visually-hidden">Ask a question</h1>
              <label htmlFor="ask-connection">Ask</label>
              <select id="ask-connection" value={connectionId ?? ''} onChange={(e) => setChosen(e.target.value)} disabled={running || list.length === 0}>
                {list.length === 0 ? <option value="">No connection</option> : null}
                {list.map((c) => (
                  <option key={c.id} value={c.id} disabled={c.paused}>
                    {c.name}
                    {c.is_demo && !/demo/i.test(c.name) ? ' (demo)' : ''}
                    {c.paused ? ' — paused' : ''}
                  </option>
                ))}
              </select>
              {connection ? (
                <Link to={`/connections/${connection.id}/schema`} className="small">
                  Browse schema
                </Link>
              ) : null}
            </div>
          ) : (
            <div className="thread-title">
              <h1>{conversation.data?.title ?? 'Conversation'}</h1>
              <span className="muted small">
                {connection ? (
                  <>
                    on <Link to={`/connections/${connection.id}/schema`}>{connection.name}</Link>
                  </>
                ) : conversation.data && !conversation.data.connection_id ? (
                  'Its connection was deleted'
                ) : null}
              </span>
            </div>
          )}
        </div>

        <div className="thread-body">
          {newThread && onboarding.data && !onboarding.data.completed ? (
            <OnboardingCard
              status={onboarding.data}
              demo={demo}
              onTryDemo={() => {
                if (demo) setChosen(demo.id);
                setText(DEMO_QUESTIONS[0] ?? '');
                inputRef.current?.focus();
              }}
            />
          ) : null}

          {newThread && !live ? (
            <NewThreadHint connection={connection} connectionsLoaded={Boolean(connections.data)} onPick={(q) => { setText(q); inputRef.current?.focus(); }} />
          ) : null}

          {conversationId && conversation.isPending ? <Spinner label="Loading the conversation…" /> : null}
          <ErrorNote error={conversation.error} title="The conversation could not be loaded" onRetry={() => void conversation.refetch()} />

          {visibleRuns.map((run) => (
            <RunView
              key={run.id}
              run={run}
              onReplay={() => void ask(run.question, { replayFrom: run.turn_index })}
              replayDisabled={running || connection?.paused === true || !connection}
              onAsk={(question) => void ask(question)}
            />
          ))}

          {live ? <LiveRunView live={live} onStop={stop} onDismiss={() => setLive(null)} /> : null}
          <div ref={threadEndRef} />
        </div>

        <form className="composer" onSubmit={submit} aria-label="Ask a question">
          {connection?.paused ? (
            <p className="text-warning small">
              This connection is paused. <Link to="/connections">Resume it</Link> to ask questions.
            </p>
          ) : null}
          <label htmlFor="question" className="visually-hidden">
            {newThread ? 'Your question' : 'Follow-up question'}
          </label>
          <textarea
            id="question"
            ref={inputRef}
            rows={2}
            maxLength={MAX + 200}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKeyDown}
            placeholder={newThread ? 'Ask a question about your data, e.g. “number of orders by status”' : 'Ask a follow-up, e.g. “only for Spain” or “now by month”'}
            aria-describedby="question-counter question-tip"
            aria-invalid={tooLong || undefined}
            disabled={!connectionId}
          />
          <div className="composer-bar">
            <label className="checkbox small">
              <input type="checkbox" checked={alwaysChart} onChange={(e) => setAlwaysChart(e.target.checked)} /> Draw a chart
            </label>
            <span id="question-tip" className="muted small composer-tip">
              Enter to ask · Shift+Enter for a new line
            </span>
            <span id="question-counter" className={`small counter${tooLong ? ' text-danger' : ' muted'}`} aria-live={tooLong ? 'polite' : 'off'}>
              {text.length}/{MAX}
            </span>
            {/* Distinct keys: reusing one <button> would turn the Stop click into a submit. */}
            {running ? (
              <Button key="stop" variant="danger" onClick={stop}>
                Stop
              </Button>
            ) : (
              <Button key="ask" type="submit" variant="primary" disabled={!text.trim() || tooLong || !connectionId || connection?.paused}>
                {newThread ? 'Ask' : 'Ask follow-up'}
              </Button>
            )}
          </div>
        </form>
      </section>

      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this conversation?"
        confirmLabel="Delete conversation"
        busy={removeConversation.isPending}
        error={removeConversation.error}
        onCancel={() => setToDelete(null)}
        onConfirm={() => toDelete && removeConversation.mutate(toDelete.id)}
      >
        <p>
          “{toDelete?.title}” and its {toDelete?.turn_count} run{toDelete?.turn_count === 1 ? '' : 's'} will be deleted.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function LiveRunView({ live, onStop, onDismiss }: { live: LiveRun; onStop: () => void; onDismiss: () => void }) {
  const phaseIndex = live.phase ? PHASES.findIndex((p) => p.id === live.phase) : -1;
  const phaseLabel = PHASES.find((p) => p.id === live.phase)?.label;
  const announcement = live.stopped
    ? 'Stopped.'
    : live.requestError
      ? 'The question could not be asked.'
      : live.error
        ? 'The run failed.'
        : phaseLabel
          ? `${phaseLabel}…`
          : 'Starting…';
  return (
    <article className="turn live" aria-label="Current question" aria-busy={!live.done}>
      <div className="question-bubble">
        <h3 className="question-text">{live.question}</h3>
      </div>
      <div className="answer card">
        <div className="visually-hidden" role="status" aria-live="polite">
          {announcement}
        </div>
        {!live.requestError ? (
          <>
            <ol className="phases" aria-label="Progress">
              {PHASES.map((p, i) => {
                const state = live.done && !live.error && !live.stopped ? 'done' : i < phaseIndex ? 'done' : i === phaseIndex ? (live.done ? 'halted' : 'active') : 'todo';
                return (
                  <li key={p.id} className={`phase phase-${state}`} aria-current={state === 'active' ? 'step' : undefined}>
                    <span className="phase-dot" aria-hidden="true" />
                    {p.label}
                  </li>
                );
              })}
            </ol>
            <ul className="steps">
              {live.steps.map((s) => (
                <li key={s.index} className={`step step-${s.status}`}>
                  <span className="step-icon" aria-hidden="true">
                    {s.status === 'running' ? <span className="spinner spinner-inline" /> : s.status === 'ok' ? '✓' : s.status === 'cancelled' ? '–' : '✕'}
                  </span>
                  <span className="step-name">{STEP_LABELS[s.op] ?? s.op}</span>
                  <span className="muted small step-ref">{s.ref}</span>
                  <span className="muted small step-time">{s.elapsed_ms !== undefined ? formatMs(s.elapsed_ms) : ''}</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {live.stopped ? <p className="muted">Stopped. The run was cancelled on the server.</p> : null}
        {live.error ? <RunError type={live.error.type} message={live.error.message} /> : null}
        {live.requestError ? <ErrorNote error={live.requestError} title="The question was not asked" /> : null}
        <div className="row gap">
          {!live.done ? (
            <Button key="stop" variant="danger" size="sm" onClick={onStop}>
              Stop
            </Button>
          ) : (
            <Button key="dismiss" size="sm" onClick={onDismiss}>
              Dismiss
            </Button>
          )}
        </div>
      </div>
    </article>
  );
}

function OnboardingCard({ status, demo, onTryDemo }: { status: Onboarding; demo: Connection | undefined; onTryDemo: () => void }) {
  const engines = useEngineNames();
  const steps = [
    { id: 'verify_email', done: status.steps.verify_email, title: 'Confirm your email', body: 'Open the link we emailed you (without SMTP it is in the server log and the outbox_emails table).' },
    {
      id: 'first_question',
      done: status.steps.first_question,
      title: 'Ask a first question',
      body: demo ? `Your account includes “${demo.name}”, an embedded demo shop with orders, customers and products.` : 'Pick a connection and ask in plain language.',
    },
    { id: 'first_connection', done: status.steps.first_connection, title: 'Connect your own data', body: `${engines}, read-only, with your own credentials.` },
  ];
  const done = steps.filter((s) => s.done).length;
  return (
    <section className="card onboarding" aria-labelledby="onboarding-title">
      <div className="row space-between">
        <h2 id="onboarding-title">Get started</h2>
        <span className="muted small">
          {done} of {steps.length} done
        </span>
      </div>
      <ol className="onboarding-steps">
        {steps.map((s) => (
          <li key={s.id} className={s.done ? 'done' : ''}>
            <span className="onboarding-check" aria-hidden="true">
              {s.done ? '✓' : ''}
            </span>
            <div>
              <strong>{s.title}</strong>
              {s.done ? <span className="visually-hidden"> (done)</span> : null}
              <p className="muted small">{s.body}</p>
              {s.id === 'first_question' && !s.done ? (
                <Button variant="primary" size="sm" onClick={onTryDemo} disabled={!demo}>
                  Try the demo shop
                </Button>
              ) : null}
              {s.id === 'first_connection' && !s.done ? (
                <Link to="/connections/new" className="btn btn-sm">
                  Add a connection
                </Link>
              ) : null}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}

function NewThreadHint({ connection, connectionsLoaded, onPick }: { connection: Connection | undefined; connectionsLoaded: boolean; onPick: (q: string) => void }) {
  const dialect = useDialect(connection?.dialect);
  const engines = useEngineNames();
  if (!connectionsLoaded) return <Spinner label="Loading connections…" />;
  if (!connection) {
    return (
      <EmptyState
        title="No connection to ask"
        action={
          <Link to="/connections/new" className="btn btn-primary">
            Add a connection
          </Link>
        }
      >
        Connect {engines} first, or resume a paused connection.
      </EmptyState>
    );
  }
  return (
    <div className="new-thread">
      <h2>
        Ask <span className="accent">{connection.name}</span> a question
      </h2>
      <p className="muted">
        Plain language works: counts, totals and averages, “by” a field, per day or month, top N, filters such as “in France” or “last 30 days”. Follow-ups refine the
        previous answer.
      </p>
      {connection.is_demo ? (
        <div className="suggestions" role="group" aria-label="Example questions">
          {DEMO_QUESTIONS.map((q) => (
            <button key={q} type="button" className="chip" onClick={() => onPick(q)}>
              {q}
            </button>
          ))}
        </div>
      ) : (
        <p className="small">
          {dialect ? <Badge>{dialect.query_language}</Badge> : null}{' '}
          <Link to={`/connections/${connection.id}/schema`}>Browse the schema</Link> to see which fields you can ask about.
        </p>
      )}
    </div>
  );
}
