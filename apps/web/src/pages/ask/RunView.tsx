import type { ChartStyle, RunPhase } from '@aqs/contracts';
import type { RunResult } from '../../lib/api.ts';
import { Badge, Button, CopyButton, formatDate, formatMs } from '../../components/ui.tsx';
import { queryLanguageName, useDialects } from '../connections/hooks.ts';
import { SaveTemplateAction } from '../templates/SaveTemplateAction.tsx';
import { RunArtifacts } from './RunArtifacts.tsx';

export const PHASES: { id: RunPhase; label: string }[] = [
  { id: 'building_context', label: 'Building context' },
  { id: 'planning', label: 'Planning' },
  { id: 'executing', label: 'Executing' },
];

export const STEP_LABELS: Record<string, string> = {
  load_schema: 'Load the schema',
  sample_values: 'Sample column values',
  select_context: 'Pick relevant tables and columns',
  plan: 'Plan the query',
  compile: 'Compile the query',
  validate: 'Validate (read-only, row cap)',
  execute: 'Run the query',
  build_artifacts: 'Build the table and chart',
};

const PLANNER: Record<string, string> = {
  offline: 'Offline planner',
  llm: 'LLM planner',
  template: 'Saved question',
  style: 'Style change',
};

/** `error.message` is "symptom: cause fix [Generated query:\n...]"; split it for display. */
export function splitRunError(message: string): {
  symptom: string | null;
  rest: string;
  query: string | null;
} {
  const queryAt = message.indexOf('Generated query:\n');
  const query = queryAt >= 0 ? message.slice(queryAt + 'Generated query:\n'.length).trim() : null;
  const text = (queryAt >= 0 ? message.slice(0, queryAt) : message).trim();
  const colon = text.indexOf(': ');
  if (colon > 0 && colon < 60) return { symptom: text.slice(0, colon), rest: text.slice(colon + 2), query };
  return { symptom: null, rest: text, query };
}

export function RunError({
  type,
  message,
  suggestions,
  onAsk,
}: {
  type: string;
  message: string;
  suggestions?: string[];
  onAsk?: (question: string) => void;
}) {
  const { symptom, rest, query } = splitRunError(message);
  return (
    <div className="callout callout-error run-error" role="alert">
      <div className="callout-body">
        <strong className="callout-title">
          {symptom ?? (type === 'unanswerable' ? 'The question could not be answered' : 'The run failed')}
        </strong>
        <p>{rest}</p>
        {suggestions && suggestions.length > 0 && onAsk ? (
          <div className="suggestions" aria-label="Questions you can ask instead">
            <span className="muted small">Try instead:</span>
            {suggestions.map((s) => (
              <Button key={s} size="sm" variant="ghost" onClick={() => onAsk(s)}>
                {s}
              </Button>
            ))}
          </div>
        ) : null}
        {query ? <pre className="code small">{query}</pre> : null}
        <p className="muted small">
          Error type: <code>{type}</code>
        </p>
      </div>
    </div>
  );
}

