import type { TestResult } from '../../lib/api.ts';

const ICON: Record<string, string> = { passed: '✓', failed: '✕', warning: '!', skipped: '–' };

/** Each check of `connections.test`; on failure the symptom, its cause and the fix. */
export function TestResultView({ result }: { result: TestResult }) {
  return (
    <section className={`test-result ${result.ok ? 'ok' : 'failed'}`} aria-label="Connection test result">
      <div className="test-summary" role="status">
        <strong>{result.ok ? 'Connection test passed' : 'Connection test failed'}</strong>
        {result.server?.version ? (
          <span className="muted">
            {result.server.flavor ? `${result.server.flavor} ` : ''}
            {result.server.version}
          </span>
        ) : null}
      </div>
      <ul className="checks">
        {result.checks.map((check) => (
          <li key={check.id} className={`check check-${check.status}`}>
            <span className="check-icon" aria-hidden="true">
              {ICON[check.status] ?? '•'}
            </span>
            <span className="check-name">{check.name}</span>
            <span className="visually-hidden">: {check.status}.</span>
            <span className="check-detail muted">{check.detail}</span>
          </li>
        ))}
      </ul>
      {!result.ok && (result.symptom || result.cause || result.fix) ? (
        <dl className="diagnosis">
          {result.symptom ? (
            <>
              <dt>Symptom</dt>
              <dd>
                <code>{result.symptom}</code>
              </dd>
            </>
          ) : null}
          {result.cause ? (
            <>
              <dt>Cause</dt>
              <dd>{result.cause}</dd>
            </>
          ) : null}
          {result.fix ? (
            <>
              <dt>Fix</dt>
              <dd>{result.fix}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </section>
  );
}
