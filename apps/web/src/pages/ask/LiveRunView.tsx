import { Button, ErrorNote, formatMs } from '../../components/ui.tsx';
import { PHASES, RunError, STEP_LABELS } from './RunView.tsx';
import type { LiveRun } from './useRunStream.ts';

/** The question being answered: its phases and steps as they happen, with Stop (or Dismiss once it ended). */
export function LiveRunView({
  live,
  onStop,
  onDismiss,
}: {
  live: LiveRun;
  onStop: () => void;
  onDismiss: () => void;
}) {
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
                const state =
                  live.done && !live.error && !live.stopped
                    ? 'done'
                    : i < phaseIndex
                      ? 'done'
                      : i === phaseIndex
                        ? live.done
                          ? 'halted'
                          : 'active'
                        : 'todo';
                return (
                  <li
                    key={p.id}
                    className={`phase phase-${state}`}
                    aria-current={state === 'active' ? 'step' : undefined}
                  >
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
                    {s.status === 'running' ? (
                      <span className="spinner spinner-inline" />
                    ) : s.status === 'ok' ? (
                      '✓'
                    ) : s.status === 'cancelled' ? (
                      '–'
                    ) : (
                      '✕'
                    )}
                  </span>
                  <span className="step-name">{STEP_LABELS[s.op] ?? s.op}</span>
                  <span className="muted small step-ref">{s.ref}</span>
                  <span className="muted small step-time">
                    {s.elapsed_ms !== undefined ? formatMs(s.elapsed_ms) : ''}
                  </span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {live.stopped ? <p className="muted">Stopped. The run was cancelled on the server.</p> : null}
        {live.error ? <RunError type={live.error.type} message={live.error.message} /> : null}
        {live.requestError ? (
          <ErrorNote error={live.requestError} title="The question was not asked" />
        ) : null}
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