export function RunView({
  run,
  connectionName,
  onReplay,
  replayDisabled,
  onAsk,
  previewStyle,
}: {
  run: RunResult;
  connectionName?: string;
  /** An unsaved chart style to draw the chart in. */
  previewStyle?: ChartStyle | null;
  onReplay?: () => void;
  replayDisabled?: boolean;
  /** Asks another question in the same conversation (a suggestion after a refusal). */
  onAsk?: (question: string) => void;
}) {
  const dialects = useDialects();
  const partial = run.warnings.find((w) => w.code === 'partial_results');
  const otherWarnings = run.warnings.filter((w) => w.code !== 'partial_results');
  const headingId = `run-${run.id}`;

  return (
    <article className="turn" aria-labelledby={headingId}>
      <QuestionBubble run={run} headingId={headingId} onReplay={onReplay} replayDisabled={replayDisabled} />
      <div className="answer card">
        <AnswerMeta run={run} partial={partial} connectionName={connectionName} />

        {partial ? (
          <div className="callout callout-warning" role="note">
            <div className="callout-body">
              <strong className="callout-title">Partial results</strong>
              <p>{partial.message}</p>
            </div>
          </div>
        ) : null}

        {run.interpretation && run.status === 'succeeded' ? (
          <p className="interpretation" aria-label="How the question was read">
            <span className="muted small">Read as:</span> {run.interpretation}
          </p>
        ) : null}

        {run.error && run.status !== 'succeeded' ? (
          run.status === 'cancelled' ? (
            <p className="muted">{run.error.message}</p>
          ) : (
            <RunError
              type={run.error.type}
              message={run.error.message}
              suggestions={run.error.suggestions}
              onAsk={replayDisabled ? undefined : onAsk}
            />
          )
        ) : null}

        <RunArtifacts run={run} previewStyle={previewStyle} />

        {otherWarnings.length > 0 ? <RunNotes warnings={otherWarnings} /> : null}

        {run.query ? (
          <GeneratedQuery
            languageName={queryLanguageName(dialects.data, run.query.dialect)}
            text={run.query.text}
          />
        ) : null}
      </div>
    </article>
  );
}

type RunWarning = RunResult['warnings'][number];

function QuestionBubble({
  run,
  headingId,
  onReplay,
  replayDisabled,
}: {
  run: RunResult;
  headingId: string;
  onReplay: (() => void) | undefined;
  replayDisabled: boolean | undefined;
}) {
  return (
    <div className="question-bubble">
      <h3 id={headingId} className="question-text">
        {run.question}
      </h3>
      <div className="turn-actions">
        <SaveTemplateAction run={run} />
        {onReplay ? (
          <Button
            size="sm"
            variant="ghost"
            onClick={onReplay}
            disabled={replayDisabled}
            aria-label={`Replay “${run.question}”`}
            title="Ask this question again in place (later turns are removed)"
          >
            ↻ Replay
          </Button>
        ) : null}
      </div>
    </div>
  );
}

/** The run's status, planner, connection, date and duration. */
function AnswerMeta({
  run,
  partial,
  connectionName,
}: {
  run: RunResult;
  partial: RunWarning | undefined;
  connectionName: string | undefined;
}) {
  const total = run.timings_ms.building_context + run.timings_ms.planning + run.timings_ms.executing;
  return (
    <div className="answer-meta">
      {run.status === 'succeeded' ? (
        <Badge tone="success">Answered</Badge>
      ) : run.status === 'cancelled' ? (
        <Badge tone="neutral">Stopped</Badge>
      ) : (
        <Badge tone="danger">Failed</Badge>
      )}
      {partial ? (
        <Badge tone="warning" title={partial.message}>
          ⚠ Partial results
        </Badge>
      ) : null}
      {run.planner ? <Badge tone="info">{PLANNER[run.planner] ?? run.planner}</Badge> : null}
      {connectionName ? <span className="muted small">{connectionName}</span> : null}
      <span className="muted small">
        {formatDate(run.created_at)} · {formatMs(total)}
      </span>
    </div>
  );
}

function RunNotes({ warnings }: { warnings: RunWarning[] }) {
  return (
    <ul className="warnings" aria-label="Notes">
      {warnings.map((w, i) => (
        <li key={w.code + i}>
          <Badge tone={w.code === 'planner_note' ? 'neutral' : 'warning'}>{w.code.replace(/_/g, ' ')}</Badge>{' '}
          <span className="small">{w.message}</span>
        </li>
      ))}
    </ul>
  );
}

function GeneratedQuery({ languageName, text }: { languageName: string; text: string }) {
  return (
    <details className="query-block">
      <summary>Generated {languageName} query</summary>
      <div className="query-body">
        <pre className="code" aria-label="Generated query (read-only)">
          <code>{text}</code>
        </pre>
        <CopyButton text={text} label="Copy query" />
      </div>
    </details>
  );
}
