import { DEMO_SUGGESTED_QUESTIONS } from '@aqs/contracts/demo';
import type { Connection, Onboarding } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { useIsOwner } from '../../lib/account.ts';
import { Badge, Button, EmptyState, Spinner } from '../../components/ui.tsx';
import { useDialect, useEngineNames } from '../connections/hooks.ts';

export const DEMO_QUESTIONS = DEMO_SUGGESTED_QUESTIONS;

export function OnboardingCard({
  status,
  demo,
  onTryDemo,
}: {
  status: Onboarding;
  demo: Connection | undefined;
  onTryDemo: () => void;
}) {
  const engines = useEngineNames();
  const owner = useIsOwner();
  const steps = [
    {
      id: 'verify_email',
      done: status.steps.verify_email,
      title: 'Confirm your email',
      body: 'Open the link we emailed you (without SMTP it is in the server log and the outbox_emails table).',
    },
    {
      id: 'first_question',
      done: status.steps.first_question,
      title: 'Ask a first question',
      body: demo
        ? `Your account includes “${demo.name}”, an embedded demo shop with orders, customers and products.`
        : 'Pick a connection and ask in plain language.',
    },
    {
      id: 'first_connection',
      done: status.steps.first_connection,
      title: 'Connect your own data',
      body: `${engines}, read-only, with your own credentials.`,
    },
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
              {s.id === 'first_connection' && !s.done && owner ? (
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

export function NewThreadHint({
  connection,
  connectionsLoaded,
  onPick,
}: {
  connection: Connection | undefined;
  connectionsLoaded: boolean;
  onPick: (q: string) => void;
}) {
  const dialect = useDialect(connection?.dialect);
  const engines = useEngineNames();
  const owner = useIsOwner();
  if (!connectionsLoaded) return <Spinner label="Loading connections…" />;
  if (!connection) {
    return (
      <EmptyState
        title="No connection to ask"
        action={
          owner ? (
            <Link to="/connections/new" className="btn btn-primary">
              Add a connection
            </Link>
          ) : undefined
        }
      >
        {owner
          ? `Connect ${engines} first, or resume a paused connection.`
          : 'This workspace has no active connection yet: ask its owner to add or resume one.'}
      </EmptyState>
    );
  }
  return (
    <div className="new-thread">
      <h2>
        Ask <span className="accent">{connection.name}</span> a question
      </h2>
      <p className="muted">
        Plain language works: counts, totals and averages, “by” a field, per day or month, top N, filters such
        as “in France” or “last 30 days”. Follow-ups refine the previous answer.
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
          <Link to={`/connections/${connection.id}/schema`}>Browse the schema</Link> to see which fields you
          can ask about.
        </p>
      )}
    </div>
  );
}
