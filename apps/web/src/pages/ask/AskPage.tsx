import { useEffect, useMemo, useRef, useState } from 'react';
import { navigate, useLocation } from '../../lib/router.tsx';
import { ErrorNote, Spinner } from '../../components/ui.tsx';
import { useConnections, useDialects } from '../connections/hooks.ts';
import { StylePanelSlot, useStyling } from '../style/StylePanelSlot.tsx';
import { SavedQuestions } from '../templates/SavedQuestions.tsx';
import { Composer } from './Composer.tsx';
import { ConversationList } from './ConversationList.tsx';
import { LiveRunView } from './LiveRunView.tsx';
import { DEMO_QUESTIONS, NewThreadHint, OnboardingCard } from './NewThread.tsx';
import { RunView } from './RunView.tsx';
import { ThreadHead } from './ThreadHead.tsx';
import { useConversation, useOnboarding } from './queries.ts';
import { useRunStream } from './useRunStream.ts';

export function AskPage({ conversationId }: { conversationId: string | null }) {
  const { query } = useLocation();
  const connections = useConnections();
  const conversation = useConversation(conversationId);
  // Answers name their query language from the dialects: asked now, they join this first batch.
  useDialects();
  const onboarding = useOnboarding();

  // Which connection the question goes to: the conversation's, the one in ?connection=, or the first usable one.
  const requested = query.get('connection');
  const [chosen, setChosen] = useState<string | null>(requested);
  useEffect(() => {
    if (requested) setChosen(requested);
  }, [requested]);
  const list = connections.data ?? [];
  const conversationConnection = conversation.data?.connection_id ?? null;
  const connectionId = conversationId
    ? conversationConnection
    : (chosen ?? list.find((c) => !c.paused)?.id ?? null);
  const connection = list.find((c) => c.id === connectionId);

  const [text, setText] = useState(query.get('q') ?? '');
  const [alwaysChart, setAlwaysChart] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const threadEndRef = useRef<HTMLDivElement>(null);
  // Leaving the page (or switching conversation) closes the stream, which cancels the run server-side.
  const { live, running, replaying, ask, askTemplate, stop, dismiss } = useRunStream({
    connectionId,
    conversationId,
    alwaysChart,
    onAnswered: () => setText(''),
  });
  useEffect(() => {
    threadEndRef.current?.scrollIntoView?.({ block: 'end', behavior: 'smooth' });
  }, [live?.steps.length, live?.done, conversation.data?.runs.length]);

  const styling = useStyling(conversationId);

  const runs = conversation.data?.runs ?? [];
  const hasChart = runs.some((r) => r.artifacts.some((a) => a.kind === 'chart'));
  const visibleRuns = replaying === null ? runs : runs.filter((r) => r.turn_index < replaying);

  const connectionNames = useMemo(() => new Map(list.map((c) => [c.id, c.name])), [list]);
  const demo = list.find((c) => c.is_demo);
  const newThread = conversationId === null;

  return (
    <div className="ask-layout">
      <ConversationList
        activeId={conversationId}
        connectionNames={connectionNames}
        onNew={() => {
          navigate(connectionId ? `/ask?connection=${connectionId}` : '/ask');
          inputRef.current?.focus();
        }}
      />

      <section className="thread" aria-label="Question and answers">
        <ThreadHead
          newThread={newThread}
          title={conversation.data?.title}
          connectionDeleted={Boolean(conversation.data && !conversation.data.connection_id)}
          connections={list}
          connection={connection}
          onChoose={setChosen}
          running={running}
          styling={styling.open}
          onStyle={hasChart ? styling.toggle : undefined}
        />

        <div className="thread-row">
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
              <NewThreadHint
                connection={connection}
                connectionsLoaded={Boolean(connections.data)}
                onPick={(q) => {
                  setText(q);
                  inputRef.current?.focus();
                }}
              />
            ) : null}
            {newThread && !live && connection ? (
              <SavedQuestions
                key={connection.id}
                connection={connection}
                openTemplateId={query.get('template')}
                running={running}
                onRun={(template, parameters) => void askTemplate(template, parameters)}
              />
            ) : null}

            {conversationId && conversation.isPending ? <Spinner label="Loading the conversation…" /> : null}
            <ErrorNote
              error={conversation.error}
              title="The conversation could not be loaded"
              onRetry={() => void conversation.refetch()}
            />

            {visibleRuns.map((run) => (
              <RunView
                key={run.id}
                run={run}
                onReplay={() => void ask(run.question, { replayFrom: run.turn_index })}
                replayDisabled={running || connection?.paused === true || !connection}
                onAsk={(question) => void ask(question)}
                previewStyle={styling.preview}
              />
            ))}

            {live ? <LiveRunView live={live} onStop={stop} onDismiss={dismiss} /> : null}
            <div ref={threadEndRef} />
          </div>
          <StylePanelSlot conversationId={conversationId} styling={styling} />
        </div>

        <Composer
          ref={inputRef}
          text={text}
          onText={setText}
          onAsk={() => void ask(text)}
          onStop={stop}
          running={running}
          newThread={newThread}
          connection={connection}
          canAsk={connectionId !== null}
          alwaysChart={alwaysChart}
          onAlwaysChart={setAlwaysChart}
        />
      </section>
    </div>
  );
}
