import type { FormEvent, KeyboardEvent, Ref } from 'react';
import type { Connection } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { Button } from '../../components/ui.tsx';

const MAX = 2000;

/** Where a question (or a follow-up) is typed: Enter asks, Shift+Enter breaks the line; Stop while a run is live. */
export function Composer(props: {
  ref: Ref<HTMLTextAreaElement>;
  text: string;
  onText: (text: string) => void;
  onAsk: () => void;
  onStop: () => void;
  running: boolean;
  newThread: boolean;
  /** The connection the question goes to (undefined until the list is loaded); `canAsk` once one is chosen. */
  connection: Connection | undefined;
  canAsk: boolean;
  alwaysChart: boolean;
  onAlwaysChart: (on: boolean) => void;
}) {
  const {
    ref,
    text,
    onText,
    onAsk,
    onStop,
    running,
    newThread,
    connection,
    canAsk,
    alwaysChart,
    onAlwaysChart,
  } = props;
  const tooLong = text.length > MAX;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onAsk();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      onAsk();
    }
  };
  return (
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
        ref={ref}
        rows={2}
        maxLength={MAX + 200}
        value={text}
        onChange={(e) => onText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={
          newThread
            ? 'Ask a question about your data, e.g. “number of orders by status”'
            : 'Ask a follow-up, e.g. “only for Spain” or “now by month”'
        }
        aria-describedby="question-counter question-tip"
        aria-invalid={tooLong || undefined}
        disabled={!canAsk}
      />
      <div className="composer-bar">
        <label className="checkbox small">
          <input type="checkbox" checked={alwaysChart} onChange={(e) => onAlwaysChart(e.target.checked)} />{' '}
          Draw a chart
        </label>
        <span id="question-tip" className="muted small composer-tip">
          Enter to ask · Shift+Enter for a new line
        </span>
        <span
          id="question-counter"
          className={`small counter${tooLong ? ' text-danger' : ' muted'}`}
          aria-live={tooLong ? 'polite' : 'off'}
        >
          {text.length}/{MAX}
        </span>
        {/* Distinct keys: reusing one <button> would turn the Stop click into a submit. */}
        {running ? (
          <Button key="stop" variant="danger" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button
            key="ask"
            type="submit"
            variant="primary"
            disabled={!text.trim() || tooLong || !canAsk || connection?.paused}
          >
            {newThread ? 'Ask' : 'Ask follow-up'}
          </Button>
        )}
      </div>
    </form>
  );
}
